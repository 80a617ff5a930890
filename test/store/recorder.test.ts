/**
 * The recorder: never blocks or throws on the hook path, keeps the latest picture per session,
 * retries a locked database, survives a full or read-only disk and a corrupt file, and stays
 * exact with two writer processes.
 */
import Database from 'better-sqlite3';
import { fork } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { createRecorder, openStore, StoreError, type AnalyticsStore } from '../../src/store/index.js';
import { FIVE, NOW, rec, tempDb, tempDir } from './helpers.js';

const here = dirname(fileURLToPath(import.meta.url));

function totals(path: string): { saved: number; sessions: number } {
  const store = openStore(path, { readonly: true });
  const s = store.summary();
  store.close();
  return { saved: s.total_saved, sessions: s.total_sessions };
}

describe('record()', () => {
  it('returns before writing and keeps only the latest record per session', async () => {
    const path = tempDb();
    const recorder = createRecorder({ path, retentionDays: 36_500, log: () => {} });
    for (let i = 1; i <= 3; i++)
      recorder.record(rec({ session_id: 'a', input_tokens_raw: 100 * i, input_tokens_hmc: 50 * i }));
    expect(recorder.pending).toBe(1);
    await recorder.flush();
    expect(recorder.pending).toBe(0);
    expect(totals(path)).toEqual({ saved: 150, sessions: 1 });
    await recorder.close();
  });

  it('writes on its own, off the hook path', async () => {
    const path = tempDb();
    const recorder = createRecorder({ path, retentionDays: 36_500, log: () => {} });
    recorder.record(FIVE[0]!);
    await vi.waitFor(() => expect(recorder.pending).toBe(0));
    expect(totals(path).saved).toBe(400);
    await recorder.close();
  });

  it('logs and drops a record it can never store, without throwing', async () => {
    const lines: string[] = [];
    const recorder = createRecorder({ path: tempDb(), retentionDays: 30, log: (l) => lines.push(l) });
    expect(() => recorder.record(rec({ session_id: '' }))).not.toThrow();
    expect(() => recorder.record(rec({ session_id: 'x', started_at: Number.NaN }))).not.toThrow();
    expect(recorder.pending).toBe(0);
    expect(lines).toEqual([
      'analytics: session not recorded: session_id must be a non-empty string',
      'analytics: session not recorded: started_at must be milliseconds since the epoch, got NaN',
    ]);
    await recorder.close();
  });

  it('ignores records after close()', async () => {
    const recorder = createRecorder({ path: tempDb(), retentionDays: 30, log: () => {} });
    await recorder.close();
    recorder.record(FIVE[0]!);
    expect(recorder.pending).toBe(0);
  });
});

