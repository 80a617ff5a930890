/**
 * Shared fixtures for the store tests: a private temp dir per test and hand-built records with
 * known numbers and dates.
 *
 * Invariant: every temp dir is removed after the test that made it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { SessionRecord } from '../../src/store/types.js';

const dirs: string[] = [];

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A fresh temp dir, removed after the test. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hmc-store-'));
  dirs.push(dir);
  return dir;
}

export function tempDb(name = 'analytics.db'): string {
  return join(tempDir(), name);
}

/** 2026-03-15 12:00:00 UTC: the clock of every windowed query in these tests. */
export const NOW = Date.UTC(2026, 2, 15, 12, 0, 0);

export function rec(partial: Partial<SessionRecord> & { session_id: string }): SessionRecord {
  return {
    project_path: '/home/u/proj',
    platform: 'cli',
    model: 'gpt-a',
    started_at: NOW,
    ended_at: null,
    turns: 1,
    tool_calls: 0,
    input_tokens_raw: 0,
    input_tokens_hmc: 0,
    context_peak: 0,
    by_strategy: {},
    by_tool: {},
    timeline: [],
    ...partial,
  };
}

export const WEIRD = '/home/u/we[ird]*?%_ dir';

/**
 * Five sessions (saved / input): s1 400/1000 and s2 500/2000 in /home/u/proj(/sub) this month,
 * s3 0/500 in a sibling path at the end of February, s4 90/100 in a path full of GLOB and LIKE
 * metacharacters on New Year's Day, s5 1000/1000 in /home/u/proj 50 weeks ago.
 */
export const FIVE: SessionRecord[] = [
  rec({
    session_id: 's1',
    started_at: Date.UTC(2026, 2, 15, 10, 0, 0),
    ended_at: Date.UTC(2026, 2, 15, 11, 0, 0),
    turns: 3,
    tool_calls: 5,
    input_tokens_raw: 1000,
    input_tokens_hmc: 600,
    context_peak: 700,
    by_strategy: { dedup: 300, truncation: 100 },
    by_tool: { terminal: 250, read_file: 150 },
    timeline: [
      { turn: 1, time: Date.UTC(2026, 2, 15, 10, 0, 0), context_tokens: 300, context_percent: 0.1, input_raw: 400, input_hmc: 300, tool_calls: 2 },
      { turn: 2, time: Date.UTC(2026, 2, 15, 10, 20, 0), context_tokens: 700, context_percent: 0.25, input_raw: 600, input_hmc: 300, tool_calls: 3 },
    ],
  }),
  rec({
    session_id: 's2',
    project_path: '/home/u/proj/sub',
    platform: 'telegram',
    model: 'claude',
    started_at: Date.UTC(2026, 2, 14, 9, 0, 0),
    turns: 4,
    tool_calls: 2,
    input_tokens_raw: 2000,
    input_tokens_hmc: 1500,
    by_strategy: { dedup: 200, code_filter: 300 },
    by_tool: { read_file: 500 },
  }),
  rec({
    session_id: 's3',
    project_path: '/home/u/proj-other',
    started_at: Date.UTC(2026, 1, 28, 23, 59, 59),
    input_tokens_raw: 500,
    input_tokens_hmc: 500,
  }),
  rec({
    session_id: 's4',
    project_path: WEIRD,
    started_at: Date.UTC(2026, 0, 1, 0, 0, 0),
    input_tokens_raw: 100,
    input_tokens_hmc: 10,
    by_strategy: { short_circuit: 90 },
    by_tool: { terminal: 90 },
  }),
  rec({
    session_id: 's5',
    started_at: Date.UTC(2025, 2, 31, 8, 0, 0),
    input_tokens_raw: 1000,
    input_tokens_hmc: 0,
    by_strategy: { background_compression: 1000 },
  }),
];
