/**
 * The dashboard server (DESIGN §9): `node:http` on 127.0.0.1, the page from web/dist, the SSE
 * stream, the JSON API and /metrics. Events come from an in-process feed (the engine's sink)
 * and from tailing the other processes' event files in the state dir.
 *
 * Invariant: bound to 127.0.0.1 only; base port then the next 99 upward (0 = the system picks);
 * `stop()` ends every stream, the tail and the server, and is safe to call twice.
 */
import { createServer, type Server } from 'node:http';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HmcConfig } from '../config/keys.js';
import type { HmcEvent, InspectRecord } from '../events/types.js';
import { createInspectIndex } from '../events/inspect-index.js';
import { tailStateDir, type Tail } from '../events/tail.js';
import type { ServerContext } from './context.js';
import { processAlive } from './process-alive.js';
import { LiveState } from './live-state.js';
import { handleRequest } from './router.js';
import { SseHub } from './sse-hub.js';
import { openSqliteReader, storeAccess, type StoreOpener, type StoreReader } from './store-reader.js';
import { errorText } from '../core/errors.js';
import { startOtlpExport } from './otlp.js';
import { measuredSeries } from './cost-series.js';
import { priceModels } from '../store/pricing.js';

export interface DashboardFeed {
  subscribe(fn: (e: HmcEvent) => void): () => void;
  source: string;
  /** The feed's own event file name or path, skipped by the tail (default `<source>.jsonl`). */
  eventsFile?: string;
  recentInspect?(id: string): InspectRecord | undefined;
}

export interface DashboardOptions {
  stateDir: string;
  /** First port tried (default 48800); 0 lets the system pick. */
  port?: number;
  maxClients?: number;
  /** The analytics database; null = analytics off (the API answers zeros). */
  dbPath: string | null;
  feed?: DashboardFeed;
  pricing: HmcConfig['pricing'];
  log: (line: string) => void;
  version: string;
  /** Tests: a store to read instead of opening `dbPath`. */
  store?: StoreReader;
  /** Tests: how to open `dbPath` (default: the SQLite store, read-only). */
  openStore?: StoreOpener;
  /** Where the built page lives (default: the package's web/dist). */
  webRoot?: string;
  /** Follow the state dir's event files (default true). */
  tail?: boolean;
  /** Push the lifetime figures to an OpenTelemetry collector (dashboard.otlp.*; absent or '' endpoint: none). */
  otlp?: { endpoint: string; intervalSeconds: number; headers?: Record<string, string> };
}

export interface DashboardHandle {
  url: string;
  host: '127.0.0.1';
  port: number;
  started_at: number;
  subscribers(): number;
  stop(): Promise<void>;
}

export const DEFAULT_PORT = 48800;
export const PORT_ATTEMPTS = 100;
const HOST = '127.0.0.1';
/** Event ids remembered for de-duplication (more than the SSE ring holds). */
const RECENT_IDS = 5000;

/** web/dist of this package, from src/server (tsx) or dist/server (built). */
export function defaultWebRoot(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'web', 'dist');
}

export async function startDashboard(opts: DashboardOptions): Promise<DashboardHandle> {
  const startedAt = Date.now();
  const live = new LiveState(processAlive);
  const hub = new SseHub({ maxClients: opts.maxClients ?? 32, version: opts.version, log: opts.log });
  const store = storeAccess(opts.dbPath, opts.openStore ?? openSqliteReader, opts.log, opts.store);
  const ctx: ServerContext = {
    stateDir: opts.stateDir,
    webRoot: opts.webRoot ?? defaultWebRoot(),
    version: opts.version,
    startedAt,
    pricing: opts.pricing,
    live,
    hub,
    store,
    log: opts.log,
    inspectIndex: createInspectIndex(opts.stateDir),
    ...(opts.feed?.recentInspect ? { inspectMemory: opts.feed.recentInspect.bind(opts.feed) } : {}),
  };
  // The same event can arrive twice: by subscription and from the replay of our own file.
  const recentIds = new Set<string>();
  const onEvent = (e: HmcEvent): void => {
    if (recentIds.has(e.id)) return;
    recentIds.add(e.id);
    if (recentIds.size > RECENT_IDS) {
      const oldest = recentIds.values().next().value;
      if (oldest !== undefined) recentIds.delete(oldest);
    }
    live.apply(e);
    hub.publish(e);
  };

  // Built now, off any request, so the first inspector lookup reads one record, not every file.
  void ctx.inspectIndex.refresh();

  let port = 0;
  const server = createServer((req, res) => void handleRequest(ctx, port, req, res));
  server.keepAliveTimeout = 5000;
  port = await listen(server, opts.port ?? DEFAULT_PORT);

  const unsubscribe = opts.feed?.subscribe(onEvent);
  let tail: Tail | null = null;
  if (opts.tail !== false) {
    const own = opts.feed ? [basename(opts.feed.eventsFile ?? `${opts.feed.source}.jsonl`)] : [];
    try {
      tail = await tailStateDir(opts.stateDir, onEvent, { skipFiles: own, replaySkipped: true, log: opts.log });
    } catch (err) {
      opts.log(`hmc dashboard: cannot follow ${opts.stateDir}: ${errorText(err)}`);
    }
  }

  const otlp = opts.otlp
    ? startOtlpExport({
        endpoint: opts.otlp.endpoint,
        intervalMs: opts.otlp.intervalSeconds * 1000,
        version: opts.version,
        log: opts.log,
        ...(opts.otlp.headers ? { headers: opts.otlp.headers } : {}),
        read: async () => {
          const s = await store.get();
          return {
            summary: s.summary(),
            models: priceModels(s.byModel(), opts.pricing),
            work: s.work(),
            measured: measuredSeries(s.measured(), opts.pricing),
          };
        },
      })
    : null;

  let stopping: Promise<void> | null = null;
  return {
    url: `http://${HOST}:${port}/`,
    host: HOST,
    port,
    started_at: startedAt,
    subscribers: () => hub.size(),
    stop() {
      stopping ??= (async () => {
        otlp?.stop();
        unsubscribe?.();
        await tail?.close();
        hub.close();
        await new Promise<void>((r) => {
          server.close(() => r());
          server.closeAllConnections();
        });
        store.close();
      })();
      return stopping;
    },
  };
}

/** Listens on `base`, or the next free port of the following 99; 0 = any port. */
async function listen(server: Server, base: number): Promise<number> {
  const attempts = base === 0 ? 1 : Math.min(PORT_ATTEMPTS, 65536 - base);
  let lastError: unknown = null;
  for (let i = 0; i < attempts; i++) {
    try {
      return await new Promise<number>((resolvePort, reject) => {
        const onError = (err: Error): void => {
          server.off('listening', onListening);
          reject(err);
        };
        const onListening = (): void => {
          server.off('error', onError);
          const addr = server.address();
          resolvePort(typeof addr === 'object' && addr !== null ? addr.port : base + i);
        };
        server.once('error', onError);
        server.once('listening', onListening);
        server.listen(base + i, HOST);
      });
    } catch (err) {
      lastError = err;
    }
  }
  throw new Error(`no free port from ${base} to ${base + attempts - 1}: ${errorText(lastError)}`);
}
export { envHeaders } from './otlp.js';
