/**
 * `hmc analytics --push [--endpoint URL] [--state-dir D] [--db PATH] [--config PATH]` (issue 27,
 * finding 6): the analytics store's lifetime figures pushed once, as OTLP/HTTP JSON, to
 * `dashboard.otlp.endpoint` (or `--endpoint`), the same request the running dashboard sends every
 * interval (src/server/otlp.ts), for teams that want the figures without a dashboard running (a
 * cron job, a CI step).
 *
 * Invariant: bounded in time (one export, its deadline 10 s); exit 0 once the collector took the
 * figures, 1 with one line saying what failed (no credential in it), 2 for a usage error; never
 * writes the database (read-only) and never pushes zeros for a database that is not there.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfigFile } from '../config/load.js';
import { expandHome, resolveConfigPath, resolveDbPath } from '../config/paths.js';
import { resolveStateDir } from '../hosts/state-dir.js';
import { openStore } from '../store/index.js';
import { priceModels } from '../store/pricing.js';
import { envHeaders, pushOnce, type OtlpFigures } from '../server/otlp.js';
import { measuredSeries } from '../server/cost-series.js';
import { VERSION } from '../core/version.js';
import { errorText } from '../core/errors.js';
import { EXIT_OK, EXIT_PROBLEM, EXIT_USAGE, explicitConfig } from './args.js';

/** The options `--push` works with; any other analytics option is a usage error (it filters or renders, and the push sends the lifetime figures). */
const WITH_PUSH = new Set(['push', 'endpoint', 'state-dir', 'db', 'config', 'help', 'json', 'csv']);

export type PushValues = Record<string, string | boolean | undefined>;

/** Runs the one-shot push; `write` and `err` are stdout and stderr. */
export async function pushAnalytics(
  values: PushValues,
  io: { out(t: string): void; err(t: string): void; env?: NodeJS.ProcessEnv } = {
    out: (t) => void process.stdout.write(t),
    err: (t) => void process.stderr.write(t),
  },
): Promise<number> {
  const env = io.env ?? process.env;
  const other = Object.keys(values).filter((k) => values[k] !== undefined && values[k] !== false && !WITH_PUSH.has(k));
  if (values.push !== true || other.length > 0 || values.json === true || values.csv === true) {
    const why =
      values.push !== true
        ? '--endpoint needs --push'
        : `--push sends the lifetime figures the dashboard pushes; it takes no ${[...other, ...(values.json === true ? ['json'] : []), ...(values.csv === true ? ['csv'] : [])].map((k) => `--${k}`).join(', ')}`;
    io.err(`hmc analytics: ${why}\n`);
    return EXIT_USAGE;
  }
  const loaded = loadConfigFile(
    resolveConfigPath(explicitConfig(typeof values.config === 'string' ? values.config : undefined)),
  );
  for (const issue of loaded.issues) io.err(`hmc: config: ${issue.message}\n`);
  const config = loaded.config;
  const endpoint = typeof values.endpoint === 'string' ? values.endpoint.trim() : config.dashboard.otlp.endpoint.trim();
  if (endpoint === '') {
    io.err(
      'hmc analytics: --push has no collector: set dashboard.otlp.endpoint in the config (docs/configuration.md) or give --endpoint URL\n',
    );
    return EXIT_USAGE;
  }
  const db = typeof values.db === 'string' && values.db.trim() ? values.db.trim() : '';
  const stateDir = resolveStateDir(typeof values['state-dir'] === 'string' ? values['state-dir'] : undefined);
  const dbPath = db ? resolve(expandHome(db)) : resolveDbPath(config.analytics.db_path, stateDir);
  if (!existsSync(dbPath)) {
    io.err(`hmc analytics: no analytics database at ${dbPath}: nothing pushed\n`);
    return EXIT_PROBLEM;
  }
  const start = Date.now();
  let figures: OtlpFigures;
  try {
    const store = openStore(dbPath, { readonly: true });
    try {
      figures = {
        summary: store.summary(),
        models: priceModels(store.byModel(), config.pricing),
        work: store.work(),
        measured: measuredSeries(store.measured(), config.pricing),
      };
    } finally {
      store.close();
    }
  } catch (err) {
    io.err(`hmc analytics: cannot read ${dbPath}: ${errorText(err)}; nothing pushed\n`);
    return EXIT_PROBLEM;
  }
  try {
    const shown = await pushOnce({
      endpoint,
      headers: envHeaders(env.OTEL_EXPORTER_OTLP_HEADERS),
      figures,
      version: VERSION,
      start,
    });
    io.out(`pushed ${figures.summary.total_sessions} sessions' figures to ${shown} (${Date.now() - start} ms)\n`);
    return EXIT_OK;
  } catch (err) {
    io.err(`hmc analytics: ${errorText(err)}\n`);
    return EXIT_PROBLEM;
  }
}
