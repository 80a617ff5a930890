/**
 * A running HMC: the engine wired to its surroundings (config file watched, events into the state
 * dir, sessions into SQLite, the dashboard on demand). The sidecar, `hmc demo` and `hmc replay
 * --record` all start one of these.
 *
 * Invariant: a part that cannot start (no SQLite module, unwritable state dir) is logged once and
 * left out; the engine still answers every hook.
 */
import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import type { HmcConfig } from '../config/keys.js';
import { ConfigSource } from '../config/load.js';
import { resolveDbPath } from '../config/paths.js';
import { resolveStateDir } from '../hosts/state-dir.js';
import { NULL_SINK, type EventSink, type HmcEvent } from '../events/types.js';
import { createPhaseIndex, type PhaseIndexHandle } from '../store/phase-index.js';
import type { Recorder } from '../store/recorder.js';
import type { HmcHostApi } from '../core/host-api.js';
import type { DashboardControl } from '../engine/control/control.js';
import { backgroundDashboard, inProcessDashboard } from './dashboard-control.js';
import { summariserFor } from '../summarise/choose.js';
import type { Summariser } from '../summarise/types.js';
import { Engine } from '../engine/engine.js';
import { errorText } from '../core/errors.js';

/** How long closing may spend on queued accounting before it saves what is settled. */
const CLOSE_SETTLE_MS = 1500;

export interface RuntimeOptions {
  stateDir?: string;
  configPath?: string;
  /** A config to use as is (no file), e.g. for tests and the demo. */
  config?: HmcConfig;
  log?: (line: string) => void;
  /** How the engine calls the host (`llm.complete`). */
  hostCall?: (method: string, params: Record<string, unknown>) => Promise<unknown>;
  /** True while the engine's background work should wait (the sidecar: an answer is being written). */
  holdBackground?: () => boolean;
  /** Port for the dashboard when started through hmc_control (overrides dashboard.port). */
  dashboardPort?: number;
  /** Where `hmc_control dashboard start` runs it: the state dir's shared background process
   * (default), or inside this process (`hmc demo`). docs/dashboard.md. */
  dashboard?: 'background' | 'in-process';
  now?: () => number;
  /** The caller is the machine's owner at a terminal (`hmc control`): control reads every session (issue 26, finding 5). */
  machineOwner?: boolean;
}

