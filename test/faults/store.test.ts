/**
 * Fault suite, the analytics store (docs/faults.md): a full disk, a read-only disk, a damaged file
 * and a writer killed in the middle of its writes. Each recovers without a restart; what was lost
 * and how long recovery took are recorded (figures.ts). The full and read-only disks are a real
 * tmpfs of 1 MiB where mounting is permitted (injected SQLITE_FULL / SQLITE_READONLY always run in
 * test/store/recorder.test.ts).
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/db.js';
import { checkFile } from '../../src/store/integrity.js';
import { createRecorder } from '../../src/store/recorder.js';
import type { SessionRecord } from '../../src/store/types.js';
import { mountTinyFs, tinyFsUnavailable, type TinyFs } from '../helpers/tiny-fs.js';
import { tempDir } from '../store/helpers.js';
import { recordFigure, until } from './figures.js';

const ROOT = join(import.meta.dirname, '..', '..');
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

function session(i: number): SessionRecord {
  return {
    session_id: `f${i}`,
    project_path: '/p',
    platform: 'cli',
    model: 'm',
    started_at: Date.now(),
    ended_at: null,
    turns: 2,
    tool_calls: 1,
    input_tokens_raw: 100,
    input_tokens_hmc: 60,
    context_peak: 50,
    by_strategy: { truncation: 40 },
    by_tool: { terminal: 40 },
    timeline: [
      {
        turn: 1,
        time: Date.now(),
        context_tokens: 10,
        context_percent: 0.1,
        input_raw: 100,
        input_hmc: 60,
        tool_calls: 1,
      },
    ],
  };
}

const sessionsIn = (path: string): number => {
  const store = openStore(path, { readonly: true });
  try {
    return store.summary().total_sessions;
  } finally {
    store.close();
  }
};

const skip = tinyFsUnavailable();
const note = skip ? ` (skipped: ${skip})` : '';

describe('fault suite: the analytics store', () => {
  it.skipIf(skip !== null)(`full disk: sessions wait in memory and are written once space returns${note}`, async () => {
    // Room for the database and its WAL; the filler takes the rest.
    const fs = mountTinyFs(1024 * 1024) as TinyFs;
    cleanups.push(() => fs.unmount());
    const path = join(fs.dir, 'analytics.db');
    const logs: string[] = [];
    const recorder = createRecorder({ path, retentionDays: 30, log: (l) => logs.push(l) });
    recorder.record(session(0));
    await recorder.flush();
    fs.fill();
    for (let i = 1; i <= 40; i++) recorder.record(session(i));
    await until(() => logs.some((l) => l.includes('disk full'))).catch((err: unknown) => {
      throw new Error(`${String(err)}: ${logs.join(' / ')}`);
    });
    fs.free();
    const recoveredMs = await until(() => recorder.pending === 0, 25_000).catch((err: unknown) => {
      throw new Error(`${String(err)}: ${logs.join(' / ')}`);
    });
    await recorder.close();
    expect(logs.filter((l) => l.includes('disk full'))).toHaveLength(1);
    expect(sessionsIn(path)).toBe(41);
    expect(checkFile(path, 'full')).toBeNull();
    recordFigure({
      area: 'store',
      fault: 'disk full (tmpfs)',
      lost: 'nothing (40 sessions waited in memory)',
      recoveredMs,
    });
  });

  it.skipIf(skip !== null)(
    `read-only disk: sessions wait in memory and are written once it is writable${note}`,
    async () => {
      const fs = mountTinyFs(512 * 1024) as TinyFs;
      cleanups.push(() => fs.unmount());
      const path = join(fs.dir, 'analytics.db');
      const logs: string[] = [];
      const recorder = createRecorder({ path, retentionDays: 30, log: (l) => logs.push(l) });
      recorder.record(session(0));
      await recorder.close(); // checkpointed: the file holds everything
      const again = createRecorder({ path, retentionDays: 30, log: (l) => logs.push(l) });
      fs.readOnly();
      for (let i = 1; i <= 20; i++) again.record(session(i));
      await until(() => logs.some((l) => /read-only|readonly/i.test(l)));
      fs.readWrite();
      const recoveredMs = await until(() => again.pending === 0, 90_000);
      await again.close();
      expect(sessionsIn(path)).toBe(21);
      recordFigure({
        area: 'store',
        fault: 'read-only disk (tmpfs remounted ro)',
        lost: 'nothing (20 sessions waited in memory)',
        recoveredMs,
      });
    },
  );

  it('damaged file: found, moved aside, a fresh file with every readable session, no restart', async () => {
    const path = join(tempDir(), 'analytics.db');
    const first = createRecorder({ path, retentionDays: 36_500, log: () => undefined });
    for (let i = 0; i < 300; i++) first.record(session(i));
    await first.close();
    const logs: string[] = [];
    const recorder = createRecorder({ path, retentionDays: 36_500, log: (l) => logs.push(l), checkIntervalMs: 0 });
    recorder.record(session(1000));
    await recorder.flush();
    const db = new Database(path, { readonly: true });
    const page =
      (
        db
          .prepare("SELECT pageno FROM dbstat WHERE name = 'session_turn' AND pagetype = 'leaf' ORDER BY pageno")
          .all() as { pageno: number }[]
      )[1]?.pageno ?? 3;
    db.close();
    const fd = openSync(path, 'r+');
    writeSync(fd, Buffer.alloc(4096, 0x42), 0, 4096, (page - 1) * 4096);
    closeSync(fd);
    const damagedAt = performance.now();
    recorder.record(session(1001));
    await recorder.flush();
    await until(() => logs.some((l) => l.includes('is damaged')));
    await until(() => recorder.pending === 0);
    const recoveredMs = performance.now() - damagedAt;
    await recorder.close();
    expect(checkFile(path, 'full')).toBeNull();
    expect(sessionsIn(path)).toBe(302);
    recordFigure({
      area: 'store',
      fault: 'damaged page under a running writer',
      lost: 'the timeline points on the damaged page (sessions and totals copied back: 302 of 302)',
      recoveredMs,
    });
  });

  it('writer killed (SIGKILL) in the middle of its writes: the file is sound and exact, the next writer carries on', async () => {
    const path = join(tempDir(), 'analytics.db');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'test', 'store', 'fixtures', 'writer.ts'), path, 'killed', '100000'],
      {
        cwd: ROOT,
        stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      },
    );
    // Let it write for a while, then kill it mid-transaction.
    await until(() => {
      try {
        return sessionsIn(path) > 200;
      } catch {
        return false;
      }
    }, 60_000);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const killedAt = performance.now();
    expect(checkFile(path, 'full')).toBeNull();
    // Exact: every session present is whole (its parts add up to its saving), the totals agree.
    const db = new Database(path, { readonly: true });
    const broken = db
      .prepare(
        `SELECT COUNT(*) AS n FROM sessions s WHERE s.saved != (SELECT COALESCE(SUM(saved), 0) FROM session_strategy x WHERE x.session_id = s.id)`,
      )
      .get() as { n: number };
    const totals = db
      .prepare('SELECT (SELECT SUM(saved) FROM sessions) AS a, (SELECT SUM(saved) FROM strategy_totals) AS b')
      .get() as { a: number; b: number };
    db.close();
    expect(broken.n).toBe(0);
    expect(totals.b).toBe(totals.a);
    const before = sessionsIn(path);
    const next = createRecorder({ path, retentionDays: 36_500, log: () => undefined });
    next.record(session(5));
    await next.flush();
    const recoveredMs = performance.now() - killedAt;
    await next.close();
    expect(sessionsIn(path)).toBe(before + 1);
    recordFigure({
      area: 'store',
      fault: 'writer killed with SIGKILL mid-write',
      lost: 'the transaction in flight (the engine records those sessions again at their next turn)',
      recoveredMs,
    });
  });
});
