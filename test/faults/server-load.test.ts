/**
 * Fault suite, the dashboard under load (docs/faults.md): far more live pages than allowed and a
 * flood of concurrent API requests. The server stays bounded (pages over `max_clients` get 503,
 * a client that does not read is dropped), answers every request, and is back to idle (no page
 * left, health answered at once) as soon as the load goes away.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { rawRequest } from '../server/helpers.js';
import { rig, type Rig } from '../server/setup.js';
import { turnPayload } from '../server/helpers.js';
import { recordFigure, until } from './figures.js';

let r: Rig | null = null;
afterEach(async () => {
  await r?.done();
  r = null;
});

/** Opens an SSE stream; resolves with its status and a closer (the body is left unread). */
function openStream(port: number): Promise<{ status: number; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/events', headers: { host: `127.0.0.1:${port}`, accept: 'text/event-stream' } },
      (res) => {
        resolve({ status: res.statusCode ?? 0, close: () => req.destroy() });
        if (res.statusCode !== 200) res.resume();
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('fault suite: the dashboard under load', () => {
  it('200 pages at once against max_clients 16, and 1,000 concurrent API requests: bounded, all answered, idle again at once', async () => {
    r = await rig({ extra: { maxClients: 16 } });
    const port = r.dash.port;
    const streams = await Promise.all(Array.from({ length: 200 }, () => openStream(port)));
    expect(streams.filter((s) => s.status === 200)).toHaveLength(16);
    expect(streams.filter((s) => s.status === 503)).toHaveLength(184);
    expect(r.dash.subscribers()).toBe(16);
    // Events keep flowing to the open pages while the API is flooded.
    for (let i = 1; i <= 200; i++) r.sink.emit(turnPayload('load', i, i));
    const paths = ['/api/health', '/api/summary', '/api/analytics', '/api/events?limit=50', '/api/sessions?limit=10'];
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => rawRequest(port, paths[i % paths.length] as string)),
    );
    const floodMs = performance.now() - started;
    expect(answers.every((a) => a.status === 200)).toBe(true);
    for (const s of streams) s.close();
    const closed = performance.now();
    await until(() => r?.dash.subscribers() === 0);
    const health = await rawRequest(port, '/api/health');
    const recoveredMs = performance.now() - closed;
    expect(health.status).toBe(200);
    recordFigure({
      area: 'server',
      fault: `200 pages against max_clients 16 + 1,000 concurrent API requests (served in ${floodMs.toFixed(0)} ms)`,
      lost: 'nothing (184 pages refused with 503 "close one and reload")',
      recoveredMs,
    });
  });
});
