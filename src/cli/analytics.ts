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
import { expandHome, resolveDbPath } from '../config/paths.js';
import { resolveStateDir } from '../hosts/state-dir.js';
import { analyticsAction, classify, movedAside, openStore, pct, StoreError, type AnalyticsStore } from '../store/index.js';
import { num } from './io.js';
import type { Command } from './command.js';
import { invokedAs } from './args.js';
import { errorText } from '../core/errors.js';

const USAGE = `usage: hmc analytics [--scope global|project] [--period all|day|month|recent|project|tool|strategy]
                     [--limit N] [--project PATH] [--state-dir D] [--db PATH] [--json|--csv]
`;

type Result = Record<string, unknown>;
type Row = Record<string, unknown>;

const n = (x: unknown): number => (typeof x === 'number' ? x : 0);
const str = (x: unknown): string => (typeof x === 'string' ? x : x === null || x === undefined ? '' : String(x));
const percent = (saved: unknown, input: unknown): string => `${pct(n(saved), n(input)).toFixed(2)}%`;
const rowsOf = (r: Result): Row[] => (Array.isArray(r.rows) ? (r.rows as Row[]) : []);

/** An aligned text table: text columns left, number columns (digits, separators, a % sign) right. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const numeric = header.map((_, i) => rows.length > 0 && rows.every((r) => /^-?[0-9][0-9,.]*%?$/.test(r[i] ?? '')));
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

function shareRows(parts: [string, number][]): string[][] {
  const total = parts.reduce((a, [, v]) => a + v, 0);
  return parts.map(([name, saved]) => [name, num(saved), percent(saved, total)]);
}

/** The action's answer as aligned text tables. */
export function renderText(r: Result): string {
  const where = r.scope === 'project' ? `project ${str(r.project)}` : 'all projects';
  switch (r.period) {
    case 'day':
    case 'month': {
      const key = r.period === 'day' ? 'day' : 'month';
      const rows = rowsOf(r).map((x) => [str(x[key]), num(n(x.sessions)), num(n(x.input)), num(n(x.saved)), percent(x.saved, x.input)]);
      return `Savings per ${key}, ${where}\n\n${table([key, 'sessions', 'input', 'saved', '%'], rows)}\n`;
    }
    case 'recent': {
      const rows = rowsOf(r).map((x) => [
        str(x.timestamp), str(x.session_id), str(x.project_path), str(x.model), num(n(x.turns)), num(n(x.tool_calls)),
        num(n(x.session_input)), num(n(x.saved_tokens)), percent(x.saved_tokens, x.session_input),
      ]);
      return `Recent sessions, ${where}\n\n${table(['started (UTC)', 'session', 'project', 'model', 'turns', 'tools', 'input', 'saved', '%'], rows)}\n`;
    }
    case 'project': {
      const rows = rowsOf(r).map((x) => [str(x.project_path) || '(unknown)', num(n(x.sessions)), num(n(x.input_tokens)), num(n(x.saved_tokens)), percent(x.saved_tokens, x.input_tokens)]);
      return `Savings per project\n\n${table(['project', 'sessions', 'input', 'saved', '%'], rows)}\n`;
    }
    case 'tool':
    case 'strategy': {
      const key = r.period;
      const parts = rowsOf(r).map((x): [string, number] => [str(x[key]), n(x.saved)]);
      return `Savings per ${key}, ${where}\n\n${table([key, 'saved', '% of saved'], shareRows(parts))}\n`;
    }
    default: {
      const lines = [
        `HMC savings, ${where}`,
        '',
        table(['', 'tokens'], [
          ['input without HMC', num(n(r.total_input))],
          ['input sent', num(n(r.total_sent ?? r.total_output))],
          ['saved', num(n(r.total_saved))],
          ['saved %', percent(r.total_saved, r.total_input)],
          ['sessions', num(n(r.total_sessions))],
        ]),
      ];
      for (const [key, label] of [['by_strategy', 'strategy'], ['by_tool', 'tool']] as const) {
        const parts = Object.entries((r[key] ?? {}) as Record<string, number>);
        if (parts.length > 0) lines.push('', table([label, 'saved', '% of saved'], shareRows(parts)));
      }
      return `${lines.join('\n')}\n`;
    }
  }
}

