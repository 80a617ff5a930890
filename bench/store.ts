/**
 * Analytics store benchmark (DESIGN §12: queries on a year of history under 50 ms). Builds a
 * year of history in a temp file (30,000 sessions with strategies, tools and per-turn timelines,
 * about a million rows), then times every query form: p50 and p95 over repeated runs.
 *
 * Run: npx tsx bench/store.ts   (HMC_BENCH_SESSIONS=N to change the size)
 * Invariant: deterministic data (seeded generator); the temp file is removed afterwards.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { analyticsAction, openStore, SESSION_SORTS, type AnalyticsStore } from '../src/store/index.js';
import type { SessionRecord, TurnPoint } from '../src/store/types.js';
import { rng as random } from '../test/helpers/random.js';

export interface Row {
  name: string;
  p50_ms: number;
  p95_ms: number;
  runs: number;
  /** Under the 50 ms budget. */
  ok: boolean;
}

const BUDGET_MS = 50;
const RUNS = 25;
const DAY = 86_400_000;
const STRATEGIES = ['short_circuit', 'code_filter', 'truncation', 'dedup', 'error_purge', 'background_compression'];
const TOOLS = [
  'terminal',
  'read_file',
  'search_files',
  'write_file',
  'patch',
  'web_search',
  'web_extract',
  'browser_navigate',
  'execute_code',
  'delegate_task',
  'mcp_github_search',
  'todo',
];
const MODELS = ['claude-sonnet-4', 'gpt-5', 'kimi-k2', 'qwen3-coder', 'hermes-4-405b'];
const PLATFORMS = ['cli', 'telegram', 'discord', 'slack', 'demo'];

function session(i: number, now: number, rnd: () => number, projects: string[]): SessionRecord {
  const started = now - Math.floor(rnd() * 365 * DAY);
  const turns = 10 + Math.floor(rnd() * 21); // 10..30, 20 on average
  const timeline: TurnPoint[] = [];
  let raw = 0;
  let hmc = 0;
  for (let t = 1; t <= turns; t++) {
    const r = 2000 + Math.floor(rnd() * 20_000);
    const h = Math.floor(r * (0.4 + rnd() * 0.6));
    raw += r;
    hmc += h;
    timeline.push({
      turn: t,
      time: started + t * 60_000,
      context_tokens: r,
      context_percent: r / 200_000,
      input_raw: r,
      input_hmc: h,
      tool_calls: 1 + Math.floor(rnd() * 4),
    });
  }
  const saved = raw - hmc;
  const split = (names: string[], k: number): Record<string, number> => {
    const out: Record<string, number> = {};
    let left = saved;
    for (let j = 0; j < k; j++) {
      const name = names[(i + j * 7) % names.length]!;
      const part = j === k - 1 ? left : Math.floor(left * rnd() * 0.6);
      out[name] = (out[name] ?? 0) + part;
      left -= part;
    }
    return out;
  };
  return {
    session_id: `bench-${i.toString(36).padStart(6, '0')}`,
    project_path: projects[Math.floor(rnd() ** 2 * projects.length)]!,
    platform: PLATFORMS[i % PLATFORMS.length]!,
    model: MODELS[Math.floor(rnd() * MODELS.length)]!,
    started_at: started,
    ended_at: started + turns * 60_000,
    turns,
    tool_calls: timeline.reduce((a, p) => a + p.tool_calls, 0),
    input_tokens_raw: raw,
    input_tokens_hmc: hmc,
    context_peak: Math.max(...timeline.map((p) => p.context_tokens)),
    by_strategy: split(STRATEGIES, 5),
    by_tool: split(TOOLS, 8),
    timeline,
  };
}

/** Fills the store; returns the number of rows written across the tables. */
function build(store: AnalyticsStore, sessions: number, now: number, projects: string[]): number {
  const rnd = random(42);
  let rows = 0;
  for (let i = 0; i < sessions; i += 1000) {
    const batch: SessionRecord[] = [];
    for (let j = i; j < Math.min(i + 1000, sessions); j++) {
      const s = session(j, now, rnd, projects);
      rows += 1 + Object.keys(s.by_strategy).length + Object.keys(s.by_tool).length + s.timeline.length;
      batch.push(s);
    }
    store.recordSessions(batch);
  }
  return rows;
}

