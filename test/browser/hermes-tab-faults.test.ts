/**
 * HMC's tab never freezes Hermes' dashboard (issue 26, finding 1), in a real Hermes 0.19: with
 * HMC's dashboard stopped (SIGSTOP), or a process on the recorded port that drips its answer one
 * byte every 2 s, or one that answers a huge body, Hermes' own /api/status answers in under 1 s
 * while the tab's requests are pending, and those fail within the plugin's whole-request deadline
 * with a message that names the fault. Before, plugin_api.py read HMC's answers with urllib on
 * Hermes' one event loop (5 s per read, no cap): /api/status took 20.1 s here with HMC's dashboard
 * stopped (24.6 s in issue 26), and the dripping server froze Hermes for its whole 40 s. Also the
 * Start button's refusals (issue 27, finding 4): a Node too old, a plugin folder without the build.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READY, REPO, startHermes, startHmc, stop, type HermesHost } from './hermes-host.js';

/** The tab's requests for one view, as dashboard/src/index.ts makes them. */
const TAB = ['/api/analytics', '/api/models', '/api/outputs?by=tool&limit=10', '/api/work'];
/** plugin_api.py's whole-request deadlines and cap (kept in step with it). */
const HEALTH_S = 1.5;
const FORWARD_S = 5;
const CAP = 4 * 1024 * 1024;

interface Timed {
  ms: number;
  status: number;
  error: string;
}

async function timed(p: Promise<Response>): Promise<Timed> {
  const t0 = performance.now();
  const res = await p;
  const body: unknown = await res.json().catch(() => ({}));
  const error = typeof body === 'object' && body !== null && 'error' in body ? String(body.error) : '';
  return { ms: performance.now() - t0, status: res.status, error };
}

/** The tab's four requests at once, and Hermes' own /api/status while they are pending. */
async function underLoad(host: HermesHost): Promise<{ tab: Timed[]; status: Timed }> {
  // Once before, so the figure is the wait behind the tab's requests, not Hermes' first answer.
  await fetch(`${host.url}/api/status`);
  const tab = Promise.all(TAB.map((p) => timed(host.call(p))));
  await new Promise((r) => setTimeout(r, 200));
  const status = await timed(fetch(`${host.url}/api/status`));
  return { tab: await tab, status };
}

/**
 * A stand-in for HMC's dashboard on the recorded port: /api/health answers the record's pid at
 * once (or drips, with `dripHealth`); /api/models answers `huge` bytes at once; every other route
 * sends its headers and then one byte every 2 s, for at most 40 s.
 */
