/**
 * Issue 11, fault 3, the readers: `hmc analytics` said nothing about a damaged file, `hmc doctor`
 * said "all checks passed" (even for a file that was no database), and `/api/health` called such a
 * file "missing". Each now says what the file is.
 */
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { command as analytics } from '../../src/cli/analytics.js';
import { runChecks } from '../../src/cli/doctor.js';
import { createRecorder } from '../../src/store/recorder.js';
import { rig } from '../server/setup.js';
import { FIVE, tempDir } from './helpers.js';

let out: string;
let err: string;
beforeEach(() => {
  out = '';
  err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    err += String(chunk);
    return true;
  });
});
afterEach(() => vi.restoreAllMocks());

/** A state dir whose analytics.db holds the five sessions, checkpointed into the file. */
async function stateWithDb(): Promise<{ state: string; db: string }> {
  const state = tempDir();
  const db = join(state, 'analytics.db');
  const r = createRecorder({ path: db, retentionDays: 36_500, log: () => undefined });
  for (let copy = 0; copy < 60; copy++) for (const s of FIVE) r.record({ ...s, session_id: `${s.session_id}-${copy}` });
  await r.close();
  return { state, db };
}

function damage(path: string): void {
  const db = new Database(path, { readonly: true });
  const page =
    (
      db
        .prepare("SELECT pageno FROM dbstat WHERE name = 'session_turn' AND pagetype = 'leaf' ORDER BY pageno")
        .all() as { pageno: number }[]
    )[0]?.pageno ?? 2;
  db.close();
  const fd = openSync(path, 'r+');
  writeSync(fd, Buffer.alloc(4096, 0x5a), 0, 4096, (page - 1) * 4096);
  closeSync(fd);
}

describe('hmc analytics on a damaged database', () => {
  it('says the file is damaged and exits 1 (regression: it still answered)', async () => {
    const { db } = await stateWithDb();
    damage(db);
    expect(await analytics.run(['--db', db])).toBe(1);
    expect(out).toBe('');
    expect(err).toContain(`analytics database ${db} is damaged`);
    expect(err).toMatch(/`[^`]*\bdoctor` checks it/); // named as the user runs it (cli/args.ts invokedAs)
  });

  it('notes a database a writer moved aside, and answers from the fresh one', async () => {
    const { db } = await stateWithDb();
    damage(db);
    const r = createRecorder({ path: db, retentionDays: 36_500, log: () => undefined });
    await r.close(); // the check at close moves it aside and copies back what reads
    expect(await analytics.run(['--db', db, '--json'])).toBe(0);
    expect(err).toMatch(/note: a damaged database was moved aside to .*analytics\.db\.corrupt-/);
    expect(JSON.parse(out).total_sessions).toBe(300);
  });
});

describe('hmc doctor on the analytics database', () => {
  it('runs integrity_check and fails a damaged file (regression: "all checks passed")', async () => {
    const { state, db } = await stateWithDb();
    const sound = (await runChecks({ noHermes: true, stateDir: state, root: tempDir() })).find(
      (c) => c.name === 'analytics db',
    );
    expect(sound).toMatchObject({ ok: true });
    expect(sound?.detail).toContain('integrity_check');
    damage(db);
    const check = (await runChecks({ noHermes: true, stateDir: state, root: tempDir() })).find(
      (c) => c.name === 'analytics db',
    );
    expect(check?.ok).toBe(false);
    expect(check?.detail).toContain(`${db} is damaged`);
    expect(check?.fix).toContain('moves a damaged database aside');
  });

  it('reports a file that is not a database as such, not as missing', async () => {
    const state = tempDir();
    writeFileSync(join(state, 'analytics.db'), 'not a database, just text\n'.repeat(50));
    const check = (await runChecks({ noHermes: true, stateDir: state, root: tempDir() })).find(
      (c) => c.name === 'analytics db',
    );
    expect(check?.ok).toBe(false);
    expect(check?.detail).toContain('is not a SQLite database');
    expect(check?.detail).not.toMatch(/missing/);
  });
});

describe('/api/health', () => {
  it('calls a file that is not a database "corrupt", not "missing" (regression)', async () => {
    const state = tempDir();
    const db = join(state, 'analytics.db');
    writeFileSync(db, 'not a database\n'.repeat(100));
    const r = await rig({ dbPath: db });
    try {
      const res = await fetch(`http://127.0.0.1:${r.dash.port}/api/health`);
      expect((await res.json()) as unknown).toMatchObject({ ok: true, store: 'corrupt' });
    } finally {
      await r.done();
    }
  });

  it('says "missing" only when there is no file, and "ok" for a sound one', async () => {
    const { db } = await stateWithDb();
    const none = await rig({ dbPath: join(tempDir(), 'analytics.db') });
    const sound = await rig({ dbPath: db });
    try {
      expect(await (await fetch(`http://127.0.0.1:${none.dash.port}/api/health`)).json()).toMatchObject({
        store: 'missing',
      });
      expect(await (await fetch(`http://127.0.0.1:${sound.dash.port}/api/health`)).json()).toMatchObject({
        store: 'ok',
      });
    } finally {
      await none.done();
      await sound.done();
    }
  });
});
