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

const dirs: string[] = [];

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
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

export { FIVE, NOW, rec, WEIRD } from './fixtures/five.js';