describe('faults', () => {
  it('retries a database locked by another writer and writes once the lock is released', async () => {
    const path = tempDb();
    openStore(path).close();
    const other = new Database(path);
    other.exec('BEGIN IMMEDIATE');
    const lines: string[] = [];
    const recorder = createRecorder({ path, retentionDays: 36_500, log: (l) => lines.push(l), flushDeadlineMs: 100 });
    recorder.record(FIVE[0]!);
    await recorder.flush(); // gives up after the deadline, without throwing
    expect(recorder.pending).toBe(1);
    other.exec('COMMIT');
    other.close();
    await vi.waitFor(() => expect(recorder.pending).toBe(0), { timeout: 5000 });
    expect(totals(path).saved).toBe(400);
    expect(lines.filter((l) => /fail|error/i.test(l))).toEqual([]);
    await recorder.close();
  });

  it('moves a corrupt file aside to <name>.corrupt-<timestamp>, says so, and starts a fresh one', async () => {
    const dir = tempDir();
    const path = join(dir, 'analytics.db');
    writeFileSync(path, 'this is not a database\n'.repeat(500));
    const lines: string[] = [];
    const recorder = createRecorder({ path, retentionDays: 36_500, log: (l) => lines.push(l) });
    recorder.record(FIVE[0]!);
    await recorder.flush();
    expect(recorder.pending).toBe(0);
    const aside = readdirSync(dir).filter((f) => f.startsWith('analytics.db.corrupt-'));
    expect(aside).toHaveLength(1);
    expect(
      lines.some((l) => l.includes(`moved it to ${join(dir, aside[0]!)}`) && l.includes('started a fresh database')),
    ).toBe(true);
    expect(totals(path).saved).toBe(400);
    await recorder.close();
  });

  function faultyOpen(code: string, failures: { left: number }): typeof openStore {
    return (path, opts) => {
      const real = openStore(path, opts);
      const faulty: AnalyticsStore = Object.create(real) as AnalyticsStore;
      faulty.recordSessions = (recs) => {
        if (failures.left-- > 0) throw new StoreError(code, `analytics write failed: ${code.toLowerCase()}`);
        real.recordSessions(recs);
      };
      faulty.close = () => real.close();
      return faulty;
    };
  }

  for (const [code, words] of [
    ['SQLITE_FULL', 'disk full'],
    ['SQLITE_READONLY', 'read-only'],
  ] as const) {
    it(`logs ${code} once, keeps the sessions and writes them when the disk recovers`, async () => {
      const path = tempDb();
      const lines: string[] = [];
      const failures = { left: 3 };
      const recorder = createRecorder({
        path,
        retentionDays: 36_500,
        log: (l) => lines.push(l),
        open: faultyOpen(code, failures),
      });
      recorder.record(FIVE[0]!);
      await recorder.flush();
      recorder.record(FIVE[1]!);
      await recorder.flush();
      await recorder.flush();
      expect(recorder.pending).toBe(2);
      expect(lines.filter((l) => l.includes(words))).toHaveLength(1);
      await recorder.flush();
      expect(recorder.pending).toBe(0);
      expect(lines.at(-1)).toMatch(/writing to .* again/);
      expect(totals(path)).toEqual({ saved: 900, sessions: 2 });
      await recorder.close();
    });
  }

  it('runs retention on its timer', async () => {
    const path = tempDb();
    const recorder = createRecorder({ path, retentionDays: 1, log: () => {}, retentionIntervalMs: 20 });
    recorder.record(
      rec({
        session_id: 'old',
        started_at: Date.now() - 3 * 86_400_000,
        ended_at: Date.now() - 2 * 86_400_000,
        input_tokens_raw: 10,
      }),
    );
    recorder.record(rec({ session_id: 'new', started_at: Date.now(), input_tokens_raw: 10 }));
    await recorder.flush();
    await vi.waitFor(() => expect(totals(path).sessions).toBe(1), { timeout: 5000 });
    await recorder.close();
  });
});

describe('two writer processes', () => {
  it('record 10,000 sessions each into one file with exact totals', async () => {
    const path = tempDb();
    openStore(path).close();
    const count = 10_000;
    const run = (prefix: string): Promise<{ code: number | null; pending: number; logs: string[] }> =>
      new Promise((resolve, reject) => {
        const child = fork(join(here, 'fixtures', 'writer.ts'), [path, prefix, String(count)], {
          execArgv: ['--import', 'tsx'],
          stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        });
        let report = { pending: -1, logs: [] as string[] };
        child.on('message', (m) => (report = m as typeof report));
        child.on('error', reject);
        child.on('exit', (code) => resolve({ code, ...report }));
      });
    const results = await Promise.all([run('a'), run('b')]);
    for (const r of results) {
      expect(r).toMatchObject({ code: 0, pending: 0 });
      // Contention is expected (retention at open may find the other writer busy); failures are not.
      expect(r.logs.filter((l) => !l.includes('retention skipped at open'))).toEqual([]);
    }
    // Session i saves (i % 7) + 1 tokens.
    let perWriter = 0;
    for (let i = 0; i < count; i++) perWriter += (i % 7) + 1;
    const store = openStore(path, { readonly: true });
    expect(store.summary()).toMatchObject({
      total_sessions: 2 * count,
      total_saved: 2 * perWriter,
      total_input: 2 * (perWriter + 10 * count),
    });
    expect(store.summary({ project: '/work/a' }).total_saved).toBe(perWriter);
    const s = store.summary();
    expect(s.by_strategy.dedup! + s.by_strategy.truncation!).toBe(2 * perWriter);
    expect(s.by_tool).toEqual({ terminal: 2 * perWriter });
    store.close();
  }, 30_000);
});

describe('start-up', () => {
  it('opens the database and applies retention soon after creation, before any session is recorded', async () => {
    const path = tempDb();
    const seed = openStore(path);
    seed.recordSession(
      rec({ session_id: 'old', started_at: NOW - 400 * 86_400_000, ended_at: NOW - 399 * 86_400_000 }),
    );
    seed.close();
    const recorder = createRecorder({ path, retentionDays: 30, log: () => {} });
    await vi.waitFor(() => expect(totals(path).sessions).toBe(0));
    await recorder.close();
  });
});
