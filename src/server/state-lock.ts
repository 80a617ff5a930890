/**
 * An exclusive lock between processes that share a state dir (two Hermes processes starting the
 * dashboard at the same moment, a `stop` racing a `start`): a file created with O_EXCL that holds
 * its owner's pid, a nonce and the time.
 *
 * Invariant: one holder at a time. A lock whose owner is dead, or that is older than `staleMs`, is
 * broken: it is first renamed to a name of our own (atomic, so only one breaker gets it), then
 * compared with the lock judged stale; a fresh lock taken by mistake is put back. The holder
 * removes the lock only while it still holds its own nonce.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isObject } from '../events/guards.js';
import { errorCode } from '../core/errors.js';
import { pidAlive } from './dashboard-record.js';

export interface LockOptions {
  /** How long to wait for another holder (default 20 s); then the call fails. */
  waitMs?: number;
  /** A lock older than this is broken even if its owner lives (default 30 s). */
  staleMs?: number;
}

const POLL_MS = 50;

/** Runs `fn` while holding the lock file at `path`. */
export async function withLock<T>(path: string, fn: () => Promise<T>, opts: LockOptions = {}): Promise<T> {
  const nonce = randomBytes(8).toString('hex');
  const text = JSON.stringify({ pid: process.pid, nonce, time: Date.now() });
  const deadline = Date.now() + (opts.waitMs ?? 20_000);
  while (!tryCreate(path, text)) {
    const seen = readText(path);
    if (seen !== null && isStale(path, seen, opts.staleMs ?? 30_000)) {
      breakLock(path, seen, nonce);
      continue;
    }
    if (Date.now() > deadline) throw new Error(`another process holds ${path}; try again in a moment`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  try {
    return await fn();
  } finally {
    if (readText(path) === text) rmSync(path, { force: true });
  }
}

function tryCreate(path: string, text: string): boolean {
  try {
    writeFileSync(path, text, { flag: 'wx', mode: 0o600 });
    return true;
  } catch (err) {
    if (errorCode(err) === 'EEXIST') return false;
    throw err;
  }
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function isStale(path: string, text: string, staleMs: number): boolean {
  let owner: unknown = null;
  try {
    owner = JSON.parse(text);
  } catch {
    // Empty or torn: its owner may be between create and write; judge it by its age alone.
  }
  if (
    isObject(owner) &&
    typeof owner.pid === 'number' &&
    Number.isInteger(owner.pid) &&
    owner.pid > 0 &&
    !pidAlive(owner.pid)
  )
    return true;
  const time = isObject(owner) && typeof owner.time === 'number' ? owner.time : mtime(path);
  return time !== null && Date.now() - time > staleMs;
}

function mtime(path: string): number | null {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null;
  }
}

function breakLock(path: string, seen: string, nonce: string): void {
  const aside = `${path}.${process.pid}.${nonce}.stale`;
  try {
    renameSync(path, aside);
  } catch {
    return; // someone else broke or released it first
  }
  if (readText(aside) !== seen) {
    // A new holder's lock was created after we looked: give it back (unless yet another exists).
    try {
      linkSync(aside, path);
    } catch {
      // Another lock is already in place; the holder we displaced loses only if all three raced.
    }
  }
  rmSync(aside, { force: true });
}