function time(name: string, fn: () => unknown): Row {
  fn(); // warm the page cache and the statement
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    fn();
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number): number =>
    Math.round(samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]! * 100) / 100;
  return { name, p50_ms: at(0.5), p95_ms: at(0.95), runs: RUNS, ok: at(0.5) < BUDGET_MS };
}

export async function runStoreBench(opts: { sessions?: number; log?: (line: string) => void } = {}): Promise<Row[]> {
  const sessions = opts.sessions ?? Number(process.env.HMC_BENCH_SESSIONS ?? 30_000);
  const log = opts.log ?? (() => {});
  const dir = mkdtempSync(join(tmpdir(), 'hmc-bench-store-'));
  const path = join(dir, 'analytics.db');
  const now = Date.UTC(2026, 5, 30, 12);
  const projects = Array.from(
    { length: 40 },
    (_, i) => `/home/dev/src/project-${i}${i % 4 === 0 ? '/packages/core' : ''}`,
  );
  const project = '/home/dev/src/project-0';
  try {
    const writer = openStore(path, { now: () => now });
    const t0 = performance.now();
    const rows = build(writer, sessions, now, projects);
    const buildMs = performance.now() - t0;
    log(
      `built ${sessions.toLocaleString('en-US')} sessions, ${rows.toLocaleString('en-US')} rows in ${(buildMs / 1000).toFixed(1)} s`,
    );
    const rec = session(sessions, now, random(7), projects);
    const results: Row[] = [time('recordSession (upsert, 20-turn session)', () => writer.recordSession(rec))];
    writer.close();

    const store = openStore(path, { readonly: true, now: () => now });
    const ctx = { project, now };
    const some = store.recent({ limit: 1 })[0]!.session_id;
    const forms: [string, () => unknown][] = [
      ['summary', () => store.summary()],
      ['summary (project)', () => store.summary({ project })],
      ['byDay 30', () => store.byDay({ days: 30 })],
      ['byDay 365', () => store.byDay({ days: 365 })],
      ['byDay 30 (project)', () => store.byDay({ days: 30, project })],
      ['byMonth 12', () => store.byMonth({ months: 12 })],
      ['byMonth 12 (project)', () => store.byMonth({ months: 12, project })],
      ['recent 10', () => store.recent({ limit: 10 })],
      ['recent 10 (project)', () => store.recent({ limit: 10, project })],
      ['byProject 20', () => store.byProject({ limit: 20 })],
      ['byStrategy', () => store.byStrategy()],
      ['byStrategy (project)', () => store.byStrategy({ project })],
      ['byTool 20', () => store.byTool({ limit: 20 })],
      ['byTool (project)', () => store.byTool({ project })],
      ...SESSION_SORTS.map((sort): [string, () => unknown] => [
        `sessions sort=${sort} 50`,
        () => store.sessions({ limit: 50, sort }),
      ]),
      [
        'sessions sort=saved asc offset 20000',
        () => store.sessions({ limit: 50, offset: 20_000, sort: 'saved', order: 'asc' }),
      ],
      ['sessions search "kimi"', () => store.sessions({ limit: 50, search: 'kimi' })],
      ['sessions (project) sort=savings_pct', () => store.sessions({ limit: 50, project, sort: 'savings_pct' })],
      ['session(id) with timeline', () => store.session(some)],
      ['action default (all)', () => analyticsAction(store, {}, ctx)],
      ['action scope=project', () => analyticsAction(store, { scope: 'project' }, ctx)],
      ['action period=day', () => analyticsAction(store, { period: 'day' }, ctx)],
      ['action period=month', () => analyticsAction(store, { period: 'month' }, ctx)],
    ];
    for (const [name, fn] of forms) results.push(time(name, fn));
    store.close();
    return results;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function formatRows(rows: readonly Row[]): string {
  const w = Math.max(...rows.map((r) => r.name.length), 'query'.length);
  const lines = [`${'query'.padEnd(w)}  ${'p50 ms'.padStart(8)}  ${'p95 ms'.padStart(8)}  budget`];
  for (const r of rows)
    lines.push(
      `${r.name.padEnd(w)}  ${r.p50_ms.toFixed(2).padStart(8)}  ${r.p95_ms.toFixed(2).padStart(8)}  ${r.ok ? 'ok' : `OVER ${BUDGET_MS} ms`}`,
    );
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await runStoreBench({ log: (l) => console.log(l) });
  console.log(formatRows(rows));
  process.exitCode = rows.every((r) => r.ok) ? 0 : 1;
}
