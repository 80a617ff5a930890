/**
 * Never counted twice, never above 100%: re-recording a session replaces it, and whatever numbers
 * the engine hands over, savings are clamped to the input on write.
 */
import fc from 'fast-check';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { fitParts } from '../../src/store/record.js';
import type { SessionRecord } from '../../src/store/types.js';
import { FIVE, NOW, rec, tempDb, tempDir } from './helpers.js';

describe('recording a session again', () => {
  it('replaces its rows, so totals are unchanged after recording the same session twice', () => {
    const store = openStore(tempDb());
    store.recordSessions(FIVE);
    const once = store.summary();
    store.recordSessions(FIVE);
    for (const r of FIVE) store.recordSession(r);
    expect(store.summary()).toEqual(once);
    expect(store.session('s1')?.timeline).toHaveLength(2);
    store.close();
  });

  it('keeps only the latest picture of a growing session (the original over-counted per turn, §14 A3)', () => {
    const store = openStore(tempDb());
    for (let turn = 1; turn <= 10; turn++) {
      store.recordSession(
        rec({
          session_id: 'live',
          turns: turn,
          input_tokens_raw: 1000 * turn,
          input_tokens_hmc: 600 * turn,
          by_strategy: { dedup: 400 * turn },
          by_tool: { terminal: 400 * turn },
          timeline: Array.from({ length: turn }, (_, i) => ({
            turn: i + 1,
            time: NOW + i,
            context_tokens: 10,
            context_percent: 0.1,
            input_raw: 1000,
            input_hmc: 600,
            tool_calls: 1,
          })),
        }),
      );
    }
    const s = store.summary();
    expect(s).toMatchObject({ total_saved: 4000, total_input: 10_000, total_sessions: 1, savings_pct: 40 });
    expect(s.by_strategy).toEqual({ dedup: 4000 });
    expect(s.by_tool).toEqual({ terminal: 4000 });
    expect(store.session('live')?.timeline).toHaveLength(10);
    store.close();
  });

  it('moves the per-strategy totals when a session changes project', () => {
    const store = openStore(tempDb());
    const first = rec({
      session_id: 'm',
      project_path: '/a',
      input_tokens_raw: 100,
      input_tokens_hmc: 50,
      by_strategy: { dedup: 50 },
      by_tool: { t: 50 },
    });
    store.recordSession(first);
    store.recordSession({ ...first, project_path: '/b' });
    expect(store.byStrategy({ project: '/a' })).toEqual([]);
    expect(store.byStrategy({ project: '/b' })).toEqual([{ strategy: 'dedup', saved: 50 }]);
    expect(store.byTool({ project: '/b' })).toEqual([{ tool: 't', saved: 50 }]);
    store.close();
  });

  it('writes nothing from a batch when one of its records is invalid', () => {
    const store = openStore(tempDb());
    expect(() => store.recordSessions([FIVE[0]!, rec({ session_id: '' })])).toThrow(/session_id/);
    expect(() => store.recordSession(rec({ session_id: 'x', started_at: Number.NaN }))).toThrow(/started_at/);
    expect(store.summary().total_sessions).toBe(0);
    store.close();
  });
});

