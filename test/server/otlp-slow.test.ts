/**
 * A slow collector (issue 26, findings 2 and 3): one that answers 200 and drips its body without
 * end, or never answers. The push holds at most one export and one socket whatever the collector
 * does, logs a 200 that never finishes, stops at once, and `hmc dashboard` exits within 5 s of
 * SIGTERM while an export is stuck; no log line carries the endpoint's password, a query token or
 * a header from OTEL_EXPORTER_OTLP_HEADERS.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { startOtlpExport, type OtlpFigures } from '../../src/server/otlp.js';

const RUNNER = join(import.meta.dirname, 'run-cli.ts');

type Mode = 'drip' | 'silent' | 503 | 'ok';

/** A collector on 127.0.0.1: `drip` answers 200 and one byte a second forever, `silent` never answers. */
async function slowCollector(
  mode: () => Mode,
): Promise<{ port: number; sockets: Set<Socket>; posts: number; close(): void }> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const state = { posts: 0 };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.posts++;
      const m = mode();
      if (m === 'silent') return;
      if (m === 503) return void res.writeHead(503).end('busy');
      if (m === 'ok') return void res.writeHead(200).end('{}');
      res.writeHead(200, { 'Content-Length': '100000000' });
      res.write(' ');
      const t = setInterval(() => res.write(' '), 1000);
      timers.add(t);
      res.on('close', () => clearInterval(t));
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const port = await new Promise<number>((ok) =>
    server.listen(0, '127.0.0.1', () => {
      const a = server.address();
      ok(typeof a === 'object' && a ? a.port : 0);
    }),
  );
  return {
    port,
    sockets,
    get posts() {
      return state.posts;
    },
    close() {
      for (const t of timers) clearInterval(t);
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

const store = openStore(':memory:');
const FIGURES: OtlpFigures = {
  summary: store.summary(),
  models: [],
  work: store.work(),
  measured: { currency: 'USD', tokens: [], cost: [], unpriced: [] },
};
store.close();

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('OTLP push against a slow collector', () => {
  const cleanup: (() => void)[] = [];
  afterEach(() => {
    for (const f of cleanup.splice(0)) f();
  });

  for (const mode of ['drip', 'silent'] as const) {
    it(`${mode}: at most one export in flight and one socket, over 20 intervals`, async () => {
      const c = await slowCollector(() => mode);
      cleanup.push(() => c.close());
      const logs: string[] = [];
      const exporter = startOtlpExport({
        endpoint: `http://127.0.0.1:${c.port}`,
        intervalMs: 100,
        deadlineMs: 250,
        version: 't',
        log: (l) => void logs.push(l),
        read: async () => FIGURES,
      });
      if (!exporter) throw new Error('no exporter');
      cleanup.push(() => exporter.stop());
      let maxSockets = 0;
      let maxInFlight = 0;
      for (let t = 0; t < 2000; t += 20) {
        await sleep(20);
        maxSockets = Math.max(maxSockets, c.sockets.size);
        maxInFlight = Math.max(maxInFlight, exporter.inFlight());
      }
      expect(maxInFlight).toBe(1);
      expect(maxSockets).toBe(1);
      // Every export ended by its deadline, so new ones kept going out (not one stuck forever).
      expect(c.posts).toBeGreaterThanOrEqual(4);
      expect(logs).toEqual([
        expect.stringContaining(
          mode === 'drip'
            ? 'failed: the collector answered 200 but did not finish its answer in 0.1 s'
            : 'failed: no answer in 0.1 s',
        ),
      ]);
      exporter.stop();
      await sleep(100);
      expect(exporter.inFlight()).toBe(0);
      expect(c.sockets.size).toBe(0);
    });
  }

  it('recovers at the next export once the dripping collector answers again, and says so once', async () => {
    let mode: Mode = 'drip';
    const c = await slowCollector(() => mode);
    cleanup.push(() => c.close());
    const logs: string[] = [];
    const exporter = startOtlpExport({
      endpoint: `http://127.0.0.1:${c.port}`,
      intervalMs: 100,
      deadlineMs: 100,
      version: 't',
      log: (l) => void logs.push(l),
      read: async () => FIGURES,
    });
    cleanup.push(() => exporter?.stop());
    await expect.poll(() => logs.length).toBe(1);
    const fixed = Date.now();
    mode = 'ok';
    await expect.poll(() => logs.length, { timeout: 5000 }).toBe(2);
    const took = Date.now() - fixed;
    expect(logs).toEqual([
      expect.stringContaining('did not finish its answer'),
      expect.stringContaining('works again'),
    ]);
    // At most the rest of the export in flight (its deadline) and one interval.
    expect(took).toBeLessThan(1000);
    await sleep(300);
    expect(logs).toHaveLength(2);
    expect(c.sockets.size).toBeLessThanOrEqual(1);
  });

  it('writes no credential in any log line: user:pass@, a query token, a header value', async () => {
    let mode: Mode = 503;
    const c = await slowCollector(() => mode);
    cleanup.push(() => c.close());
    const secrets = ['s3cr3t-pass', 'tok-abc-123', 'hdr-key-987', 'ada.lovelace'];
    const firstLine = async (endpoint: string): Promise<string[]> => {
      const logs: string[] = [];
      const exporter = startOtlpExport({
        endpoint,
        intervalMs: 3_600_000,
        deadlineMs: 200,
        version: 't',
        headers: { authorization: 'Bearer hdr-key-987' },
        log: (l) => void logs.push(l),
        read: async () => FIGURES,
      });
      await exporter?.exportNow();
      exporter?.stop();
      return logs;
    };
    const endpoint = `http://ada.lovelace:s3cr3t-pass@127.0.0.1:${c.port}/otlp?token=tok-abc-123`;
    const lines = [await firstLine(endpoint)];
    mode = 'drip';
    lines.push(await firstLine(endpoint));
    c.close();
    lines.push(await firstLine(endpoint));
    lines.push(await firstLine('ftp://ada.lovelace:s3cr3t-pass@c/?token=tok-abc-123'));
    lines.push(await firstLine('http://ada.lovelace:s3cr3t-pass@[bad/?token=tok-abc-123'));
    const shown = `OTLP export to http://***@127.0.0.1:${c.port}/otlp/v1/metrics?token=*** failed:`;
    expect(lines).toEqual([
      [expect.stringContaining(`${shown} the collector answered 503`)],
      [expect.stringContaining(`${shown} the collector answered 200 but did not finish`)],
      [expect.stringContaining(`${shown} connect ECONNREFUSED`)],
      [expect.stringContaining('"ftp://***@c/?***" is not an http(s) URL')],
      [expect.stringContaining('"http://***@[bad/?***" is not an http(s) URL')],
    ]);
    for (const line of lines.flat()) for (const s of secrets) expect(line).not.toContain(s);
  });

  it('hmc dashboard exits within 5 s of SIGTERM while an export is stuck on a dripping collector', async () => {
    const c = await slowCollector(() => 'drip');
    cleanup.push(() => c.close());
    const dir = mkdtempSync(join(tmpdir(), 'hmc-otlp-term-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const config = join(dir, 'config.yaml');
    writeFileSync(config, `dashboard:\n  otlp:\n    endpoint: http://127.0.0.1:${c.port}\n    interval_seconds: 5\n`);
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', RUNNER, 'dashboard', '--port', '0', '--state-dir', dir, '--config', config],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    cleanup.push(() => void (child.exitCode === null && child.kill('SIGKILL')));
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (t: string) => void (err += t));
    // The first export is out and its answer dripping.
    await expect.poll(() => c.posts, { timeout: 20_000 }).toBe(1);
    await sleep(1500);
    expect(c.sockets.size).toBe(1);
    const sent = Date.now();
    const code = await new Promise<number | null>((resolve) => {
      child.once('exit', (x) => resolve(x));
      child.kill('SIGTERM');
    });
    const took = Date.now() - sent;
    expect(code, err).toBe(0);
    expect(took).toBeLessThan(5000);
  }, 40_000);
});
