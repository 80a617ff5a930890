/**
 * `hmc_control analytics`: every form of the original with the same JSON, its bugs fixed
 * (reference §14 F20/F21), plus the tool and strategy periods.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { analyticsAction, openStore, type AnalyticsStore } from '../../src/store/index.js';
import { FIVE, NOW, tempDb } from './helpers.js';

let store: AnalyticsStore;
const ctx = { project: '/home/u/proj', now: NOW };

beforeEach(() => {
  store = openStore(tempDb());
  store.recordSessions(FIVE);
});

afterEach(() => store.close());

describe('analytics action', () => {
  it('answers the lifetime totals by default, with by_tool added', () => {
    expect(analyticsAction(store, {}, ctx)).toEqual({
      scope: 'global',
      period: 'all',
      project: '',
      total_saved: 1990,
      total_sessions: 5,
      total_input: 4600,
      total_sent: 2610,
      total_output: 2610,
      savings_pct: 43.26,
      model_calls: 5,
      sessions_without_model_calls: 3,
      by_strategy: { background_compression: 1000, dedup: 500, code_filter: 300, truncation: 100, short_circuit: 90 },
      by_tool: { read_file: 650, terminal: 340 },
    });
  });

  it('filters by the session project for scope=project', () => {
    expect(analyticsAction(store, { scope: 'project' }, ctx)).toMatchObject({
      scope: 'project',
      project: '/home/u/proj',
      total_saved: 1900,
      total_sessions: 3,
    });
  });

  it('normalises scope and period like the original (trimmed, any case)', () => {
    expect(analyticsAction(store, { scope: ' Project ', period: 'DAY', limit: 1 }, ctx)).toEqual({
      scope: 'project',
      period: 'day',
      project: '/home/u/proj',
      days: 1,
      rows: [{ day: '2026-03-15', saved: 400, input: 1000, sessions: 1 }],
    });
  });

  it('defaults period=day to 30 days and period=month to 12 months (the original gave 10), listing those with sessions', () => {
    // Issue 17, finding 5: 30 rows, 29 of them zero. The window stays; empty days and months are left out.
    const day = analyticsAction(store, { period: 'day' }, ctx);
    expect(day).toMatchObject({ days: 30 });
    expect((day.rows as { day: string }[]).map((r) => r.day)).toEqual(['2026-03-15', '2026-03-14', '2026-02-28']);
    const month = analyticsAction(store, { period: 'month', limit: 0 }, ctx);
    expect(month).toMatchObject({ months: 12 });
    expect((month.rows as { month: string; sessions: number }[]).map((r) => [r.month, r.sessions])).toEqual([
      ['2026-03', 2],
      ['2026-02', 1],
      ['2026-01', 1],
    ]);
    expect(
      analyticsAction(store, { period: 'day', limit: 1, now: 0 }, { ...ctx, now: Date.UTC(2026, 5, 1) }),
    ).toMatchObject({ days: 1, rows: [] });
  });

  it('accepts limit as a string', () => {
    expect(analyticsAction(store, { period: 'recent', limit: '2' }, ctx).rows).toHaveLength(2);
    expect(analyticsAction(store, { period: 'month', limit: ' 3 ' }, ctx).rows).toHaveLength(3);
  });

  it('answers an error, not a throw, for a limit that is not a whole number (the original raised)', () => {
    expect(analyticsAction(store, { limit: 'abc' }, ctx)).toEqual({ error: 'limit must be a whole number, got "abc"' });
    expect(analyticsAction(store, { period: 'recent', limit: -1 }, ctx)).toEqual({
      error: 'limit must be a whole number, got "-1"',
    });
    expect(analyticsAction(store, { period: 'recent', limit: 2.5 }, ctx)).toEqual({
      error: 'limit must be a whole number, got "2.5"',
    });
  });

  it('names the allowed values for an unknown scope or period', () => {
    expect(analyticsAction(store, { scope: 'team' }, ctx)).toEqual({
      error: 'unknown scope "team" (allowed: global, project)',
    });
    expect(analyticsAction(store, { period: 'year' }, ctx)).toEqual({
      error:
        'unknown period "year" (allowed: all, day, week, month, recent, project, tool, strategy, model, output, work, usage)',
    });
  });

  it('lists recent sessions in the original shape, 10 by default', () => {
    const out = analyticsAction(store, { period: 'recent', scope: 'project' }, ctx);
    expect(out).toMatchObject({ scope: 'project', period: 'recent', project: '/home/u/proj' });
    expect((out.rows as { session_id: string }[]).map((r) => r.session_id)).toEqual(['s1', 's2', 's5']);
  });

  it('ranks projects globally whatever the scope, without a project key (as the original)', () => {
    expect(analyticsAction(store, { period: 'project', scope: 'project', limit: 2 }, ctx)).toEqual({
      scope: 'global',
      period: 'project',
      rows: [
        { project_path: '/home/u/proj', saved_tokens: 1400, input_tokens: 2000, sessions: 2 },
        { project_path: '/home/u/proj/sub', saved_tokens: 500, input_tokens: 2000, sessions: 1 },
      ],
    });
  });

  it('lists savings per tool and per strategy', () => {
    expect(analyticsAction(store, { period: 'tool' }, ctx)).toEqual({
      scope: 'global',
      period: 'tool',
      project: '',
      rows: [
        { tool: 'read_file', saved: 650 },
        { tool: 'terminal', saved: 340 },
      ],
    });
    expect(
      analyticsAction(store, { period: 'strategy', scope: 'project' }, { ...ctx, project: '/home/u/proj/sub' }),
    ).toEqual({
      scope: 'project',
      period: 'strategy',
      project: '/home/u/proj/sub',
      rows: [
        { strategy: 'code_filter', saved: 300 },
        { strategy: 'dedup', saved: 200 },
      ],
    });
  });

  it('says analytics is disabled when there is no store', () => {
    expect(analyticsAction(null, {}, ctx)).toEqual({ error: 'analytics is disabled (analytics.enabled: false)' });
  });

  it('answers an error object when the database fails', () => {
    const broken = openStore(tempDb());
    broken.close();
    expect(analyticsAction(broken, {}, ctx)).toEqual({ error: expect.stringMatching(/^analytics query failed: /) });
  });
});
