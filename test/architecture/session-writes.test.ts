/**
 * Session state is written only by its owners (issue 23): the sub-objects of `Session` live in
 * src/engine/session/ and change through their own methods; no module outside that room assigns a
 * Session field, counts it up or calls `set`/`delete`/`push`/`add`/`clear`… on a Map, Set or array
 * reached through a Session, under whatever name it holds the session (the checker gives the type).
 * scripts/session-writes.ts is the same check as a command (`npx tsx scripts/session-writes.ts --list`).
 */
import { describe, expect, it } from 'vitest';
import { sessionWrites } from '../../scripts/session-writes.js';

describe('session state has owners', () => {
  it('is written directly from no module outside src/engine/session/', () => {
    const writes = sessionWrites().map((w) => `${w.file}:${w.line}  ${w.text}`);
    expect(writes).toEqual([]);
  }, 120_000);
});
