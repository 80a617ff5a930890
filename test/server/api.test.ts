import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rig, type Rig } from './setup.js';
import { rawRequest, turnPayload, toolPayload, inspectRecord } from './helpers.js';
import { fakeStore, sampleRecords } from './fake-store.js';

const json = async (port: number, path: string): Promise<unknown> => JSON.parse((await rawRequest(port, path)).body);

describe('dashboard JSON API', () => {
  let r: Rig;
  const records = sampleRecords(12);
  const store = fakeStore(records);
  beforeAll(async () => {
    r = await rig({ store });
  });
  afterAll(async () => r.done());

  it('answers lifetime totals from the store with an estimated cost', async () => {
    const a = await json(r.dash.port, '/api/analytics');
    const s = store.summary();
    expect(a).toMatchObject({
      total_saved: s.total_saved,
      total_sessions: 12,
      savings_pct: s.savings_pct,
      store: 'ok',
    });
    expect(a).toHaveProperty('estimated_cost_saved.estimate', true);
    expect(a).toHaveProperty('estimated_cost_saved.currency', 'USD');
    const gpt = records
      .filter((x) => x.model === 'gpt-4.1')
      .reduce((t, x) => t + x.input_tokens_raw - x.input_tokens_hmc, 0);
    // Sessions recorded without the cache model: saved tokens at the input price (gpt-4.1 from the
    // config's table, claude-sonnet-4 from the built-in one).
    const expected = (gpt / 1e6) * 2 + ((s.total_saved - gpt) / 1e6) * 3;
    expect((a as { estimated_cost_saved: { amount: number } }).estimated_cost_saved.amount).toBeCloseTo(expected, 6);
  });

  it('serves strategies, tools, days, months and projects', async () => {
    expect(await json(r.dash.port, '/api/strategies')).toEqual({ strategies: store.byStrategy() });
    expect(await json(r.dash.port, '/api/tools')).toEqual({ tools: store.byTool({ limit: 20 }) });
    expect(await json(r.dash.port, '/api/days?days=30')).toEqual({ days: store.byDay({ days: 30 }) });
    expect(await json(r.dash.port, '/api/months?months=12')).toEqual({ months: store.byMonth({ months: 12 }) });
    expect(await json(r.dash.port, '/api/projects')).toEqual({ projects: store.byProject({ limit: 50 }) });
  });

  it('pages, sorts and filters sessions on the server', async () => {
    const page = await json(r.dash.port, '/api/sessions?limit=5&offset=0&sort=saved&order=desc&search=website');
    const want = store.sessions({ limit: 5, offset: 0, sort: 'saved', order: 'desc', search: 'website' });
    expect(page).toMatchObject({ total: want.total, limit: 5, offset: 0 });
    expect(page).toHaveProperty('rows.0.session_id', want.rows[0]?.session_id);
    expect(page).toHaveProperty('rows.0.live', false);
  });

  it('should answer 400 naming the parameter for bad query values', async () => {
    for (const [path, name] of [
      ['/api/days?days=abc', 'days'],
      ['/api/days?days=0', 'days'],
      ['/api/months?months=-1', 'months'],
      ['/api/sessions?sort=password', 'sort'],
      ['/api/sessions?order=up', 'order'],
      ['/api/sessions?limit=100000', 'limit'],
      ['/api/sessions?search=%0a', 'search'],
    ] as const) {
      const res = await rawRequest(r.dash.port, path);
      expect(res.status, path).toBe(400);
      expect(res.body, path).toContain(name);
    }
  });

  it('returns a session with its timeline, and 404 for an unknown one', async () => {
    const id = records[3]?.session_id ?? '';
    const d = await json(r.dash.port, `/api/sessions/${encodeURIComponent(id)}`);
    expect(d).toHaveProperty('session.timeline.length', records[3]?.timeline.length);
    expect(d).toHaveProperty('live', null);
    expect((await rawRequest(r.dash.port, '/api/sessions/nope')).status).toBe(404);
  });

  it('shows live sessions from events in /api/summary, the most recently active as current', async () => {
    r.sink.emit(turnPayload('live-a', 1, 500));
    r.sink.emit(turnPayload('live-b', 1, 700));
    r.sink.emit(turnPayload('live-b', 2, 1700));
    r.sink.emit(toolPayload('live-b', 2, 'terminal', { cumulative_saved: 1900 }));
    const s = await json(r.dash.port, '/api/summary');
    expect(s).toHaveProperty('current.session_id', 'live-b');
    expect(s).toHaveProperty('current.saved', 1900);
    expect(s).toHaveProperty('current.turns', 2);
    expect(s).toHaveProperty('current.points.length', 2);
    expect(s).toHaveProperty('sessions.length', 2);
    const ev = await json(r.dash.port, '/api/events?limit=2');
    expect(ev).toHaveProperty('events.1.type', 'tool');
    const since = await json(r.dash.port, '/api/events?since=test-proc:2');
    expect(since).toMatchObject({ found: true });
    expect(since).toHaveProperty('events.length', 2);
  });

  it('finds inspector records in memory and in the inspect files', async () => {
    r.sink.inspect(inspectRecord('live-b', 'call_9'));
    const rec = await json(r.dash.port, `/api/inspect/${encodeURIComponent('live-b:call_9')}`);
    expect(rec).toHaveProperty('tool_name', 'terminal');
    expect(rec).toMatchObject({ before_view: { field: null, cut: false }, after_view: { field: null } });
    r.sink.inspect({
      ...inspectRecord('live-b', 'call_10'),
      before: JSON.stringify({ output: 'a\nb', exit_code: 0 }),
      after: JSON.stringify({ output: 'a', exit_code: 0 }),
    });
    const env = await json(r.dash.port, `/api/inspect/${encodeURIComponent('live-b:call_10')}`);
    expect(env).toMatchObject({
      before_view: { field: 'output', text: 'a\nb', fields: [{ name: 'exit_code', value: '0' }] },
      after_view: { field: 'output', text: 'a' },
    });
    expect((await rawRequest(r.dash.port, '/api/inspect/none')).status).toBe(404);
  });

  it('exposes Prometheus metrics with HELP/TYPE lines and escaped labels', async () => {
    const res = await rawRequest(r.dash.port, '/metrics');
    expect(res.headers['content-type']).toContain('text/plain; version=0.0.4');
    for (const f of [
      'hmc_tokens_saved_total',
      'hmc_input_tokens_total',
      'hmc_model_calls_total',
      'hmc_sessions_total',
      'hmc_sse_clients',
      'hmc_events_total',
    ]) {
      expect(res.body).toContain(`# HELP ${f} `);
      expect(res.body).toContain(`# TYPE ${f} `);
    }
    expect(res.body).toContain('hmc_tokens_saved_total{strategy="truncation"}');
    expect(res.body).toContain('hmc_input_tokens_total{kind="raw"}');
    // The N of "input saved over N model calls" (docs/glossary.md), from the store.
    expect(res.body).toContain(`hmc_model_calls_total ${store.summary().model_calls}\n`);
    expect(res.body).toMatch(/hmc_events_total\{type="turn"\} \d+/);
  });
});

