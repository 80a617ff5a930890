/**
 * Dashboard latency bench (DESIGN §12: hook to browser under 100 ms, 10 pages without slowing
 * the hooks). Emits tool events through the real sink at a fixed rate while 10 raw HTTP SSE
 * clients (not browsers: the same bytes an EventSource gets, without rendering) read /events,
 * and measures emit → client latency, plus what `emit()` itself costs the hook.
 *
 * Two paths: `in-process` (the sidecar's own dashboard, fed by subscription) and `state-dir`
 * (`hmc dashboard` in another process: file append → chokidar → tail → SSE).
 *
 * Run: `npx tsx bench/dashboard.ts [--rate 1000] [--seconds 3] [--clients 10]`.
 */
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createStateDirSink } from '../src/events/state-dir-sink.js';
import { startDashboard } from '../src/server/index.js';
import { defaultConfig } from '../src/config/keys.js';

export interface PathResult {
  path: 'in-process' | 'state-dir';
  clients: number;
  rate: number;
  seconds: number;
  emitted: number;
  /** Deliveries expected (events × clients) and received. */
  expected: number;
  received: number;
  latency_ms: { p50: number; p99: number; max: number };
  emit_us: { p50: number; p99: number };
  dropped_clients: number;
}

export interface DashboardBenchOptions {
  rate?: number;
  seconds?: number;
  clients?: number;
}

function pct(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

function sseClient(port: number, onData: (data: string) => void): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/events', headers: { host: `127.0.0.1:${port}` } }, (res) => {
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        let at = buf.indexOf('\n\n');
        while (at !== -1) {
          const block = buf.slice(0, at);
          buf = buf.slice(at + 2);
          if (block.startsWith('event: tool')) {
            for (const line of block.split('\n')) if (line.startsWith('data: ')) onData(line.slice(6));
          }
          at = buf.indexOf('\n\n');
        }
      });
      res.on('error', () => undefined);
      resolve(() => req.destroy());
    });
    req.on('error', reject);
    req.end();
  });
}

async function runPath(path: PathResult['path'], rate: number, seconds: number, clients: number): Promise<PathResult> {
  const dir = mkdtempSync(join(tmpdir(), 'hmc-bench-dash-'));
  const log = (): void => undefined;
  const sink = createStateDirSink({ stateDir: dir, source: `bench-${path}`, inspector: false, log });
  const dash = await startDashboard({
    stateDir: dir,
    port: 0,
    maxClients: clients + 2,
    dbPath: null,
    pricing: defaultConfig().pricing,
    log,
    version: 'bench',
    ...(path === 'in-process' ? { feed: sink } : {}),
  });
  const sent = new Map<string, number>();
  const latencies: number[] = [];
  let received = 0;
  const closers: (() => void)[] = [];
  for (let i = 0; i < clients; i++) {
    closers.push(
      await sseClient(dash.port, (data) => {
        const m = /"tool_call_id":"(b\d+)"/.exec(data);
        const t0 = m ? sent.get(m[1] ?? '') : undefined;
        if (t0 !== undefined) {
          latencies.push(performance.now() - t0);
          received++;
        }
      }),
    );
  }
  await new Promise((r) => setTimeout(r, 200));
  const emitCost: number[] = [];
  const total = rate * seconds;
  let seq = 0;
  const start = performance.now();
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate));
      while (seq < due) {
        seq++;
        const id = `b${seq}`;
        const t0 = performance.now();
        sent.set(id, t0);
        sink.emit({
          type: 'tool',
          session_id: 'bench-session',
          turn: 1 + Math.floor(seq / 50),
          tool_name: 'terminal',
          tool_call_id: id,
          is_error: false,
          tokens_before: 1200,
          tokens_after: 300,
          strategies: ['truncation'],
          delta_saved: 900,
          cumulative_saved: seq * 900,
          by_strategy: { truncation: seq * 900 },
          context_tokens: 50_000,
          context_percent: 0.25,
        });
        emitCost.push((performance.now() - t0) * 1000);
      }
      if (seq >= total) resolve();
      else setTimeout(tick, 2);
    };
    tick();
  });
  const deadline = Date.now() + 5000;
  while (received < total * clients && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const droppedBefore = clients - dash.subscribers();
  for (const c of closers) c();
  await dash.stop();
  await sink.close();
  rmSync(dir, { recursive: true, force: true });
  latencies.sort((a, b) => a - b);
  emitCost.sort((a, b) => a - b);
  const round = (n: number, d = 2): number => Math.round(n * 10 ** d) / 10 ** d;
  return {
    path,
    clients,
    rate,
    seconds,
    emitted: seq,
    expected: total * clients,
    received,
    latency_ms: {
      p50: round(pct(latencies, 50)),
      p99: round(pct(latencies, 99)),
      max: round(latencies[latencies.length - 1] ?? NaN),
    },
    emit_us: { p50: round(pct(emitCost, 50), 1), p99: round(pct(emitCost, 99), 1) },
    dropped_clients: droppedBefore,
  };
}

/** Runs both paths and prints one line each (bench/run.ts calls this and ignores the result). */
export async function runDashboardBench(opts: DashboardBenchOptions = {}): Promise<PathResult[]> {
  const rate = opts.rate ?? 1000;
  const seconds = opts.seconds ?? 3;
  const clients = opts.clients ?? 10;
  const results = [
    await runPath('in-process', rate, seconds, clients),
    await runPath('state-dir', rate, seconds, clients),
  ];
  for (const r of results) {
    process.stdout.write(
      `${r.path.padEnd(10)} ${r.clients} SSE clients (raw HTTP), ${r.rate} events/s for ${r.seconds} s: ` +
        `received ${r.received}/${r.expected}; latency p50 ${r.latency_ms.p50} ms, p99 ${r.latency_ms.p99} ms, max ${r.latency_ms.max} ms; ` +
        `emit() p50 ${r.emit_us.p50} µs, p99 ${r.emit_us.p99} µs; clients dropped ${r.dropped_clients}\n`,
    );
  }
  return results;
}

function arg(name: string, def: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i === -1 ? undefined : Number(process.argv[i + 1]);
  return v !== undefined && Number.isFinite(v) && v > 0 ? v : def;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runDashboardBench({ rate: arg('rate', 1000), seconds: arg('seconds', 3), clients: arg('clients', 10) });
}
