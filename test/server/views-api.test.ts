/**
 * The JSON routes of issue 17, finding 7 over a real SQLite file and a real HTTP server: the week
 * view, cost per model (HMC's estimate and the provider's own usage), tool outputs per tool, kind
 * and program, the work rate, all under a date range; bad values answered 400 naming them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type AnalyticsStore } from '../../src/store/index.js';
import { costSaved, priceModels, priceProvider } from '../../src/store/pricing.js';
import { FIVE } from '../store/fixtures/five.js';
import { PRICING, rig, type Rig } from './setup.js';
import { rawRequest } from './helpers.js';

const MARCH = { since: Date.UTC(2026, 2, 1), until: Date.UTC(2026, 2, 31) + 86_400_000 };

describe('the views API', () => {
  let r: Rig;
  let store: AnalyticsStore;
  const dir = mkdtempSync(join(tmpdir(), 'hmc-views-'));
  const get = async (path: string): Promise<{ status: number; body: string }> => rawRequest(r.dash.port, path);
  const json = async (path: string): Promise<unknown> => {
    const res = await get(path);
    expect(res.status, res.body).toBe(200);
    return JSON.parse(res.body);
  };

  beforeAll(async () => {
    const dbPath = join(dir, 'analytics.db');
    store = openStore(dbPath);
    store.recordSessions(FIVE);
    store.recordUsage([
      {
        session_id: 's1',
        seq: 1,
        at: Date.UTC(2026, 2, 15, 10),
        model: 'claude-sonnet-4',
        provider: 'anthropic',
        prompt_tokens: 1000,
        completion_tokens: 40,
        cache_read_tokens: 600,
        cache_write_tokens: 300,
        reasoning_tokens: 0,
        hmc_input: 900,
        raw_input: 1200,
        hmc_cached: 500,
      },
    ]);
    r = await rig({ dbPath });
  });
  afterAll(async () => {
    await r.done();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prices each model and lists the provider usage apart, in the window asked', async () => {
    const all = (await json('/api/models')) as { models: unknown[]; provider: unknown[]; total: { amount: number } };
    const models = priceModels(store.byModel(), PRICING);
    expect(all.models).toEqual(JSON.parse(JSON.stringify(models)));
    expect(all.total.amount).toBeCloseTo(costSaved(models, PRICING).amount, 8);
    expect(all.provider).toEqual(JSON.parse(JSON.stringify(priceProvider(store.providerByModel(), PRICING))));
    expect(all.provider).toHaveLength(1);
    const march = (await json('/api/models?since=2026-03-01&until=2026-03-31')) as {
      models: { model: string; sessions: number }[];
    };
    expect(march.models.map((m) => [m.model, m.sessions])).toEqual(
      store.byModel(MARCH).map((m) => [m.model, m.sessions]),
    );
    expect(march.models.reduce((a, m) => a + m.sessions, 0)).toBe(2);
  });

  it('answers weeks, outputs by program and the work rate under the same window', async () => {
    expect(await json('/api/weeks?since=2026-02-23&until=2026-03-15')).toEqual({
      weeks: store.byWeek({ since: Date.UTC(2026, 1, 23), until: Date.UTC(2026, 2, 16) }),
    });
    expect(await json('/api/outputs?by=program')).toEqual({
      by: 'program',
      outputs: store.byOutput({ by: 'program', limit: 50 }),
    });
    const work = (await json('/api/work?since=2026-03-01')) as {
      recalls: number;
      rereads: number;
      elided: number;
      per_100_elided: number;
    };
    expect(work).toEqual(store.work({ since: MARCH.since }));
    expect(work.per_100_elided).toBe(100);
  });

  it('refuses a bad day, a range backwards and an unknown grouping, naming each', async () => {
    expect(await get('/api/work?since=2026-02-30')).toMatchObject({
      status: 400,
      body: expect.stringContaining('since must be a calendar day'),
    });
    expect(await get('/api/models?since=2026-03-02&until=2026-03-01')).toMatchObject({
      status: 400,
      body: expect.stringContaining('since must not be after until'),
    });
    expect(await get('/api/outputs?by=color')).toMatchObject({
      status: 400,
      body: expect.stringContaining('by must be one of tool, kind, program'),
    });
  });
});
