import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rig, fakeWebRoot, type Rig } from './setup.js';
import { rawRequest } from './helpers.js';

describe('dashboard security checks', () => {
  let r: Rig;
  beforeAll(async () => {
    r = await rig({ webRoot: fakeWebRoot() });
  });
  afterAll(async () => r.done());

  it('binds to 127.0.0.1 and reports its URL', () => {
    expect(r.dash.host).toBe('127.0.0.1');
    expect(r.dash.url).toBe(`http://127.0.0.1:${r.dash.port}/`);
  });

  it('should refuse a foreign Host header (DNS rebinding)', async () => {
    const res = await rawRequest(r.dash.port, '/api/summary', { headers: { host: 'evil.example.com' } });
    expect(res.status).toBe(403);
    expect(res.body).toMatch(/Host/);
    const wrongPort = await rawRequest(r.dash.port, '/api/summary', {
      headers: { host: `127.0.0.1:${r.dash.port + 1}` },
    });
    expect(wrongPort.status).toBe(403);
    const rebound = await rawRequest(r.dash.port, '/events', { headers: { host: `attacker.test:${r.dash.port}` } });
    expect(rebound.status).toBe(403);
  });

  it('accepts localhost and 127.0.0.1 with the right port', async () => {
    expect(
      (await rawRequest(r.dash.port, '/api/health', { headers: { host: `localhost:${r.dash.port}` } })).status,
    ).toBe(200);
    expect((await rawRequest(r.dash.port, '/api/health')).status).toBe(200);
  });

  it('should refuse a foreign Origin, even on GET', async () => {
    const res = await rawRequest(r.dash.port, '/api/analytics', { headers: { origin: 'https://evil.example.com' } });
    expect(res.status).toBe(403);
    const same = await rawRequest(r.dash.port, '/api/analytics', {
      headers: { origin: `http://127.0.0.1:${r.dash.port}` },
    });
    expect(same.status).toBe(200);
    const nullOrigin = await rawRequest(r.dash.port, '/api/analytics', { headers: { origin: 'null' } });
    expect(nullOrigin.status).toBe(403);
  });

  it('should refuse a write without Origin, and answer 405 to a same-origin write', async () => {
    expect((await rawRequest(r.dash.port, '/api/summary', { method: 'POST' })).status).toBe(403);
    const same = await rawRequest(r.dash.port, '/api/summary', {
      method: 'POST',
      headers: { origin: `http://127.0.0.1:${r.dash.port}` },
    });
    expect(same.status).toBe(405);
    expect(same.headers.allow).toBe('GET, HEAD');
  });

  it('sends security headers and no CORS headers', async () => {
    const res = await rawRequest(r.dash.port, '/', { headers: { origin: `http://127.0.0.1:${r.dash.port}` } });
    expect(res.status).toBe(200);
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  it('answers HEAD with headers and no body', async () => {
    const res = await rawRequest(r.dash.port, '/api/health', { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.body).toBe('');
    expect(Number(res.headers['content-length'])).toBeGreaterThan(0);
  });

  it('should not serve files outside web/dist (directory traversal)', async () => {
    for (const p of [
      '/../package.json',
      '/%2e%2e/package.json',
      '/assets/..%2f..%2fpackage.json',
      '/%2e%2e%5cpackage.json',
      '/secret.key',
      '/assets/%00.js',
    ]) {
      const res = await rawRequest(r.dash.port, p);
      expect(res.status, p).toBe(404);
    }
  });

  it('serves the page and hashed assets with content types and caching', async () => {
    const page = await rawRequest(r.dash.port, '/');
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-cache');
    const js = await rawRequest(r.dash.port, '/assets/index-abc123.js');
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toContain('immutable');
  });

  it('answers unknown API paths with a bare 404', async () => {
    const res = await rawRequest(r.dash.port, '/api/nope');
    expect(res.status).toBe(404);
    expect(res.body).toBe('Not Found\n');
  });
});
