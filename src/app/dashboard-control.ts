/**
 * The two ways `hmc_control dashboard` runs the dashboard. Background (the sidecar, `hmc control`):
 * the state dir's one shared detached process, which outlives the Hermes process that started it
 * (`hermes chat -q` exits after each turn). In-process (`hmc demo`): a server inside this process,
 * fed by subscription, stopped when the runtime closes.
 *
 * Invariant: `release()` (the runtime closing) never stops the shared background dashboard; only
 * an explicit `stop` does.
 */
import type { HmcConfig } from '../config/keys.js';
import type { DashboardFeed } from '../server/index.js';
import { VERSION } from '../core/version.js';
import type { DashboardControl } from '../engine/control/control.js';
import { errorText } from '../core/errors.js';

export interface DashboardControlOptions {
  stateDir: string;
  config: () => HmcConfig;
  /** Overrides dashboard.port. */
  port?: number;
  /** The database the dashboard reads, when analytics are on. */
  dbPath: () => string;
  log: (line: string) => void;
}

/** The state dir's shared background dashboard (src/server/background.ts). */
export function backgroundDashboard(opts: DashboardControlOptions & { configPath: string | null }): DashboardControl {
  return {
    async start() {
      try {
        const { startBackground } = await import('../server/background.js');
        return await startBackground({
          stateDir: opts.stateDir,
          port: opts.port ?? opts.config().dashboard.port,
          configPath: opts.configPath,
        });
      } catch (err) {
        return { running: false, error: errorText(err) };
      }
    },
    async stop() {
      try {
        const { stopBackground } = await import('../server/background.js');
        return await stopBackground(opts.stateDir);
      } catch (err) {
        return { running: false, error: errorText(err) };
      }
    },
    async status() {
      try {
        const { backgroundStatus } = await import('../server/background.js');
        return await backgroundStatus(opts.stateDir);
      } catch (err) {
        return { running: false, error: errorText(err) };
      }
    },
    async release() {
      // The shared dashboard outlives this process by design.
    },
  };
}

/** A dashboard inside this process, fed by its own events as they happen. */
export function inProcessDashboard(opts: DashboardControlOptions & { feed: DashboardFeed | null }): DashboardControl {
  let dashboard: {
    url: string;
    host: string;
    port: number;
    started_at: number;
    subscribers(): number;
    stop(): Promise<void>;
  } | null = null;
  const running = (d: NonNullable<typeof dashboard>): Record<string, unknown> => ({
    running: true,
    url: d.url,
    host: d.host,
    port: d.port,
    started_at: d.started_at,
    subscribers: d.subscribers(),
    pid: process.pid,
    detached: false,
  });
  const stop = async (): Promise<Record<string, unknown>> => {
    const current = dashboard;
    dashboard = null;
    if (current) await current.stop();
    return { running: false };
  };
  return {
    async start() {
      if (dashboard) return running(dashboard);
      try {
        const { startDashboard, envHeaders } = await import('../server/index.js');
        const c = opts.config();
        dashboard = await startDashboard({
          stateDir: opts.stateDir,
          port: opts.port ?? c.dashboard.port,
          maxClients: c.dashboard.max_clients,
          dbPath: c.analytics.enabled ? opts.dbPath() : null,
          ...(opts.feed ? { feed: opts.feed } : {}),
          pricing: c.pricing,
          log: opts.log,
          version: VERSION,
          otlp: {
            endpoint: c.dashboard.otlp.endpoint,
            intervalSeconds: c.dashboard.otlp.interval_seconds,
            headers: envHeaders(process.env.OTEL_EXPORTER_OTLP_HEADERS),
          },
        });
        return running(dashboard);
      } catch (err) {
        return { running: false, error: errorText(err) };
      }
    },
    stop,
    async status() {
      return dashboard ? running(dashboard) : { running: false };
    },
    async release() {
      await stop();
    },
  };
}
