/**
 * The views of issue 17, finding 7 over a real SQLite file: a date range (since / until) on every
 * total, a week view, cost per model with the cache model's reads and writes, tool outputs per
 * tool, kind and shell program, and recalls and re-reads.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/keys.js';
import { analyticsAction, openStore, type AnalyticsStore } from '../../src/store/index.js';
import { priceModels, priceProvider } from '../../src/store/pricing.js';
import { FIVE, NOW } from './helpers.js';

const DAY = 86_400_000;
let store: AnalyticsStore;

beforeEach(() => {
  store = openStore(':memory:', { now: () => NOW });
  store.recordSessions(FIVE);
});
afterEach(() => store.close());

describe('a date range', () => {
  const since = Date.UTC(2026, 2, 14);
  const until = Date.UTC(2026, 2, 16);

  it('narrows the totals, strategies and tools to the sessions started in it', () => {
    expect(store.summary({ since, until })).toMatchObject({
      total_sessions: 2,
      total_saved: 900,
      total_input: 3000,
      model_calls: 5,
    });
    expect(store.byStrategy({ since, until })).toEqual([
      { strategy: 'dedup', saved: 500 },
      { strategy: 'code_filter', saved: 300 },
      { strategy: 'truncation', saved: 100 },
    ]);
    expect(store.byTool({ since, until })).toEqual([
      { tool: 'read_file', saved: 650 },
      { tool: 'terminal', saved: 250 },
    ]);
    expect(store.sessions({ limit: 10, since, until }).rows.map((r) => r.session_id)).toEqual(['s1', 's2']);
    // `until` is exclusive: the 14th alone.
    expect(store.summary({ since, until: since + DAY }).total_sessions).toBe(1);
  });

  it('lists every day and month of the range, empty ones too, newest first', () => {
    expect(store.byDay({ since: Date.UTC(2026, 2, 13), until }).map((d) => [d.day, d.sessions])).toEqual([
      ['2026-03-15', 1],
      ['2026-03-14', 1],
      ['2026-03-13', 0],
    ]);
    expect(store.byMonth({ since: Date.UTC(2026, 0, 1), until }).map((m) => [m.month, m.sessions])).toEqual([
      ['2026-03', 2],
      ['2026-02', 1],
      ['2026-01', 1],
    ]);
  });

  it('is taken by the analytics action as UTC days, both included, and a bad one is named', () => {
    expect(analyticsAction(store, { since: '2026-03-14', until: '2026-03-15' }, { project: '' })).toMatchObject({
      since: '2026-03-14',
      until: '2026-03-15',
      total_sessions: 2,
    });
    expect(analyticsAction(store, { since: '2026-02-30' }, { project: '' })).toEqual({
      error: 'since must be a calendar day as YYYY-MM-DD, got "2026-02-30"',
    });
    expect(analyticsAction(store, { since: '2026-03-15', until: '2026-03-14' }, { project: '' })).toEqual({
      error: 'since must not be after until',
    });
  });
});

describe('the week view', () => {
  it('groups sessions by week, Monday to Sunday UTC, newest first', () => {
    expect(store.byWeek({ weeks: 3, now: NOW })).toEqual([
      { week: '2026-03-09', saved: 900, input: 3000, sessions: 2 },
      { week: '2026-03-02', saved: 0, input: 0, sessions: 0 },
      { week: '2026-02-23', saved: 0, input: 500, sessions: 1 },
    ]);
    expect(analyticsAction(store, { period: 'week', limit: 3 }, { project: '', now: NOW })).toMatchObject({
      weeks: 3,
      rows: [{ week: '2026-03-09' }, { week: '2026-02-23' }],
    });
  });
});

describe('cost per model', () => {
  it("prices each model's input with the cache model's reads and writes, older sessions as plain input", () => {
    const rows = store.byModel();
    expect(rows.map((r) => r.model)).toEqual(['gpt-a', 'claude']);
    const [gpt, claude] = priceModels(rows, defaultConfig().pricing);
    // gpt-a: s1 has the cache model (sent 600, 250 read; input 1000, 500 read); s3, s4 and s5 predate it.
    expect(gpt).toMatchObject({
      input: 2600,
      sent: 1110,
      cached_input: 500,
      cached_sent: 250,
      plain_input: 1600,
      plain_sent: 510,
    });
    expect(gpt?.price.source).toBe('default');
    const spent = (350 * 3.75 + 250 * 0.3 + 510 * 3) / 1e6;
    const without = (500 * 3.75 + 500 * 0.3 + 1600 * 3) / 1e6;
    expect(gpt?.cost.spent).toBeCloseTo(spent, 7);
    expect(gpt?.cost.without_hmc).toBeCloseTo(without, 7);
    expect(gpt?.cost.saved).toBeCloseTo(without - spent, 7);
    // claude: counted after the cache model, nothing read from the cache: every token written.
    expect(claude?.cost.saved).toBeCloseTo(((2000 - 1500) * 3.75) / 1e6, 7);
  });

  it('answers period=model with the price table of the config, and the total saved', () => {
    const pricing = { ...defaultConfig().pricing, models: { claude: { input: 1 } } };
    const answer = analyticsAction(store, { period: 'model' }, { project: '', pricing }) as {
      rows: { model: string; price: { input: number; cache_write: number } }[];
      cost_saved: { amount: number };
    };
    expect(answer.rows.find((r) => r.model === 'claude')?.price).toMatchObject({ input: 1, cache_write: 1.25 });
    expect(answer.cost_saved.amount).toBeGreaterThan(0);
  });
});

describe("the provider's usage per model", () => {
  const call = (session_id: string, seq: number, model: string, prompt: number, read: number, write: number) => ({
    session_id,
    seq,
    at: NOW,
    model,
    provider: 'p',
    prompt_tokens: prompt,
    completion_tokens: 10,
    cache_read_tokens: read,
    cache_write_tokens: write,
    reasoning_tokens: 0,
    hmc_input: null,
    raw_input: null,
    hmc_cached: null,
  });

  it("sums the calls per model over the window's sessions and prices reads, writes and the rest apart", () => {
    expect(store.providerByModel()).toEqual([]);
    store.recordUsage([
      call('s1', 1, 'claude-sonnet-4', 1000, 600, 300),
      call('s1', 2, 'claude-sonnet-4', 1200, 900, 200),
      call('s3', 1, 'gpt-a', 500, 0, 0),
    ]);
    const rows = store.providerByModel();
    expect(rows).toEqual([
      {
        model: 'claude-sonnet-4',
        calls: 2,
        prompt_tokens: 2200,
        cache_read_tokens: 1500,
        cache_write_tokens: 500,
        completion_tokens: 20,
      },
      {
        model: 'gpt-a',
        calls: 1,
        prompt_tokens: 500,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        completion_tokens: 10,
      },
    ]);
    // s3 started in February: a March window keeps s1's calls only.
    expect(store.providerByModel({ since: Date.UTC(2026, 2, 1) }).map((r) => r.model)).toEqual(['claude-sonnet-4']);
    const [claude] = priceProvider(rows, defaultConfig().pricing);
    // Built-in claude-sonnet-4: 3 input, 0.30 read, 3.75 write, 15 output per million.
    expect(claude?.cost.input).toBeCloseTo((200 * 3 + 1500 * 0.3 + 500 * 3.75) / 1e6, 8);
    expect(claude?.cost.output).toBeCloseTo((20 * 15) / 1e6, 8);
    // period=model answers it beside HMC's estimate, and only where there is some.
    const answer = analyticsAction(store, { period: 'model' }, { project: '', pricing: defaultConfig().pricing }) as {
      provider?: { model: string }[];
    };
    expect(answer.provider?.map((r) => r.model)).toEqual(['claude-sonnet-4', 'gpt-a']);
    expect(
      analyticsAction(
        store,
        { period: 'model', since: '2027-01-01' },
        { project: '', pricing: defaultConfig().pricing },
      ),
    ).not.toHaveProperty('provider');
  });
});

describe('tool outputs', () => {
  it('per tool: outputs, tokens in and as first sent, saved per output, and input saved over every call', () => {
    expect(store.byOutput({ by: 'tool', limit: 10 })).toEqual([
      {
        name: 'terminal',
        kind: 'shell',
        outputs: 2,
        tokens_raw: 800,
        tokens_sent: 300,
        saved: 500,
        saved_per_output: 250,
        savings_pct: 62.5,
        input_saved: 340,
      },
      {
        name: 'read_file',
        kind: 'read',
        outputs: 1,
        tokens_raw: 400,
        tokens_sent: 250,
        saved: 150,
        saved_per_output: 150,
        savings_pct: 37.5,
        input_saved: 650,
      },
    ]);
  });

  it('per kind and per shell program', () => {
    expect(store.byOutput({ by: 'kind', limit: 10 }).map((r) => [r.name, r.outputs])).toEqual([
      ['shell', 2],
      ['read', 1],
    ]);
    expect(store.byOutput({ by: 'program', limit: 10 }).map((r) => [r.name, r.kind, r.saved_per_output])).toEqual([
      ['pytest', 'shell', 250],
    ]);
    expect(store.byOutput({ by: 'program', limit: 10, since: Date.UTC(2026, 2, 15, 11) })).toEqual([]);
  });
});

describe('did compression cost the agent work', () => {
  it('adds up recalls and re-reads against the outputs HMC shortened, and names the sessions', () => {
    expect(store.work()).toEqual({
      sessions: 5,
      model_calls: 5,
      tool_calls: 7,
      elided: 3,
      recalls: 1,
      rereads: 2,
      per_100_elided: 100,
      top: [
        { session_id: 's1', started_at: Date.UTC(2026, 2, 15, 10), model: 'gpt-a', recalls: 1, rereads: 2, elided: 3 },
      ],
    });
    expect(store.work({ project: '/home/u/proj-other' })).toMatchObject({
      sessions: 1,
      elided: 0,
      per_100_elided: 0,
      top: [],
    });
  });
});
