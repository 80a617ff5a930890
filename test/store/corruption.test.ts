/**
 * Issue 11, fault 3: a database damaged while a writer runs went unnoticed (nothing logged, nothing
 * moved aside, `hmc analytics` still answered, and at exit the file failed integrity_check). Here
 * the damage is injected under a running recorder, on a page no later write touches, so only the
 * check on a fresh connection can see it.
 */
import { existsSync, openSync, readdirSync, closeSync, writeFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/db.js';
import { StoreError } from '../../src/store/errors.js';
import { checkFile } from '../../src/store/integrity.js';
import { createRecorder } from '../../src/store/recorder.js';
import type { SessionRecord } from '../../src/store/types.js';
import { tempDb } from './helpers.js';

function session(i: number): SessionRecord {
  return {
    session_id: `s${String(i).padStart(5, '0')}`,
    project_path: '/work/p',
    platform: 'cli',
    model: 'm',
    started_at: Date.now() - 1000,
    ended_at: Date.now(),
    turns: 3,
    tool_calls: 2,
    input_tokens_raw: 1000,
    input_tokens_hmc: 600,
    context_peak: 500,
    by_strategy: { truncation: 300, dedup: 100 },
    by_tool: { terminal: 400 },
    timeline: [1, 2, 3].map((turn) => ({
      turn,
      time: Date.now(),
      context_tokens: 100 * turn,
      context_percent: 0.1,
      input_raw: 300,
      input_hmc: 200,
      tool_calls: 1,
    })),
  };
}

/** Overwrites one page of `table` (from the middle of its b-tree) with garbage, as a bad disk or a stray write would. */
function damagePageOf(path: string, table: string): number {
  const db = new Database(path, { readonly: true });
  const pages = db
    .prepare('SELECT pageno FROM dbstat WHERE name = ? AND pagetype = ? ORDER BY pageno')
    .all(table, 'leaf') as { pageno: number }[];
  const pageSize = Number(db.pragma('page_size', { simple: true }));
  db.close();
  const page = pages[Math.floor(pages.length / 2)]?.pageno ?? 0;
  const fd = openSync(path, 'r+');
  writeSync(fd, Buffer.alloc(pageSize, 0x5a), 0, pageSize, (page - 1) * pageSize);
  closeSync(fd);
  return page;
}

async function seeded(count: number): Promise<string> {
  const path = tempDb();
  const first = createRecorder({ path, retentionDays: 36_500, log: () => undefined });
  for (let i = 0; i < count; i++) first.record(session(i));
  await first.close(); // the last connection closes: everything is checkpointed into the file
  return path;
}

describe('a database damaged while a writer runs', () => {
  it('is detected, moved aside, started afresh and refilled, with one log line (regression: nothing was noticed)', async () => {
    const path = await seeded(400);
    const logs: string[] = [];
    const recorder = createRecorder({ path, retentionDays: 36_500, log: (l) => logs.push(l), checkIntervalMs: 0 });
    recorder.record(session(1000));
    await recorder.flush();
    damagePageOf(path, 'session_turn');
    // Later writes touch only their own pages: SQLite itself says nothing.
    recorder.record(session(1001));
    await recorder.flush();
    recorder.record(session(1002));
    await recorder.close();
    const damaged = logs.filter((l) => l.includes('is damaged'));
    expect(damaged, logs.join('\n')).toHaveLength(1);
    expect(damaged[0]).toMatch(
      /moved it to .*analytics\.db\.corrupt-.*, started a fresh database and copied back \d+ of 402 session\(s\)/,
    );
    const aside = readdirSync(dirname(path)).filter(
      (n) => n.startsWith('analytics.db.corrupt-') && !n.endsWith('-wal') && !n.endsWith('-shm'),
    );
    expect(aside).toHaveLength(1);
    // The fresh file is sound and holds every session: the sessions table itself was not damaged.
    expect(checkFile(path, 'full')).toBeNull();
    const store = openStore(path, { readonly: true });
    expect(store.summary().total_sessions).toBe(403);
    store.close();
  });

  it("is found at the writer's close when no write came after the damage", async () => {
    const path = await seeded(300);
    const logs: string[] = [];
    const recorder = createRecorder({ path, retentionDays: 36_500, log: (l) => logs.push(l) });
    recorder.record(session(2000));
    await recorder.flush();
    damagePageOf(path, 'session_strategy');
    await recorder.close();
    expect(logs.filter((l) => l.includes('is damaged'))).toHaveLength(1);
    expect(checkFile(path, 'full')).toBeNull();
  });

  it('a file that is not a database at all is moved aside on the first write', async () => {
    const path = tempDb();
    writeFileSync(path, 'these are not the bytes of a database\n'.repeat(200));
    const logs: string[] = [];
    const recorder = createRecorder({ path, retentionDays: 30, log: (l) => logs.push(l) });
    recorder.record(session(1));
    await recorder.close();
    expect(logs.filter((l) => l.includes('is damaged'))).toHaveLength(1);
    expect(logs[0]).toContain('not a SQLite database');
    expect(checkFile(path, 'full')).toBeNull();
  });
});

describe('opening a damaged file', () => {
  it('throws SQLITE_CORRUPT for a reader instead of answering from it (regression: hmc analytics still answered)', async () => {
    const path = await seeded(300);
    damagePageOf(path, 'session_turn');
    let error: unknown;
    try {
      openStore(path, { readonly: true }).close();
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).code).toBe('SQLITE_CORRUPT');
    expect((error as StoreError).message).toContain(path);
  });

  it('throws SQLITE_NOTADB for a file that is not a database', () => {
    const path = tempDb();
    writeFileSync(path, 'hello');
    expect(() => openStore(path, { readonly: true })).toThrow(/not a SQLite database/);
    expect(existsSync(path)).toBe(true);
  });
});
