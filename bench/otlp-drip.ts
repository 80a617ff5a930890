/**
 * OTLP push against a slow collector (issue 26, finding 2): a collector on 127.0.0.1 that answers
 * 200 and then drips its body one byte a second and never finishes (`drip`), or reads the request
 * and never answers at all (`silent`). The real exporter (src/server/otlp.ts) pushes to it every
 * `--interval-ms`; every `--sample-s` seconds the bench prints the sockets open at the collector
 * and the exports the exporter has in flight. It stops by itself after `--seconds`.
 *
 * Run: `npx tsx bench/otlp-drip.ts [--mode drip|silent] [--interval-ms 5000] [--seconds 60] [--sample-s 10]`.
 * The figures in docs/faults.md (OTLP row) come from `--seconds 600`.
 */
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { startOtlpExport, type OtlpFigures } from '../src/server/otlp.js';
import { openStore } from '../src/store/index.js';

function arg(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}

const mode = arg('mode', 'drip');
const intervalMs = Number(arg('interval-ms', '5000'));
const seconds = Number(arg('seconds', '60'));
const sampleS = Number(arg('sample-s', '10'));

/** The figures of an empty store: what is pushed does not matter here, how it is pushed does. */
const store = openStore(':memory:');
const FIGURES: OtlpFigures = {
  summary: store.summary(),
  models: [],
  work: store.work(),
  measured: { currency: 'USD', tokens: [], cost: [], unpriced: [] },
};
store.close();

/** The slow collector; `sockets` are the connections it holds open now. */
function slowCollector(): Promise<{ server: Server; port: number; sockets: Set<Socket>; timers: Set<NodeJS.Timeout> }> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (mode === 'silent') return;
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '100000000' });
      const t = setInterval(() => res.write(' '), 1000);
      timers.add(t);
      res.on('close', () => {
        clearInterval(t);
        timers.delete(t);
      });
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return new Promise((ok) =>
    server.listen(0, '127.0.0.1', () => {
      const a = server.address();
      ok({ server, port: typeof a === 'object' && a ? a.port : 0, sockets, timers });
    }),
  );
}

const c = await slowCollector();
const logs: string[] = [];
const exporter = startOtlpExport({
  endpoint: `http://user:secret@127.0.0.1:${c.port}`,
  intervalMs,
  version: 'bench',
  log: (l) => void logs.push(l),
  read: async () => FIGURES,
});
const started = Date.now();
process.stdout.write(`mode ${mode}, interval ${intervalMs} ms, ${seconds} s\n t(s)  sockets  in_flight\n`);
const inFlight = (): string => String(exporter?.inFlight() ?? 'n/a');
const sample = setInterval(() => {
  process.stdout.write(
    `${String(Math.round((Date.now() - started) / 1000)).padStart(5)}  ${String(c.sockets.size).padStart(7)}  ${inFlight().padStart(9)}\n`,
  );
}, sampleS * 1000);
await new Promise((r) => setTimeout(r, seconds * 1000 + 100));
clearInterval(sample);
const stopAt = Date.now();
exporter?.stop();
process.stdout.write(`stop() returned in ${Date.now() - stopAt} ms; sockets open 200 ms later: `);
await new Promise((r) => setTimeout(r, 200));
process.stdout.write(`${c.sockets.size}\nlog lines: ${logs.length}\n${logs.map((l) => `  ${l}`).join('\n')}\n`);
for (const t of c.timers) clearInterval(t);
for (const s of c.sockets) s.destroy();
c.server.close();