describe('dashboard without a database', () => {
  it('answers zeros, never an error', async () => {
    const r = await rig({ dbPath: '/nonexistent/analytics.db' });
    try {
      expect(await json(r.dash.port, '/api/analytics')).toMatchObject({
        total_saved: 0,
        total_sessions: 0,
        store: 'missing',
      });
      expect(await json(r.dash.port, '/api/sessions')).toMatchObject({ rows: [], total: 0 });
      expect((await rawRequest(r.dash.port, '/metrics')).status).toBe(200);
      expect(await json(r.dash.port, '/api/summary')).toMatchObject({ current: null });
    } finally {
      await r.done();
    }
  });
});

describe('opening the store', () => {
  it('should let concurrent first requests share one open (regression: the second got zeros)', async () => {
    const { writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const db = join(tmpdir(), `hmc-fake-${process.pid}.db`);
    writeFileSync(db, '');
    let opens = 0;
    const store = fakeStore(sampleRecords(3));
    const r = await rig({
      dbPath: db,
      extra: {
        openStore: async () => {
          opens++;
          await new Promise((res) => setTimeout(res, 20));
          return store;
        },
      },
    });
    try {
      const [a, b] = await Promise.all([json(r.dash.port, '/api/analytics'), json(r.dash.port, '/api/months')]);
      expect(a).toMatchObject({ total_sessions: 3 });
      expect(b).toEqual({ months: store.byMonth({ months: 12 }) });
      expect(opens).toBe(1);
    } finally {
      await r.done();
    }
  });
});
