/**
 * Session index benchmark: 10,000 summarised phases across 1,000 sessions (summaries of about
 * 2,000 characters, written like layer 1's handoff sections), in the analytics file (FTS5, and the
 * LIKE scan of a SQLite without FTS5) and in JSONL index files; times recording, listing and every
 * search form, p50 and p95 over repeated runs.
 *
 * Run: npx tsx bench/phases.ts   (HMC_BENCH_PHASES=N, HMC_BENCH_PHASE_SESSIONS=M to change the size)
 * Invariant: deterministic data (seeded generator); the temp dir is removed afterwards.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { openStore } from '../src/store/db.js';
import { createPhaseDbReader } from '../src/store/phase-db-search.js';
import { listPhaseFiles } from '../src/store/phase-file.js';
import { createPhaseIndex } from '../src/store/phase-index.js';
import type { PhaseEntry } from '../src/store/phase-types.js';
import { rng as random } from '../test/helpers/random.js';

const RUNS = 15;
const WORDS = (
  'build test suite flaky retention clock migration schema index query planner payment webhook signing key rotate deploy worker ' +
  'release notes changelog parser tokenizer lint typecheck refactor module import cache prompt session summary recall dashboard panel ' +
  'search snippet route handler server client socket timeout retry backoff queue batch transaction sqlite vacuum checkpoint wal fsync ' +
  'config yaml watcher reload bridge sidecar hermes plugin hook strategy truncation dedup error purge window context budget price'
).split(' ');
const RARE = ['zeppelin', 'quokka', 'marzipan', 'oboe', 'fjord'];

function sentence(rnd: () => number, n: number): string {
  const words = Array.from({ length: n }, () => WORDS[Math.floor(rnd() * WORDS.length)] ?? 'x');
  if (rnd() < 0.01) words[Math.floor(rnd() * n)] = RARE[Math.floor(rnd() * RARE.length)] ?? 'x';
  return words.join(' ');
}

export function phases(count: number, sessions: number, seed = 7): PhaseEntry[] {
  const rnd = random(seed);
  const out: PhaseEntry[] = [];
  const perSession = Math.max(1, Math.round(count / sessions));
  const now = Date.now();
  for (let i = 0; i < count; i++) {
    const s = Math.floor(i / perSession);
    const n = (i % perSession) + 1;
    const sections = [
      '## Goal',
      sentence(rnd, 14),
      '',
      '## Progress',
      ...Array.from({ length: 8 }, () => `- ${sentence(rnd, 18)}.`),
      '',
      '## Decisions',
      ...Array.from({ length: 4 }, () => `- ${sentence(rnd, 14)}.`),
      '',
      '## Files',
      `- src/${WORDS[i % WORDS.length]}/${WORDS[(i * 7) % WORDS.length]}.ts`,
      '',
      '## Next',
      `- ${sentence(rnd, 12)}.`,
    ];
    out.push({
      session_id: `20261120_${String(s).padStart(6, '0')}_${((s * 2654435761) >>> 0).toString(16)}`,
      phase_id: n,
      message_from: n * 30,
      message_to: n * 30 + 29,
      turn_from: n * 3 - 2,
      turn_to: n * 3,
      topic: sentence(rnd, 5),
      summary: sections.join('\n'),
      tokens_before: 8000 + Math.floor(rnd() * 20000),
      tokens_after: 600 + Math.floor(rnd() * 900),
      recall_id: `p${i.toString(16).padStart(10, '0')}`,
      model: 'aux',
      created_at: now - (count - i) * 60_000,
      updates: 0,
    });
  }
  return out;
}

function time(fn: () => unknown, runs = RUNS): { p50: number; p95: number } {
  const ms: number[] = [];
  fn(); // warm
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return {
    p50: ms[Math.floor(ms.length / 2)] ?? 0,
    p95: ms[Math.min(ms.length - 1, Math.ceil(ms.length * 0.95) - 1)] ?? 0,
  };
}

export interface Row {
  name: string;
  value: string;
}

export function runPhasesBench(
  count = Number(process.env.HMC_BENCH_PHASES ?? 10_000),
  sessions = Number(process.env.HMC_BENCH_PHASE_SESSIONS ?? 1_000),
): Row[] {
  const dir = mkdtempSync(join(tmpdir(), 'hmc-bench-phases-'));
  const rows: Row[] = [];
  const ms = (r: { p50: number; p95: number }) => `p50 ${r.p50.toFixed(2)} ms, p95 ${r.p95.toFixed(2)} ms`;
  try {
    const data = phases(count, sessions);
    const chars = data.reduce((n, p) => n + p.summary.length, 0);
    rows.push({
      name: 'phases / sessions / summary text',
      value: `${count} / ${sessions} / ${(chars / 1e6).toFixed(1)} M characters`,
    });
    const one = data[Math.floor(data.length / 2)]?.session_id ?? '';

    const dbPath = join(dir, 'analytics.db');
    const db = openStore(dbPath);
    let t = performance.now();
    for (let i = 0; i < data.length; i += 500) db.recordPhases(data.slice(i, i + 500));
    rows.push({
      name: 'record into SQLite + FTS5 (batches of 500)',
      value: `${(performance.now() - t).toFixed(0)} ms (${(((performance.now() - t) / count) * 1000).toFixed(0)} µs a phase), file ${(statSync(dbPath).size / 1e6).toFixed(1)} MB`,
    });
    t = performance.now();
    db.recordPhases([{ ...data[0]!, summary: `${data[0]!.summary}\n- one more line`, updates: 1 }]);
    rows.push({
      name: 'update one phase (upsert, FTS5 kept in step)',
      value: `${(performance.now() - t).toFixed(2)} ms`,
    });
    for (const [name, q] of [
      ['common word', 'build'],
      ['two words', 'flaky retention'],
      ['prefix', 'migr'],
      ['rare word', 'zeppelin'],
      ['no match', 'xylophone'],
    ] as const) {
      rows.push({
        name: `FTS5, all sessions, ${name} (limit 10)`,
        value: ms(time(() => db.searchPhases(q, { limit: 10 }))),
      });
    }
    rows.push({
      name: 'FTS5, one session, common word',
      value: ms(time(() => db.searchPhases('build', { limit: 10, sessionId: one }))),
    });
    rows.push({ name: "a session's phases from SQLite", value: ms(time(() => db.phases(one))) });
    rows.push({
      name: 'open read-only + search + close (a cold connection)',
      value: ms(
        time(() => {
          const r = openStore(dbPath, { readonly: true, check: false });
          r.searchPhases('flaky retention', { limit: 10 });
          r.close();
        }),
      ),
    });
    const reader = createPhaseDbReader(() => dbPath);
    rows.push({
      name: 'hmc_control index scope=global (kept connection)',
      value: ms(time(() => reader.search('flaky retention', { limit: 10 }))),
    });
    reader.close();
    db.close();

    const like = openStore(dbPath, { fts: false, log: () => {} });
    for (const [name, q] of [
      ['common word', 'build'],
      ['rare word', 'zeppelin'],
      ['no match', 'xylophone'],
    ] as const) {
      rows.push({
        name: `LIKE scan (no FTS5), all sessions, ${name}`,
        value: ms(time(() => like.searchPhases(q, { limit: 10 }), 5)),
      });
    }
    like.close();

    const stateDir = join(dir, 'state');
    const index = createPhaseIndex({ stateDir, log: (l) => process.stderr.write(`${l}\n`) });
    t = performance.now();
    for (const p of data) index.record(p);
    index.flush();
    rows.push({
      name: 'record into JSONL index files',
      value: `${(performance.now() - t).toFixed(0)} ms for ${listPhaseFiles(stateDir).length} files`,
    });
    t = performance.now();
    index.record({ ...data[1]!, summary: `${data[1]!.summary}\n- updated`, updates: 1 });
    index.flush();
    rows.push({ name: 'update one phase in its file (rewrite)', value: `${(performance.now() - t).toFixed(2)} ms` });
    const fresh = createPhaseIndex({ stateDir, log: () => {} });
    rows.push({ name: "a session's phases from its file (hmc_control index)", value: ms(time(() => fresh.list(one))) });
    rows.push({
      name: "search one session's file (the default scope)",
      value: ms(time(() => fresh.search('flaky retention', { limit: 10, sessionId: one }))),
    });
    for (const [name, q] of [
      ['common word', 'build'],
      ['rare word', 'zeppelin'],
    ] as const) {
      rows.push({
        name: `scan of every file (analytics off), ${name}`,
        value: ms(time(() => fresh.search(q, { limit: 10 }), 3)),
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const r of runPhasesBench()) process.stdout.write(`${r.name.padEnd(58)} ${r.value}\n`);
}
