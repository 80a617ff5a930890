/**
 * `hmc doctor`'s analytics-database check: SQLite's `integrity_check` (its `quick_check` on files
 * over 64 MiB), and a file that is not a database at all reported as such, never as "missing"
 * (issue 11: doctor said "all checks passed" for a damaged file and for one that was no database).
 *
 * Invariant: read-only; a missing file is fine (it is created when the first session ends).
 */
import { existsSync, statSync } from 'node:fs';
import type { Check } from '../../bin/install-check.js';
import { errorText } from '../core/errors.js';

export async function checkDatabase(path: string): Promise<Check> {
  if (!existsSync(path)) return { name: 'analytics db', ok: true, detail: `no database yet at ${path} (created when the first session ends)` };
  let store: typeof import('../store/index.js');
  try {
    store = await import('../store/index.js');
  } catch (err) {
    return { name: 'analytics db', ok: false, detail: `cannot check ${path}: the SQLite module does not load (${errorText(err)})`, fix: 'see the sqlite check above' };
  }
  const { checkFile, INTEGRITY_MAX_BYTES } = store;
  const { size } = statSync(path);
  const depth = size <= INTEGRITY_MAX_BYTES ? 'full' : 'quick';
  const problem = checkFile(path, depth);
  const mb = `${(size / 1024 / 1024).toFixed(1)} MB`;
  if (!problem) return { name: 'analytics db', ok: true, detail: `${path} passed SQLite's ${depth === 'full' ? 'integrity_check' : 'quick_check'} (${mb})` };
  return {
    name: 'analytics db',
    ok: false,
    detail: `${path} ${problem.startsWith('it is') ? problem.slice(3) : `is damaged: ${problem}`}`,
    fix: `stop Hermes, then move ${path} (and its -wal, -shm) aside; a running HMC moves a damaged database aside by itself on its next write, starts a fresh one and copies back the sessions that still read`,
  };
}