function fakeDashboard(
  pid: number,
  opts: { dripHealth?: boolean; huge?: number },
): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((sock) => {
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
    sock.on('error', () => undefined);
    sock.once('data', (b) => {
      const path = /^GET (\S+)/.exec(b.toString())?.[1] ?? '';
      const health = JSON.stringify({ ok: true, pid });
      if (path === '/api/health' && !opts.dripHealth) {
        sock.end(
          `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${health.length}\r\nConnection: close\r\n\r\n${health}`,
        );
        return;
      }
      if (path.startsWith('/api/models') && opts.huge) {
        sock.write(
          `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${opts.huge}\r\nConnection: close\r\n\r\n`,
        );
        sock.end(Buffer.alloc(opts.huge, 0x20));
        return;
      }
      const body = path === '/api/health' ? health : JSON.stringify({ total_saved: 1, padding: 'x'.repeat(40) });
      sock.write(
        `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
      );
      let i = 0;
      const t = setInterval(() => {
        if (i >= body.length || i >= 20 || sock.destroyed) {
          clearInterval(t);
          timers.delete(t);
          sock.destroy();
          return;
        }
        sock.write(body[i++] ?? ' ');
      }, 2000);
      timers.add(t);
    });
  });
  return new Promise((ok) =>
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address();
      ok({
        server,
        port: typeof addr === 'object' && addr ? addr.port : 0,
        close: () =>
          new Promise((done) => {
            for (const t of timers) clearInterval(t);
            for (const s of sockets) s.destroy();
            server.close(() => done());
          }),
      });
    }),
  );
}

describe.skipIf(!READY)("HMC's tab never freezes Hermes' dashboard (real Hermes 0.19)", () => {
  let host: HermesHost;

  beforeAll(async () => {
    host = await startHermes();
  }, 120_000);
  afterAll(async () => {
    await host?.done();
  });

  it("regression (issue 26, finding 1): HMC's dashboard stopped (SIGSTOP): Hermes answers in < 1 s, the tab's requests fail fast", async () => {
    const hmc = await startHmc(host);
    try {
      expect((await host.call('/api/analytics')).status).toBe(200);
      process.kill(hmc.child.pid ?? 0, 'SIGSTOP');
      const { tab, status } = await underLoad(host);
      console.info(
        `SIGSTOP: /api/status ${status.ms.toFixed(0)} ms; tab requests ${tab.map((t) => `${t.status} in ${t.ms.toFixed(0)} ms`).join(', ')}`,
      );
      expect(status.status).toBe(200);
      expect(status.ms).toBeLessThan(1000);
      for (const t of tab) {
        expect(t.status).toBe(503);
        expect(t.error).toMatch(/did not answer \/api\/health within 1\.5 s/);
        expect(t.ms).toBeLessThan((HEALTH_S + 1) * 1000);
      }
      // The tab's own first request says so too.
      const s = await timed(host.call('/status'));
      expect(s.ms).toBeLessThan((HEALTH_S + 1) * 1000);
    } finally {
      process.kill(hmc.child.pid ?? 0, 'SIGCONT');
      await stop(hmc.child);
    }
  }, 60_000);

  it('regression (issue 26, finding 1): a server on the recorded port that drips its answer: a whole-request deadline, Hermes answers in < 1 s', async () => {
    for (const dripHealth of [false, true]) {
      const fake = await fakeDashboard(process.pid, { dripHealth });
      writeFileSync(
        join(host.state, 'dashboard.json'),
        JSON.stringify({
          pid: process.pid,
          port: fake.port,
          url: `http://127.0.0.1:${fake.port}/`,
          started_at: Date.now(),
          version: 'fake',
        }),
      );
      try {
        const { tab, status } = await underLoad(host);
        console.info(
          `drip (${dripHealth ? '/api/health' : 'the route'}): /api/status ${status.ms.toFixed(0)} ms; tab requests ${tab.map((t) => `${t.status} in ${t.ms.toFixed(0)} ms`).join(', ')}`,
        );
        expect(status.status).toBe(200);
        expect(status.ms).toBeLessThan(1000);
        const limit = (dripHealth ? HEALTH_S : HEALTH_S + FORWARD_S) + 1;
        for (const t of tab) {
          expect(t.status).toBe(dripHealth ? 503 : 504);
          expect(t.error).toMatch(
            dripHealth ? /did not answer \/api\/health within 1\.5 s/ : /did not answer within 5 s/,
          );
          expect(t.ms).toBeLessThan(limit * 1000);
        }
      } finally {
        await fake.close();
        rmSync(join(host.state, 'dashboard.json'), { force: true });
      }
    }
  }, 90_000);

  it('regression (issue 26, finding 1): an answer over the cap is refused whole, with its size named', async () => {
    const fake = await fakeDashboard(process.pid, { huge: CAP + 1 });
    writeFileSync(
      join(host.state, 'dashboard.json'),
      JSON.stringify({
        pid: process.pid,
        port: fake.port,
        url: `http://127.0.0.1:${fake.port}/`,
        started_at: Date.now(),
        version: 'fake',
      }),
    );
    try {
      const t = await timed(host.call('/api/models'));
      expect(t.status).toBe(502);
      expect(t.error).toMatch(/larger than 4 MiB/);
      const ok = await fakeDashboard(process.pid, { huge: CAP });
      writeFileSync(
        join(host.state, 'dashboard.json'),
        JSON.stringify({
          pid: process.pid,
          port: ok.port,
          url: `http://127.0.0.1:${ok.port}/`,
          started_at: Date.now(),
          version: 'fake',
        }),
      );
      const res = await host.call('/api/models');
      expect(res.status).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBe(CAP);
      await ok.close();
    } finally {
      await fake.close();
      rmSync(join(host.state, 'dashboard.json'), { force: true });
    }
  }, 60_000);
});

describe.skipIf(!READY)("the tab's Start button without Node or without HMC's build (real Hermes 0.19)", () => {
  const refused = async (host: HermesHost): Promise<{ status: number; error: string; record: boolean }> => {
    const t = await timed(host.call('/start', { method: 'POST' }));
    return { status: t.status, error: t.error, record: existsSync(join(host.state, 'dashboard.json')) };
  };

  it("regression (issue 27, finding 4): a Node too old first on the PATH of Hermes' dashboard: a clear 503, nothing started", async () => {
    // Hermes appends /usr/bin to its PATH (hermes_cli/gateway.py), so Node cannot be hidden from it
    // here; an old one found first takes the same path as a missing one: refused, with its reason.
    const bin = mkdtempSync(join(tmpdir(), 'hmc-old-node-'));
    writeFileSync(join(bin, 'node'), '#!/bin/sh\necho v18.20.4\n', { mode: 0o755 });
    const host = await startHermes({ env: { PATH: `${bin}:${process.env.PATH ?? ''}` } });
    try {
      expect(await refused(host)).toEqual({
        status: 503,
        record: false,
        error: `cannot start HMC's dashboard: Node v18.20.4 at ${bin}/node is too old (HMC needs >= 20.19)`,
      });
    } finally {
      await host.done();
      rmSync(bin, { recursive: true, force: true });
    }
  }, 90_000);

  it("regression (issue 27, finding 4): a plugin folder without HMC's build: a clear 503 naming the folder, nothing started", async () => {
    let plugin = '';
    const host = await startHermes({
      plugin: (dir) => {
        // The tab's own files only: no dist/ of HMC's CLI.
        plugin = join(dir, 'plugin');
        mkdirSync(join(plugin, 'bin'), { recursive: true });
        cpSync(join(REPO, 'dashboard'), join(plugin, 'dashboard'), {
          recursive: true,
          filter: (src) => !src.includes('/src') && !src.includes('node_modules'),
        });
        cpSync(join(REPO, 'bin', 'hmc.js'), join(plugin, 'bin', 'hmc.js'));
        return plugin;
      },
    });
    try {
      const r = await refused(host);
      expect(r.status).toBe(503);
      expect(r.record).toBe(false);
      expect(r.error).toBe(
        `cannot start HMC's dashboard: HMC is not built (no dist/cli/main.js in ${plugin}); run npm run build there`,
      );
    } finally {
      await host.done();
    }
  }, 90_000);
});