export interface Runtime {
  api: HmcHostApi;
  engine: Engine;
  stateDir: string;
  config: ConfigSource;
  /** The session index of summarised phases (layer 1 records into it). */
  phases: PhaseIndexHandle;
  /** Live events of this process (the dashboard subscribes). */
  events: { subscribe(fn: (e: HmcEvent) => void): () => void; source: string } | null;
  /** Waits until queued analytics writes reached the database. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export async function createRuntime(opts: RuntimeOptions = {}): Promise<Runtime> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const stateDir = resolveStateDir(opts.stateDir);
  try {
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  } catch (err) {
    log(`hmc: cannot create the state dir ${stateDir}: ${errorText(err)}; sessions will not be saved`);
  }
  const config = opts.config ? ConfigSource.fixed(opts.config) : new ConfigSource(opts.configPath ?? null, log);
  if (!opts.config)
    await config.watch().catch((err: unknown) => log(`hmc: cannot watch the config: ${errorText(err)}`));

  let sink:
    | (EventSink & { subscribe(fn: (e: HmcEvent) => void): () => void; source: string; close(): Promise<void> })
    | null = null;
  try {
    const { createStateDirSink } = await import('../events/index.js');
    sink = createStateDirSink({ stateDir, inspector: config.config.dashboard.inspector, log });
  } catch (err) {
    log(`hmc: live events are off: ${errorText(err)}`);
  }

  const dbPath = () => resolveDbPath(config.config.analytics.db_path, stateDir);
  let recorder: Recorder | null = null;
  const ensureRecorder = async () => {
    if (recorder || !config.config.analytics.enabled) return;
    try {
      const { createRecorder } = await import('../store/index.js');
      recorder = createRecorder({ path: dbPath(), retentionDays: config.config.analytics.retention_days, log });
    } catch (err) {
      log(`hmc: analytics are off (the SQLite module could not load: ${errorText(err)}); run \`hermes hmc doctor\``);
    }
  };
  await ensureRecorder();
  config.onChange(() => void ensureRecorder());

  const analyticsStore = await loadAnalytics(dbPath, () => config.config.pricing, log);
  // Search across sessions in the analytics file (null when the SQLite module cannot load: the
  // index scans its files; loadAnalytics has logged why).
  const phaseReader = await import('../store/index.js').then(
    (m) => m.createPhaseDbReader(dbPath),
    () => null,
  );
  // Read per call: analytics.enabled may change while running. Off: the index files alone.
  const phases = createPhaseIndex({
    stateDir,
    log,
    mirror: () => (config.config.analytics.enabled && recorder ? (entry) => recorder?.recordPhase(entry) : null),
    // No database yet (nothing recorded): the files are all there is, nothing to report.
    searchDb: () =>
      config.config.analytics.enabled && phaseReader && existsSync(dbPath()) ? phaseReader.search : null,
  });
  const dashboardOpts = {
    stateDir,
    config: () => config.config,
    dbPath,
    log,
    ...(opts.dashboardPort !== undefined ? { port: opts.dashboardPort } : {}),
  };
  const dashboardControl: DashboardControl =
    opts.dashboard === 'in-process'
      ? inProcessDashboard({ ...dashboardOpts, feed: sink })
      : backgroundDashboard({ ...dashboardOpts, configPath: config.path });

  let projectPath = '';
  try {
    projectPath = realpathSync(process.cwd());
  } catch {
    // The working directory was removed: no project.
  }

  // Layer 1's summariser: chosen again only when the host's capabilities or the config change;
  // why it is on or off is said once per choice.
  let chosen: { key: unknown; caps: string | undefined; summariser: Summariser | null } | null = null;
  const summariser = (): Summariser | null => {
    const bc = config.config.background_compression;
    const caps = engine.hostCapabilities;
    // A host that said nothing of its capabilities (a replay harness) is asked; one that listed
    // them without llm.complete is not.
    const capsKey = caps?.join(',');
    if (chosen && chosen.key === bc && chosen.caps === capsKey) return chosen.summariser;
    const choice = summariserFor({
      config: bc,
      env: process.env,
      log,
      hostCapabilities: caps ?? ['llm.complete'],
      ...(opts.hostCall ? { hostCall: opts.hostCall } : {}),
    });
    if (bc.enabled) log(`hmc: ${choice.summariser ? choice.uses : choice.why}`);
    chosen = { key: bc, caps: capsKey, summariser: choice.summariser };
    return choice.summariser;
  };

  const engine: Engine = new Engine({
    summariser,
    config: () => config.config,
    stateDir,
    sink: sink ?? NULL_SINK,
    recorder: { record: (rec) => recorder?.record(rec), recordUsage: (row) => recorder?.recordUsage(row) },
    phases,
    log,
    projectPath,
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.holdBackground ? { holdBackground: opts.holdBackground } : {}),
    control: {
      dashboard: dashboardControl,
      // Read per call: analytics.enabled may change while running.
      analytics: analyticsStore
        ? (args, project, owner) =>
            config.config.analytics.enabled
              ? analyticsStore(args, project, owner)
              : { error: 'analytics is disabled (analytics.enabled: false)' }
        : null,
      configIssues: () => config.issues,
      configFile: config.path,
      machine: opts.machineOwner === true,
    },
  });

  return {
    api: engine,
    engine,
    phases,
    stateDir,
    config,
    events: sink,
    async flush() {
      engine.settle();
      phases.flush();
      await recorder?.flush();
      await engine.flushSaves();
    },
    async close() {
      // The host is gone (the sidecar's input closed): what it did not let go becomes idle.
      engine.hostGone();
      // Bounded: the bridge gives a closing sidecar 3 s. Work a resumed long session still owes
      // is saved as far as it got; the next process carries on from there.
      if (!engine.settle(performance.now() + CLOSE_SETTLE_MS)) engine.saveUnsettled();
      await engine.closeSaves();
      phases.close();
      phaseReader?.close();
      await dashboardControl.release();
      await recorder?.close();
      await sink?.close();
      await config.close();
    },
  };
}

/** `hmc_control analytics` over the database, opened per call so other writers' rows show. */
async function loadAnalytics(dbPath: () => string, pricing: () => HmcConfig['pricing'], log: (line: string) => void) {
  try {
    const store = await import('../store/index.js');
    return (args: Record<string, unknown>, project: string, owner?: string): Record<string, unknown> => {
      let db: ReturnType<typeof store.openStore> | null = null;
      try {
        db = store.openStore(dbPath(), { log });
        return store.analyticsAction(db, args, {
          project,
          pricing: pricing(),
          ...(owner !== undefined ? { owner } : {}),
        });
      } catch (err) {
        return { error: `analytics unavailable: ${errorText(err)}` };
      } finally {
        db?.close();
      }
    };
  } catch (err) {
    log(`hmc: analytics queries are off: ${errorText(err)}`);
    return null;
  }
}
