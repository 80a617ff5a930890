/**
 * GET /api (issue 27, finding 6): the page's footer says "JSON at /api", and /api answered 404.
 * It now lists every route, its methods and query parameters and what it answers, from the table
 * that dispatches them; the same Host/Origin checks as every route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rig, type Rig } from './setup.js';
import { rawRequest } from './helpers.js';

type Index = { routes: { path: string; methods: string[]; query: string[]; answers: string }[] };

describe('GET /api', () => {
  let r: Rig;
  beforeAll(async () => {
    r = await rig();
  });
  afterAll(async () => r.done());

  it('lists every route with its methods, query parameters and what it answers', async () => {
    const res = await rawRequest(r.dash.port, '/api');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('application/json');
    const index = JSON.parse(res.body) as Index;
    const paths = index.routes.map((x) => x.path);
    for (const p of [
      '/api',
      '/api/summary',
      '/api/analytics',
      '/api/sessions/:id',
      '/api/sessions/:id/usage',
      '/api/inspect/:id',
      '/events',
      '/metrics',
      '/',
    ])
      expect(paths).toContain(p);
    for (const x of index.routes) {
      expect(x.methods).toEqual(['GET', 'HEAD']);
      expect(x.answers.length, x.path).toBeGreaterThan(10);
    }
    expect(index.routes.find((x) => x.path === '/api/analytics')?.query).toEqual(['project', 'since', 'until']);
    // Every fixed path it lists is served (none is a 404); /events is a stream, left open.
    for (const p of paths.filter((x) => !x.includes(':') && x !== '/events')) {
      expect((await rawRequest(r.dash.port, p, { method: 'HEAD' })).status, p).not.toBe(404);
    }
  });

  it('checks Host and Origin as every route does, and takes no query parameter', async () => {
    expect((await rawRequest(r.dash.port, '/api', { headers: { host: 'evil.example:80' } })).status).toBe(403);
    expect((await rawRequest(r.dash.port, '/api', { headers: { origin: 'http://evil.example' } })).status).toBe(403);
    expect(
      (await rawRequest(r.dash.port, '/api', { headers: { origin: `http://127.0.0.1:${r.dash.port}` } })).status,
    ).toBe(200);
    expect(
      (
        await rawRequest(r.dash.port, '/api', {
          method: 'POST',
          headers: { origin: `http://127.0.0.1:${r.dash.port}` },
        })
      ).status,
    ).toBe(405);
    expect((await rawRequest(r.dash.port, '/api?x=1')).status).toBe(400);
  });
});
