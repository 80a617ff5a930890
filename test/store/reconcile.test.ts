/**
 * Reconcile (issue 24, part 4) over a real SQLite file: a session's provider usage beside HMC's
 * figures, the tokenizer ratio, HMC's predicted cache reads against the provider's, the cache
 * breaks by cause, money measured and modelled, the costliest call with why; a call HMC never saw
 * counted apart; the host's prices kept and used; a v8 file's sessions priced as plain input.
 */
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/keys.js';
import { analyticsAction, migrate, openStore, type AnalyticsStore } from '../../src/store/index.js';
import type { UsageRecord } from '../../src/store/usage.js';
import { NOW, rec, tempDb } from './helpers.js';

// biome-ignore lint/suspicious/noExplicitAny: the answer is read field by field, deep, as the page reads it; its shape is what this test checks
type Answer = Record<string, any>;

const pricing = defaultConfig().pricing;
let store: AnalyticsStore;
beforeEach(() => {
  store = openStore(':memory:', { now: () => NOW });
  store.recordSession(
    rec({
      session_id: 'S',
      started_at: NOW,
      model: 'claude-sonnet-4',
      input_tokens_raw: 40_000,
      input_tokens_hmc: 30_000,
    }),
  );
});
afterEach(() => store.close());

function row(seq: number, over: Partial<UsageRecord> = {}): UsageRecord {
  return {
    session_id: 'S',
    seq,
    at: NOW + seq * 1000,
    model: 'claude-sonnet-4',
    provider: 'anthropic',
    prompt_tokens: 10_000,
    completion_tokens: 100,
    cache_read_tokens: 9_000,
    cache_write_tokens: 1_000,
    reasoning_tokens: 0,
    hmc_input: 9_000,
    raw_input: 12_000,
    hmc_cached: 8_000,
    raw_cached: 11_000,
    call_id: `r${seq}`,
    turn: 1,
    seen: true,
    source: 'hook',
    ...over,
  };
}

describe('reconcile', () => {
  it('puts the provider\u2019s figures beside HMC\u2019s, names each break\u2019s cause and answers why the costliest call cost so much', () => {
    store.recordUsage([
      row(1, { cache_read_tokens: 0, cache_write_tokens: 10_000, hmc_cached: 0, raw_cached: 0 }),
      row(2),
      row(3, {
        cache_read_tokens: 2_000,
        cache_write_tokens: 8_000,
        hmc_cached: 1_800,
        raw_cached: 2_400,
        break_tokens: 8_000,
        break_cause: 'hermes',
      }),
      row(4, {
        model: 'claude-haiku-4-5',
        prompt_tokens: 500,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        hmc_input: null,
        raw_input: null,
        hmc_cached: null,
        raw_cached: null,
        seen: false,
        call_id: 'title',
      }),
    ]);
    const a = analyticsAction(store, { period: 'usage', session: 'S' }, { project: '', pricing }) as Answer;
    expect(a).toMatchObject({ calls: 4, unseen_calls: 1, tokenizer_ratio: 1.111 });
    expect(a.measured).toEqual({
      prompt_tokens: 30_500,
      cache_read_tokens: 11_000,
      cache_write_tokens: 19_000,
      completion_tokens: 400,
    });
    expect(a.modelled).toEqual({ hmc_input: 27_000, raw_input: 36_000, hmc_cached: 9_800, raw_cached: 13_400 });
    expect(a.cached_share).toEqual({ modelled: 0.363, measured: 0.3667 });
    expect(a.breaks).toMatchObject({ count: 1, tokens: 8_000, by_cause: { hmc: 0, hermes: 1, ttl: 0, unknown: 0 } });
    expect(a.breaks.list[0]).toMatchObject({ seq: 3, call_id: 'r3', cause: 'hermes' });
    // claude-sonnet-4 (built-in): 3 input, 0.30 read, 3.75 write, 15 output per million.
    const seen = (0 * 0.3 + 10_000 * 3.75 + 9_000 * 0.3 + 1_000 * 3.75 + 2_000 * 0.3 + 8_000 * 3.75) / 1e6;
    expect(a.cost.seen_measured_input).toBeCloseTo(seen, 7);
    expect(a.cost.measured_input).toBeCloseTo(seen + (500 * 1) / 1e6, 7);
    const r = 10_000 / 9_000;
    const without = ((36_000 * r - 13_400 * r) * 3.75) / 1e6 + (13_400 * r * 0.3) / 1e6;
    expect(a.cost.modelled_without_hmc).toBeCloseTo(without, 6);
    expect(a.cost.saved).toBeCloseTo(without - seen, 6);
    expect(a.costliest[0]).toMatchObject({ seq: 1 });
    expect(a.costliest.find((c: { seq: number }) => c.seq === 3).why).toMatch(
      /cache break of 8000 tokens: Hermes changed the request/,
    );
    // Over a period: the same calls, each with its session.
    const period = analyticsAction(store, { period: 'usage' }, { project: '', pricing }) as Answer;
    expect(period).toMatchObject({ calls: 4, unseen_calls: 1 });
    expect(period.breaks.list[0]).toMatchObject({ session_id: 'S', seq: 3 });
  });

  it('says so where no usage is recorded', () => {
    expect(analyticsAction(store, { period: 'usage', session: 'none' }, { project: '', pricing })).toMatchObject({
      calls: 0,
      note: expect.stringContaining('post_api_request'),
    });
  });

  it('prices a model with the host\u2019s own price when it reported one, and names where the price came from', () => {
    store.recordUsage([row(1)]);
    store.recordHostPrices([
      {
        model: 'claude-sonnet-4',
        price: { input: 1, output: 5, cache_read: 0.1, cache_write: 1.25, source: 'official_docs_snapshot' },
        at: NOW,
      },
    ]);
    const a = analyticsAction(store, { period: 'model' }, { project: '', pricing }) as {
      rows: { price: { source: string; input: number; host_source?: string } }[];
    };
    expect(a.rows[0]?.price).toMatchObject({ source: 'hermes', input: 1, host_source: 'official_docs_snapshot' });
    const u = analyticsAction(store, { period: 'usage', session: 'S' }, { project: '', pricing }) as {
      cost: { seen_measured_input: number };
    };
    expect(u.cost.seen_measured_input).toBeCloseTo((9_000 * 0.1 + 1_000 * 1.25) / 1e6, 8);
  });
});

describe('schema v9', () => {
  it('marks the input of sessions recorded before it as plain (no cache model), never as cache writes', () => {
    const path = tempDb();
    const db = new Database(path);
    migrate(db, 7);
    db.prepare(`INSERT INTO sessions (id, project_path, started_at, input_raw, input_hmc, saved, recorded_at, model, model_calls)
      VALUES ('old', '/p', ?, 1000, 600, 400, ?, 'claude-sonnet-4', 5)`).run(NOW, NOW);
    db.close();
    const s = openStore(path);
    expect(s.byModel()[0]).toMatchObject({
      input: 1000,
      sent: 600,
      cached_input: 0,
      plain_input: 1000,
      plain_sent: 600,
    });
    s.close();
  });
});
