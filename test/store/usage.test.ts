/**
 * Provider usage per model call (issue 16, migration 6): a v5 file migrates keeping everything; a
 * row is keyed by (session, seq) and recording it again replaces it; cache figures never exceed
 * the prompt; bad rows are refused naming the field; the recorder queues and writes without
 * waiting; retention deletes rows of calls made before the cutoff; a session's answer sums its
 * calls and lists them with their model.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createRecorder, LATEST_VERSION, migrate, openStore } from '../../src/store/index.js';
import type { UsageRecord } from '../../src/store/usage.js';
import { NOW, rec, tempDb } from './helpers.js';

const DAY = 86_400_000;

function row(seq: number, over: Partial<UsageRecord> = {}): UsageRecord {
  return {
    session_id: 'S',
    seq,
    at: NOW,
    model: 'claude-sonnet-4',
    provider: 'anthropic',
    prompt_tokens: 10_000,
    completion_tokens: 200,
    cache_read_tokens: 8_000,
    cache_write_tokens: 1_500,
    reasoning_tokens: 0,
    hmc_input: 7_000,
    raw_input: 12_000,
    hmc_cached: 6_000,
    ...over,
  };
}

describe('provider usage', () => {
  it('migrates a v5 file to v6 keeping its sessions, and the new table works', () => {
    const path = tempDb();
    const db = new Database(path);
    expect(migrate(db, 5)).toBe(5);
    db.close();
    const store = openStore(path);
    store.recordSession(
      rec({ session_id: 'S', started_at: NOW, input_tokens_raw: 10, input_tokens_hmc: 5, by_strategy: { dedup: 5 } }),
    );
    store.recordUsage([row(1)]);
    expect(store.usage('S')?.totals.calls).toBe(1);
    store.close();
    const check = new Database(path, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(LATEST_VERSION);
    check.close();
  });

  it('sums a session\u2019s calls, lists them with their model, and replaces a row recorded again', () => {
    const store = openStore(tempDb());
    store.recordUsage([
      row(1),
      row(2, { model: 'gpt-5', cache_read_tokens: 0, hmc_input: null, raw_input: null, hmc_cached: null }),
      row(3),
    ]);
    store.recordUsage([row(3, { prompt_tokens: 11_000 })]);
    const u = store.usage('S');
    expect(u?.totals).toEqual({
      calls: 3,
      prompt_tokens: 31_000,
      completion_tokens: 600,
      cache_read_tokens: 16_000,
      cache_write_tokens: 4_500,
      reasoning_tokens: 0,
      hmc_calls: 2,
      hmc_input: 14_000,
      hmc_cached: 12_000,
      unseen_calls: 1,
      breaks: 0,
    });
    expect(u?.models).toEqual([
      { model: 'claude-sonnet-4', calls: 2 },
      { model: 'gpt-5', calls: 1 },
    ]);
    expect(u?.calls.map((c) => [c.seq, c.prompt_tokens, c.hmc_input])).toEqual([
      [1, 10_000, 7_000],
      [2, 10_000, null],
      [3, 11_000, 7_000],
    ]);
    expect(store.usage('other')).toBeNull();
    store.close();
  });

  it('keeps cache figures within the prompt and refuses a bad row naming its field', () => {
    const store = openStore(tempDb());
    store.recordUsage([
      row(1, { prompt_tokens: 100, cache_read_tokens: 500, cache_write_tokens: 500, hmc_input: 10, hmc_cached: 50 }),
    ]);
    expect(store.usage('S')?.calls[0]).toMatchObject({
      prompt_tokens: 100,
      cache_read_tokens: 100,
      cache_write_tokens: 0,
      hmc_cached: 10,
    });
    expect(() => store.recordUsage([row(0)])).toThrow(/seq must be 1 or more/);
    expect(() => store.recordUsage([row(2, { prompt_tokens: -1 })])).toThrow(/prompt_tokens must be a whole number/);
    expect(() => store.recordUsage([row(2, { session_id: '' })])).toThrow(/session_id/);
    store.close();
  });

  it('deletes the rows of calls made before the retention cutoff', () => {
    const path = tempDb();
    const store = openStore(path, { retentionDays: 30, now: () => NOW });
    store.recordUsage([row(1, { at: NOW - 40 * DAY }), row(2, { at: NOW - DAY })]);
    expect(store.applyRetention(NOW)).toBe(1);
    expect(store.usage('S')?.calls.map((c) => c.seq)).toEqual([2]);
    store.close();
  });

  it('the recorder queues rows and writes them off the caller\u2019s path', async () => {
    const path = tempDb();
    const logs: string[] = [];
    const recorder = createRecorder({ path, retentionDays: 90, log: (l) => logs.push(l) });
    recorder.recordUsage(row(1));
    recorder.recordUsage(row(2));
    recorder.recordUsage(row(0)); // refused, logged once, nothing thrown
    await recorder.close();
    expect(logs.filter((l) => l.includes('provider usage not recorded'))).toHaveLength(1);
    const store = openStore(path, { readonly: true });
    expect(store.usage('S')?.totals.calls).toBe(2);
    store.close();
  });
});
