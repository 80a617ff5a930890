/**
 * Issue 11, item 6: `/api/analytics?period=x` answered 200 (the parameter was ignored) while
 * `hmc analytics --period x` rejected it. Every API route now names a parameter it does not take.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { rawRequest } from './helpers.js';
import { rig, type Rig } from './setup.js';

let r: Rig | null = null;
afterEach(async () => {
  await r?.done();
  r = null;
});

describe('query parameters', () => {
  it('a parameter a route does not take is a 400 naming it (regression: /api/analytics?period=x was 200)', async () => {
    r = await rig();
    const res = await rawRequest(r.dash.port, '/api/analytics?period=x');
    expect(res.status).toBe(400);
    expect(res.body).toContain('unknown parameter "period" (this endpoint takes project, since, until)');
    expect((await rawRequest(r.dash.port, '/api/health?verbose=1')).body).toContain('this endpoint takes none');
    expect((await rawRequest(r.dash.port, `/api/days?days=7&${'x'.repeat(5000)}=1`)).body.length).toBeLessThan(200);
  });

  it('the parameters a route takes still work, and the page ignores its query', async () => {
    r = await rig();
    expect((await rawRequest(r.dash.port, '/api/analytics?project=/x')).status).toBe(200);
    expect(
      (await rawRequest(r.dash.port, '/api/sessions?limit=5&offset=0&sort=saved&order=desc&search=a&project=/x'))
        .status,
    ).toBe(200);
    expect((await rawRequest(r.dash.port, '/api/days?days=7')).status).toBe(200);
    expect((await rawRequest(r.dash.port, '/api/analytics?period=day')).status).toBe(400);
  });
});