describe('clamping on write', () => {
  it('never stores more savings than input, nor negative numbers', () => {
    const store = openStore(tempDb());
    store.recordSession(
      rec({
        session_id: 'bad',
        input_tokens_raw: 100,
        input_tokens_hmc: -50,
        by_strategy: { dedup: 300, truncation: 100, broken: -7, nan: Number.NaN },
        by_tool: { terminal: Number.POSITIVE_INFINITY },
        timeline: [
          { turn: 1, time: NOW, context_tokens: -1, context_percent: 7, input_raw: 10, input_hmc: 50, tool_calls: 1 },
        ],
      }),
    );
    const s = store.summary();
    expect(s).toMatchObject({ total_saved: 100, total_input: 100, total_sent: 0, total_output: 0, savings_pct: 100 });
    expect(s.by_strategy).toEqual({ dedup: 75, truncation: 25 });
    expect(s.by_tool).toEqual({});
    expect(store.session('bad')?.timeline[0]).toMatchObject({
      context_tokens: 0,
      context_percent: 1,
      input_raw: 10,
      input_hmc: 10,
    });
    store.close();
  });

  it('treats input_hmc above input_raw as nothing saved', () => {
    const store = openStore(tempDb());
    store.recordSession(
      rec({ session_id: 'up', input_tokens_raw: 100, input_tokens_hmc: 150, by_strategy: { dedup: 10 } }),
    );
    expect(store.summary()).toMatchObject({ total_saved: 0, total_input: 100, savings_pct: 0, by_strategy: {} });
    store.close();
  });

  it('scales parts that claim more than the total so they sum exactly to it', () => {
    expect(fitParts({ a: 1, b: 1, c: 1 }, 2).reduce((x, [, v]) => x + v, 0)).toBe(2);
    expect(fitParts({ a: 5, b: 5 }, 20)).toEqual([
      ['a', 5],
      ['b', 5],
    ]);
    expect(fitParts({ a: 7 }, 0)).toEqual([]);
  });

  // Realistic magnitudes plus the garbage an engine bug could send (NaN, infinities, negatives).
  const num = fc.oneof(
    fc.integer({ min: -10, max: 1e9 }),
    fc.double({ min: -1e3, max: 1e9 }),
    fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
  );
  const arbRecord = fc.record({
    session_id: fc.string({ minLength: 1, maxLength: 8 }),
    project_path: fc.constantFrom('', '/p', '/p/q', '/r'),
    started_at: fc.integer({ min: 0, max: NOW }),
    input_tokens_raw: num,
    input_tokens_hmc: num,
    by_strategy: fc.dictionary(fc.constantFrom('dedup', 'truncation', 'code_filter', 'x'), num),
    by_tool: fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), fc.integer({ min: -5, max: 2e9 })),
  });

  it('keeps savings_pct at most 100 and every per-strategy and per-tool sum at most the input, for random records', () => {
    const store = openStore(join(tempDir(), 'prop.db'));
    fc.assert(
      fc.property(fc.array(arbRecord, { minLength: 1, maxLength: 20 }), (parts) => {
        const records: SessionRecord[] = parts.map((p) => rec(p));
        store.recordSessions(records);
        for (const project of [undefined, '/p']) {
          const s = store.summary({ project });
          const sum = (o: Record<string, number>): number => Object.values(o).reduce((a, v) => a + v, 0);
          expect(s.savings_pct).toBeLessThanOrEqual(100);
          expect(s.total_saved).toBeLessThanOrEqual(s.total_input);
          expect(s.total_sent).toBeGreaterThanOrEqual(0);
          expect(s.total_output).toBe(s.total_sent);
          expect(sum(s.by_strategy)).toBeLessThanOrEqual(s.total_saved);
          expect(sum(s.by_tool)).toBeLessThanOrEqual(s.total_saved);
        }
        for (const row of store.sessions({ limit: 100 }).rows) {
          const d = store.session(row.session_id)!;
          expect(d.saved).toBeLessThanOrEqual(d.input_tokens_raw);
          expect(Object.values(d.by_strategy).reduce((a, v) => a + v, 0)).toBeLessThanOrEqual(d.input_tokens_raw);
        }
      }),
      { numRuns: 200 },
    );
    // The running totals kept by triggers match a recount from the per-session rows.
    const recount: Record<string, number> = {};
    for (const row of store.sessions({ limit: 10_000 }).rows) {
      for (const [k, v] of Object.entries(store.session(row.session_id)!.by_strategy))
        recount[k] = (recount[k] ?? 0) + v;
    }
    expect(store.summary().by_strategy).toEqual(recount);
    store.close();
  });
});

describe('files', () => {
  it('creates the parent directory and keeps the database and its WAL private (0600)', () => {
    const path = join(tempDir(), 'deep', 'er', 'analytics.db');
    const store = openStore(path);
    store.recordSession(FIVE[0]!);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(`${path}-wal`).mode & 0o777).toBe(0o600);
    expect(statSync(join(path, '..')).mode & 0o777).toBe(0o700);
    store.close();
  });

  it('does not create a missing file when opened read-only, and says so', () => {
    const path = join(tempDir(), 'missing.db');
    expect(() => openStore(path, { readonly: true })).toThrow(`no analytics database at ${path}`);
    expect(() => statSync(path)).toThrow();
  });

  it('refuses to write through a read-only store', () => {
    const path = tempDb();
    openStore(path).close();
    const ro = openStore(path, { readonly: true });
    expect(() => ro.recordSession(FIVE[0]!)).toThrow(/read-only/);
    expect(ro.summary().total_sessions).toBe(0);
    ro.close();
  });
});
