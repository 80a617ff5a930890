/**
 * `hmc analytics [--scope global|project] [--period P] [--limit N] [--project PATH]
 * [--state-dir D] [--db PATH] [--json|--csv]`: the savings history from the analytics database, as
 * aligned tables, as the same JSON objects `hmc_control analytics` answers, or as CSV (RFC 4180).
 *
 * Invariant: never creates or writes the database (opened read-only; an old schema is the one
 * exception, migrated in place); a missing database is one clear line and exit 0, with the zero
 * shapes for --json/--csv; errors are one line on stderr and exit 2.
 */
import { existsSync, realpathSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { loadConfigFile } from '../config/load.js';
import { expandHome, resolveConfigPath, resolveDbPath } from '../config/paths.js';
import { resolveStateDir } from '../hosts/state-dir.js';
import {
  analyticsAction,
  checkAnalyticsArgs,
  classify,
  limitCut,
  PERIODS,
  movedAside,
  openStore,
  StoreError,
  type AnalyticsStore,
} from '../store/index.js';
import { renderCsv } from './analytics-render.js';
import { renderText } from '../store/analytics-text.js';
import { num } from '../core/text-table.js';
import type { Command } from './command.js';
import { explicitConfig, invokedAs } from './args.js';
import { pushAnalytics } from './analytics-push.js';

export { csvField } from './analytics-render.js';
import { errorText } from '../core/errors.js';

const USAGE = `usage: hmc analytics [--scope global|project] [--period ${PERIODS.join('|')}]
                     [--since YYYY-MM-DD] [--until YYYY-MM-DD] [--by tool|kind|program] [--limit N] [--session ID]
                     [--project PATH] [--state-dir D] [--db PATH] [--config PATH] [--json|--csv]
       hmc analytics --push [--endpoint URL] [--state-dir D] [--db PATH] [--config PATH]
  the savings history (docs/analytics.md; its words: docs/glossary.md); --since and --until are
  UTC days, both included; --by groups --period output; --session picks --period usage's session
  (the provider's figures beside HMC's); costs use the config's price table;
  --push sends the lifetime figures once as OTLP to dashboard.otlp.endpoint or --endpoint
`;

function openReadable(path: string): AnalyticsStore {
  try {
    return openStore(path, { readonly: true });
  } catch (err) {
    // A file from an older HMC: migrate it once (the only write this command ever makes).
    if (err instanceof StoreError && err.code === 'HMC_SCHEMA_OLD') return openStore(path);
    throw err;
  }
}

function currentProject(): string {
  try {
    return realpathSync(process.cwd());
  } catch {
    return process.cwd();
  }
}

export const command: Command = {
  summary: 'savings history from the analytics database',
  usage: USAGE,
  async run(argv) {
    // A usage error (unknown option, missing value) reaches main.ts: named, with the usage, exit 2.
    const { values } = parseArgs({
      args: argv,
      options: {
        scope: { type: 'string' },
        period: { type: 'string' },
        limit: { type: 'string' },
        since: { type: 'string' },
        until: { type: 'string' },
        by: { type: 'string' },
        session: { type: 'string' },
        config: { type: 'string' },
        project: { type: 'string' },
        'state-dir': { type: 'string' },
        db: { type: 'string' },
        json: { type: 'boolean', default: false },
        csv: { type: 'boolean', default: false },
        push: { type: 'boolean' },
        endpoint: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    });
    if (values.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    if (values.push !== undefined || values.endpoint !== undefined) return pushAnalytics(values);
    if (values.json && values.csv) {
      process.stderr.write(`hmc analytics: choose one of --json and --csv\n${USAGE}`);
      return 2;
    }
    const dbPath = values.db?.trim()
      ? resolve(expandHome(values.db.trim()))
      : resolveDbPath('', resolveStateDir(values['state-dir']));
    const args = {
      scope: values.scope ?? (values.project ? 'project' : undefined),
      period: values.period,
      limit: values.limit,
      since: values.since,
      until: values.until,
      by: values.by,
      session: values.session,
    };
    // Checked before the database is opened: a bad argument is the same usage error with or without one.
    const checked = checkAnalyticsArgs(args);
    if ('error' in checked) {
      if (values.json) process.stdout.write(`${JSON.stringify(checked)}\n`);
      process.stderr.write(`hmc analytics: ${checked.error}\n`);
      return 2;
    }
    const cut = limitCut(checked);
    const cutNote = cut
      ? `--limit ${num(cut.asked)} is more than period=${checked.period} lists: at most ${num(cut.max)} rows`
      : '';
    if (cut) process.stderr.write(`hmc analytics: ${cutNote}\n`);
    const loaded = loadConfigFile(resolveConfigPath(explicitConfig(values.config)));
    const ctx = {
      project: values.project ? realpathOr(values.project) : currentProject(),
      pricing: loaded.config.pricing,
    };
    const missing = !existsSync(dbPath);
    if (missing) process.stderr.write(`no analytics database at ${dbPath} yet\n`);
    const aside = movedAside(dbPath);
    if (aside) {
      process.stderr.write(
        `note: a damaged database was moved aside to ${aside.file} (${new Date(aside.time).toISOString().slice(0, 16).replace('T', ' ')} UTC); the sessions that still read were copied into ${dbPath}\n`,
      );
    }
    if (missing && !values.json && !values.csv) return 0;
    // With no file, an empty in-memory store gives the same shapes, all zeros.
    let store: AnalyticsStore;
    try {
      store = missing ? openStore(':memory:') : openReadable(dbPath);
    } catch (err) {
      if (classify(err) !== 'corrupt') throw err;
      process.stderr.write(
        `hmc analytics: ${errorText(err)}; HMC moves it aside on its next write (\`${invokedAs()} doctor\` checks it)\n`,
      );
      return 1;
    }
    try {
      const result = analyticsAction(store, args, ctx);
      if (typeof result.error === 'string') {
        if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
        process.stderr.write(`hmc analytics: ${result.error}\n`);
        return result.damaged === true ? 1 : 2;
      }
      if (values.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      else if (values.csv) process.stdout.write(renderCsv(result));
      else process.stdout.write(renderText(result) + (cut ? `\n(${cutNote})\n` : ''));
      return 0;
    } finally {
      store.close();
    }
  },
};

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(expandHome(path)); // a project that no longer exists still has history
  }
}
