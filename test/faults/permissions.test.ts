/**
 * Fault suite, file modes the user changed under HMC (issue 19, finding 5): the analytics database
 * made read-only (0444) for a while and given back its mode. SQLite creates the `-shm` with the
 * database's mode, so a process that ran meanwhile left a 0444 `-shm` behind, and every later
 * process failed with "attempt to write a readonly database" until someone deleted it. Now the
 * next process writes again. Modes bind only a user other than root: a test running as root
 * runs each process as nobody (the process loads its code as root, then drops to nobody).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, closeSync, existsSync, mkdtempSync, openSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/db.js';
import { recordFigure } from './figures.js';

const ROOT = join(import.meta.dirname, '..', '..');
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;
const skip = process.platform === 'win32' ? 'no POSIX file modes' : null;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

/** One process recording one session, as a user the file modes bind; its log lines. */
function recordOne(path: string, id: string): string[] {
  const argv = [
    process.execPath,
    '--import',
    'tsx',
    join(ROOT, 'test/faults/fixtures/record-one.ts'),
    path,
    id,
    ...(asRoot ? [String(NOBODY)] : []),
  ];
  const run = spawnSync(argv[0] as string, argv.slice(1), {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, HOME: tmpdir() },
  });
  const line = run.stdout.trim().split('\n').pop() ?? '';
  if (!line.startsWith('{')) throw new Error(`record-one failed (${run.status}): ${run.stderr}`);
  return (JSON.parse(line) as { logs: string[] }).logs;
}

const mode = (file: string): number => statSync(file).mode & 0o777;

describe('fault suite: file modes', () => {
  it.skipIf(skip !== null)(
    `a database made read-only for a while: the -shm left at 0444 no longer stops later writers${skip ? ` (skipped: ${skip})` : ''}`,
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'hmc-modes-'));
      dirs.push(dir);
      if (asRoot) chownSync(dir, NOBODY, NOBODY);
      const path = join(dir, 'analytics.db');
      expect(recordOne(path, 'before')).toEqual([]);
      // A clean close leaves no -shm; the next open while the file is 0444 makes one at 0444.
      rmSync(`${path}-shm`, { force: true });
      rmSync(`${path}-wal`, { force: true });
      chmodSync(path, 0o444);
      const whileReadOnly = recordOne(path, 'during');
      expect(whileReadOnly.join('\n')).toMatch(/read-only|readonly|EACCES/);
      expect(mode(`${path}-shm`)).toBe(0o444);
      chmodSync(path, 0o644);
      const started = performance.now();
      expect(recordOne(path, 'after')).toEqual([]);
      const recoveredMs = performance.now() - started;
      expect(mode(`${path}-shm`)).toBe(0o600);
      const store = openStore(path, { readonly: true });
      const ids = store.sessions({ limit: 10, offset: 0 }).rows.map((s) => s.session_id);
      store.close();
      expect(ids.sort()).toEqual(['after', 'before']);
      recordFigure({
        area: 'store',
        fault: 'database 0444 for a while, a 0444 -shm left behind',
        lost: 'the sessions of the processes that ran while it was 0444 (they could not write)',
        recoveredMs,
      });
    },
  );

  it.skipIf(!asRoot)(
    'a -shm of another user that this one cannot change is named in the log line, not deleted (needs root to make one)',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'hmc-modes-'));
      dirs.push(dir);
      chownSync(dir, NOBODY, NOBODY);
      const path = join(dir, 'analytics.db');
      expect(recordOne(path, 'before')).toEqual([]);
      rmSync(`${path}-shm`, { force: true });
      rmSync(`${path}-wal`, { force: true });
      // root's -shm, 0644: nobody cannot write it nor change its mode.
      closeSync(openSync(`${path}-shm`, 'w', 0o644));
      const logs = recordOne(path, 'blocked');
      expect(logs.join('\n')).toContain(`${path}-shm is not writable by this user`);
      expect(existsSync(`${path}-shm`)).toBe(true);
    },
  );
});
