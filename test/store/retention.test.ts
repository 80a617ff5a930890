/**
 * Retention: sessions that ended more than `retentionDays` ago disappear with all their rows, at
 * open and on demand; live and recent sessions stay, and so does an idle one (no end: it can be
 * resumed) whose last turn is recent however long ago it started; running totals follow.
 */
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { NOW, rec, tempDb } from './helpers.js';

const DAY = 86_400_000;

function seed(path: string): void {
  const store = openStore(path);
  const point = {
    turn: 1,
    time: NOW,
    context_tokens: 1,
    context_percent: 0,
    input_raw: 10,
    input_hmc: 5,
    tool_calls: 1,
  };
  store.recordSessions([
    rec({
      session_id: 'old',
      started_at: NOW - 40 * DAY,
      ended_at: NOW - 39 * DAY,
      input_tokens_raw: 10,
      input_tokens_hmc: 5,
      by_strategy: { dedup: 5 },
      by_tool: { t: 5 },
      timeline: [point],
    }),
    rec({
      session_id: 'edge',
      started_at: NOW - 31 * DAY,
      ended_at: NOW - 29 * DAY,
      input_tokens_raw: 10,
      input_tokens_hmc: 5,
      by_strategy: { dedup: 5 },
    }),
    rec({
      session_id: 'new',
      started_at: NOW - DAY,
      input_tokens_raw: 10,
      input_tokens_hmc: 5,
      by_strategy: { dedup: 5 },
      by_tool: { t: 5 },
    }),
    rec({
      session_id: 'resumed',
      started_at: NOW - 60 * DAY,
      ended_at: null,
      input_tokens_raw: 10,
      input_tokens_hmc: 10,
      timeline: [{ ...point, turn: 9, time: NOW - DAY }],
    }),
    rec({
      session_id: 'idle',
      started_at: NOW - 60 * DAY,
      ended_at: null,
      input_tokens_raw: 10,
      input_tokens_hmc: 10,
      timeline: [{ ...point, time: NOW - 50 * DAY }],
    }),
  ]);
  store.close();
}

describe('retention', () => {
  it('deletes sessions that ended before the cutoff with their strategy, tool and timeline rows', () => {
    const path = tempDb();
    seed(path);
    const store = openStore(path, { retentionDays: 30, now: () => NOW - 365 * DAY });
    expect(store.summary().total_sessions).toBe(5); // nothing old yet by that clock
    expect(store.applyRetention(NOW)).toBe(6); // session, strategy, tool and turn rows of "old"; session and turn of "idle"
    expect(
      store
        .sessions({ limit: 10 })
        .rows.map((r) => r.session_id)
        .sort(),
    ).toEqual(['edge', 'new', 'resumed']);
    expect(store.summary()).toMatchObject({ total_saved: 10, by_strategy: { dedup: 10 }, by_tool: { t: 5 } });
    expect(store.applyRetention(NOW)).toBe(0);
    store.close();
  });

  it('runs at open', () => {
    const path = tempDb();
    seed(path);
    const store = openStore(path, { retentionDays: 30, now: () => NOW });
    expect(store.session('old')).toBeNull();
    expect(store.summary().total_sessions).toBe(3);
    store.close();
  });

  it('does nothing without a retention period', () => {
    const path = tempDb();
    seed(path);
    const store = openStore(path, { now: () => NOW });
    expect(store.applyRetention(NOW + 1000 * DAY)).toBe(0);
    expect(store.summary().total_sessions).toBe(5);
    store.close();
  });
});