/** One CSV field (RFC 4180): quoted when it holds a comma, a quote, CR or LF; quotes doubled. */
export function csvField(value: unknown): string {
  const text = str(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The action's answer as CSV: a header row, then one record per row, CRLF line ends. */
export function renderCsv(r: Result): string {
  let header: string[];
  let records: unknown[][];
  if (Array.isArray(r.rows)) {
    const rows = rowsOf(r);
    header = rows[0] ? Object.keys(rows[0]) : csvColumns(str(r.period));
    records = rows.map((x) => header.map((h) => x[h]));
  } else {
    header = ['kind', 'name', 'saved', 'input', 'sent', 'sessions', 'savings_pct'];
    records = [['total', '', r.total_saved, r.total_input, r.total_sent ?? r.total_output, r.total_sessions, r.savings_pct]];
    for (const [key, kind] of [['by_strategy', 'strategy'], ['by_tool', 'tool']] as const) {
      for (const [name, saved] of Object.entries((r[key] ?? {}) as Record<string, number>)) records.push([kind, name, saved, '', '', '', '']);
    }
  }
  return [header, ...records].map((rec) => rec.map(csvField).join(',')).join('\r\n') + '\r\n';
}

/** Column names of an empty answer, so scripts always get a header. */
function csvColumns(period: string): string[] {
  switch (period) {
    case 'day': return ['day', 'saved', 'input', 'sessions'];
    case 'month': return ['month', 'saved', 'input', 'sessions'];
    case 'recent': return ['session_id', 'timestamp', 'project_path', 'saved_tokens', 'session_input', 'session_output', 'model', 'platform', 'turns', 'tool_calls', 'started_at', 'ended_at'];
    case 'project': return ['project_path', 'saved_tokens', 'input_tokens', 'sessions'];
    case 'tool': return ['tool', 'saved'];
    default: return ['strategy', 'saved'];
  }
}

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
        project: { type: 'string' },
        'state-dir': { type: 'string' },
        db: { type: 'string' },
        json: { type: 'boolean', default: false },
        csv: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    });
    if (values.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    if (values.json && values.csv) {
      process.stderr.write(`hmc analytics: choose one of --json and --csv\n${USAGE}`);
      return 2;
    }
    const dbPath = values.db?.trim() ? resolve(expandHome(values.db.trim())) : resolveDbPath('', resolveStateDir(values['state-dir']));
    const args = { scope: values.scope ?? (values.project ? 'project' : undefined), period: values.period, limit: values.limit };
    const ctx = { project: values.project ? realpathOr(values.project) : currentProject() };
    const missing = !existsSync(dbPath);
    if (missing) process.stderr.write(`no analytics database at ${dbPath} yet\n`);
    const aside = movedAside(dbPath);
    if (aside) {
      process.stderr.write(`note: a damaged database was moved aside to ${aside.file} (${new Date(aside.time).toISOString().slice(0, 16).replace('T', ' ')} UTC); the sessions that still read were copied into ${dbPath}\n`);
    }
    if (missing && !values.json && !values.csv) return 0;
    // With no file, an empty in-memory store gives the same shapes, all zeros.
    let store: AnalyticsStore;
    try {
      store = missing ? openStore(':memory:') : openReadable(dbPath);
    } catch (err) {
      if (classify(err) !== 'corrupt') throw err;
      process.stderr.write(`hmc analytics: ${errorText(err)}; HMC moves it aside on its next write (\`${invokedAs()} doctor\` checks it)\n`);
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
      else process.stdout.write(renderText(result));
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
