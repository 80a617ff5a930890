/**
 * Every query form against numbers computed by hand from the five sessions in helpers.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type AnalyticsStore } from '../../src/store/index.js';
import { FIVE, NOW, tempDb, WEIRD } from './helpers.js';

let store: AnalyticsStore;

beforeEach(() => {
  store = openStore(tempDb(), { now: () => NOW });
  store.recordSessions(FIVE);
});

afterEach(() => store.close());

describe('summary', () => {
  it('adds up every session: saved, input, input actually sent, and a two-decimal percentage', () => {
    expect(store.summary()).toEqual({
      total_saved: 1990,
      total_sessions: 5,
      total_input: 4600,
      total_sent: 2610,
      total_output: 2610,
      savings_pct: 43.26,
      model_calls: 5,
      // s3, s4 and s5 were recorded before model calls were counted: named, not hidden in N.
      sessions_without_model_calls: 3,
      by_strategy: { background_compression: 1000, dedup: 500, code_filter: 300, truncation: 100, short_circuit: 90 },
      by_tool: { read_file: 650, terminal: 340 },
    });
  });

  it('orders by_strategy and by_tool largest first', () => {
    expect(Object.keys(store.summary().by_strategy)).toEqual([
      'background_compression',
      'dedup',
      'code_filter',
      'truncation',
      'short_circuit',
    ]);
    expect(Object.keys(store.summary().by_tool)).toEqual(['read_file', 'terminal']);
  });

  it('filters a project to its exact path and its sub-directories, not siblings sharing a prefix', () => {
    expect(store.summary({ project: '/home/u/proj' })).toEqual({
      total_saved: 1900,
      total_sessions: 3,
      total_input: 4000,
      total_sent: 2100,
      total_output: 2100,
      savings_pct: 47.5,
      model_calls: 5,
      sessions_without_model_calls: 1,
      by_strategy: { background_compression: 1000, dedup: 500, code_filter: 300, truncation: 100 },
      by_tool: { read_file: 650, terminal: 250 },
    });
  });

  it('accepts a project path with a trailing slash', () => {
    expect(store.summary({ project: '/home/u/proj/' }).total_sessions).toBe(3);
  });

  it('treats GLOB and LIKE metacharacters in a project path literally', () => {
    expect(store.summary({ project: WEIRD }).total_saved).toBe(90);
    expect(store.summary({ project: '/home/u/we[ird]*' }).total_sessions).toBe(0);
    expect(store.summary({ project: '/home/u/we?ird' }).total_sessions).toBe(0);
    expect(store.summary({ project: '/home/u/%' }).total_sessions).toBe(0);
  });

  it('answers zeros for an empty database', () => {
    const empty = openStore(':memory:');
    expect(empty.summary()).toEqual({
      total_saved: 0,
      total_sessions: 0,
      total_input: 0,
      total_sent: 0,
      total_output: 0,
      savings_pct: 0,
      model_calls: 0,
      sessions_without_model_calls: 0,
      by_strategy: {},
      by_tool: {},
    });
    empty.close();
  });
});

describe('byDay', () => {
  it('returns exactly N UTC calendar days including today, newest first, empty days as zeros', () => {
    expect(store.byDay({ days: 3 })).toEqual([
      { day: '2026-03-15', saved: 400, input: 1000, sessions: 1 },
      { day: '2026-03-14', saved: 500, input: 2000, sessions: 1 },
      { day: '2026-03-13', saved: 0, input: 0, sessions: 0 },
    ]);
  });

  it('does not include the day before the window (the original returned N+1 days)', () => {
    const fifteen = store.byDay({ days: 15 });
    expect(fifteen).toHaveLength(15);
    expect(fifteen.at(-1)?.day).toBe('2026-03-01');
    expect(fifteen.reduce((a, r) => a + r.sessions, 0)).toBe(2);
    const sixteen = store.byDay({ days: 16 });
    expect(sixteen.at(-1)).toEqual({ day: '2026-02-28', saved: 0, input: 500, sessions: 1 });
  });

  it('filters by project', () => {
    expect(store.byDay({ days: 2, project: '/home/u/proj/sub' }).map((r) => r.saved)).toEqual([0, 500]);
  });

  it('takes the clock per query', () => {
    expect(store.byDay({ days: 1, now: Date.UTC(2026, 0, 1, 23, 0, 0) })).toEqual([
      { day: '2026-01-01', saved: 90, input: 100, sessions: 1 },
    ]);
  });

  it('answers an empty list for zero days', () => {
    expect(store.byDay({ days: 0 })).toEqual([]);
  });
});

describe('byMonth', () => {
  it('returns exactly N calendar months including this one, newest first', () => {
    expect(store.byMonth({ months: 3 })).toEqual([
      { month: '2026-03', saved: 900, input: 3000, sessions: 2 },
      { month: '2026-02', saved: 0, input: 500, sessions: 1 },
      { month: '2026-01', saved: 90, input: 100, sessions: 1 },
    ]);
  });

  it('does not include a 13th partial month for months=12 (the original did)', () => {
    const twelve = store.byMonth({ months: 12 });
    expect(twelve).toHaveLength(12);
    expect(twelve.at(-1)).toEqual({ month: '2025-04', saved: 0, input: 0, sessions: 0 });
    expect(twelve.reduce((a, r) => a + r.saved, 0)).toBe(990);
    expect(store.byMonth({ months: 13 }).at(-1)).toEqual({ month: '2025-03', saved: 1000, input: 1000, sessions: 1 });
  });

  it('crosses a year boundary by calendar month', () => {
    expect(store.byMonth({ months: 2, now: Date.UTC(2026, 0, 31) }).map((r) => r.month)).toEqual([
      '2026-01',
      '2025-12',
    ]);
  });
});

describe('recent', () => {
  it('keeps the original shape, newest first, plus model, platform, turns, tool calls and end time', () => {
    expect(store.recent({ limit: 2 })).toEqual([
      {
        session_id: 's1',
        timestamp: '2026-03-15T10:00:00Z',
        project_path: '/home/u/proj',
        saved_tokens: 400,
        session_input: 1000,
        session_sent: 600,
        session_output: 600,
        model_calls: 2,
        model: 'gpt-a',
        platform: 'cli',
        turns: 3,
        tool_calls: 5,
        started_at: Date.UTC(2026, 2, 15, 10),
        ended_at: Date.UTC(2026, 2, 15, 11),
      },
      {
        session_id: 's2',
        timestamp: '2026-03-14T09:00:00Z',
        project_path: '/home/u/proj/sub',
        saved_tokens: 500,
        session_input: 2000,
        session_sent: 1500,
        session_output: 1500,
        model_calls: 3,
        model: 'claude',
        platform: 'telegram',
        turns: 4,
        tool_calls: 2,
        started_at: Date.UTC(2026, 2, 14, 9),
        ended_at: null,
      },
    ]);
  });

  it('filters by project', () => {
    expect(store.recent({ limit: 10, project: '/home/u/proj' }).map((r) => r.session_id)).toEqual(['s1', 's2', 's5']);
  });
});

describe('byProject', () => {
  it('ranks exact project paths by savings', () => {
    expect(store.byProject({ limit: 10 })).toEqual([
      { project_path: '/home/u/proj', saved_tokens: 1400, input_tokens: 2000, sessions: 2 },
      { project_path: '/home/u/proj/sub', saved_tokens: 500, input_tokens: 2000, sessions: 1 },
      { project_path: WEIRD, saved_tokens: 90, input_tokens: 100, sessions: 1 },
      { project_path: '/home/u/proj-other', saved_tokens: 0, input_tokens: 500, sessions: 1 },
    ]);
    expect(store.byProject({ limit: 1 })).toHaveLength(1);
  });
});

describe('byStrategy and byTool', () => {
  it('list savings per strategy, largest first, filtered by project', () => {
    expect(store.byStrategy({ project: '/home/u/proj/sub' })).toEqual([
      { strategy: 'code_filter', saved: 300 },
      { strategy: 'dedup', saved: 200 },
    ]);
  });

  it('list savings per tool with a limit', () => {
    expect(store.byTool({ limit: 1 })).toEqual([{ tool: 'read_file', saved: 650 }]);
    expect(store.byTool({ project: WEIRD })).toEqual([{ tool: 'terminal', saved: 90 }]);
  });
});

describe('sessions', () => {
  it('sorts by saved, descending by default, with the total count', () => {
    const page = store.sessions({ limit: 10, sort: 'saved' });
    expect(page.total).toBe(5);
    expect(page.rows.map((r) => r.session_id)).toEqual(['s5', 's2', 's1', 's4', 's3']);
  });

  it('sorts by savings percentage ascending and pages with offset', () => {
    expect(
      store.sessions({ limit: 10, sort: 'savings_pct', order: 'asc' }).rows.map((r) => [r.session_id, r.savings_pct]),
    ).toEqual([
      ['s3', 0],
      ['s2', 25],
      ['s1', 40],
      ['s4', 90],
      ['s5', 100],
    ]);
    const page = store.sessions({ limit: 2, offset: 2, sort: 'started_at' });
    expect(page.rows.map((r) => r.session_id)).toEqual(['s3', 's4']);
    expect(page.total).toBe(5);
  });

  it('sorts by every documented key without error', () => {
    for (const sort of [
      'started_at',
      'saved',
      'input',
      'turns',
      'tool_calls',
      'savings_pct',
      'project_path',
      'model',
    ] as const) {
      expect(store.sessions({ limit: 5, sort }).rows).toHaveLength(5);
    }
    expect(store.sessions({ limit: 5, sort: 'turns' }).rows[0]?.session_id).toBe('s2');
    expect(store.sessions({ limit: 5, sort: 'input', order: 'asc' }).rows[0]?.session_id).toBe('s4');
  });

  it('searches id, project, model and platform case-insensitively, with % and _ taken literally', () => {
    expect(store.sessions({ limit: 10, search: 'CLAUDE' })).toMatchObject({ total: 1, rows: [{ session_id: 's2' }] });
    expect(store.sessions({ limit: 10, search: 'telegram' }).total).toBe(1);
    expect(store.sessions({ limit: 10, search: '%' }).rows.map((r) => r.session_id)).toEqual(['s4']);
    expect(store.sessions({ limit: 10, search: '_' }).rows.map((r) => r.session_id)).toEqual(['s4']);
  });

  it('combines search and project', () => {
    expect(store.sessions({ limit: 10, search: 'gpt', project: '/home/u/proj' }).rows.map((r) => r.session_id)).toEqual(
      ['s1', 's5'],
    );
  });

  it('carries the SessionRecord field names plus saved and savings_pct', () => {
    expect(store.sessions({ limit: 1 }).rows[0]).toEqual({
      session_id: 's1',
      project_path: '/home/u/proj',
      platform: 'cli',
      model: 'gpt-a',
      started_at: Date.UTC(2026, 2, 15, 10),
      ended_at: Date.UTC(2026, 2, 15, 11),
      turns: 3,
      tool_calls: 5,
      input_tokens_raw: 1000,
      input_tokens_hmc: 600,
      context_peak: 700,
      saved: 400,
      savings_pct: 40,
      model_calls: 2,
      context_tokens: 700,
      context_raw_tokens: 900,
      recalls: 1,
      rereads: 2,
      elided: 3,
    });
  });
});

describe('session', () => {
  it('gives the recorded SessionRecord back with its timeline and savings', () => {
    const { work, ...s1 } = FIVE[0]!;
    expect(store.session('s1')).toEqual({
      ...s1,
      saved: 400,
      savings_pct: 40,
      recalls: 1,
      rereads: 2,
      elided: 3,
      // Stored largest saving first.
      outputs: [...(work?.outputs ?? [])].sort((a, b) => b.tokens_raw - b.tokens_sent - (a.tokens_raw - a.tokens_sent)),
    });
  });

  it('answers null for an unknown id', () => {
    expect(store.session('nope')).toBeNull();
  });
});
