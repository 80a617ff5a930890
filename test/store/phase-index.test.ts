/**
 * The session index as the engine uses it: JSONL files per session (new phase appended, updated
 * phase replaced, torn lines skipped, 0600), entries listed before they are written, writes off
 * the caller's path and retried when the disk refuses them, and search in the session's file,
 * across the files, or in a real SQLite mirror.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renameSync } from 'node:fs';
import { openStore } from '../../src/store/db.js';
import { createPhaseDbReader } from '../../src/store/phase-db-search.js';
import { phaseFilePath } from '../../src/store/phase-file.js';
import { createPhaseIndex } from '../../src/store/phase-index.js';
import type { PhaseEntry } from '../../src/store/phase-types.js';
import { createRecorder } from '../../src/store/recorder.js';
import { phase } from './fixtures/phases.js';
import { NOW, tempDir } from './helpers.js';

const lines = (path: string): unknown[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as unknown);
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('the session index files', () => {
  it('writes a new phase as one line of a private file on the next tick, with only the index\u2019s fields', async () => {
    const dir = tempDir();
    const index = createPhaseIndex({ stateDir: dir, log: () => {} });
    // What a careless caller might hand over: the raw range and a tool's arguments ride along.
    const careless: PhaseEntry = Object.assign(
      phase({ session_id: 'web/42', phase_id: 1, topic: 'Set up\nthe repo' }),
      {
        messages: [{ role: 'tool', content: 'RAW TOOL OUTPUT' }],
        args: { token: 'sk-SECRET' },
      },
    );
    index.record(careless);
    const path = phaseFilePath(dir, 'web/42');
    expect(existsSync(path)).toBe(false); // not on the caller's path
    expect(index.list('web/42')).toHaveLength(1); // but listed at once
    await tick();
    expect(path.endsWith('web_42_index.jsonl')).toBe(true);
    expect((statSync(path).mode & 0o777).toString(8)).toBe('600');
    expect((statSync(join(dir, 'sessions')).mode & 0o777).toString(8)).toBe('700');
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain('RAW TOOL OUTPUT');
    expect(text).not.toContain('SECRET');
    expect(lines(path)).toEqual([{ ...phase({ session_id: 'web/42', phase_id: 1 }), topic: 'Set up the repo' }]);
    index.close();
  });

  it('appends new phases and replaces an updated one in place, keeping when it was first summarised (never two entries for one range)', async () => {
    const dir = tempDir();
    const index = createPhaseIndex({ stateDir: dir, log: () => {} });
    index.record(phase({ session_id: 's', phase_id: 1, created_at: NOW }));
    index.record(phase({ session_id: 's', phase_id: 2 }));
    index.flush();
    index.record(
      phase({
        session_id: 's',
        phase_id: 1,
        summary: 'Goal: step 1, grown.',
        message_to: 25,
        updates: 1,
        created_at: NOW + 99_000,
      }),
    );
    expect(index.list('s').map((p) => [p.phase_id, p.summary, p.created_at])).toEqual([
      [1, 'Goal: step 1, grown.', NOW],
      [2, 'Goal: step 2.', NOW + 120_000],
    ]);
    index.flush();
    const path = phaseFilePath(dir, 's');
    expect(lines(path)).toEqual([
      phase({
        session_id: 's',
        phase_id: 1,
        summary: 'Goal: step 1, grown.',
        message_to: 25,
        updates: 1,
        created_at: NOW,
      }),
      phase({ session_id: 's', phase_id: 2 }),
    ]);
    // A later process reads the same.
    const later = createPhaseIndex({ stateDir: dir, log: () => {} });
    expect(later.list('s').map((p) => p.updates)).toEqual([1, 0]);
    index.close();
  });

  it('skips a torn last line and foreign lines when reading, and drops them at the next write', () => {
    const dir = tempDir();
    const path = phaseFilePath(dir, 's');
    mkdirSync(join(dir, 'sessions'), { recursive: true });
    const good = JSON.stringify(phase({ session_id: 's', phase_id: 1 }));
    const other = JSON.stringify(phase({ session_id: 'someone-else', phase_id: 2 }));
    writeFileSync(path, `${good}\nnot json\n{"session_id":"s","phase_id":"2"}\n${other}\n${good.slice(0, 40)}`);
    const index = createPhaseIndex({ stateDir: dir, log: () => {} });
    expect(index.list('s').map((p) => p.phase_id)).toEqual([1]);
    index.record(phase({ session_id: 's', phase_id: 3 }));
    index.flush();
    expect(lines(path).map((e) => (e as PhaseEntry).phase_id)).toEqual([1, 3]);
    expect(readFileSync(path, 'utf8').endsWith('\n')).toBe(true);
    index.close();
  });

  it('keeps phases in memory when the disk refuses the file, logs once, and writes them when it accepts again', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'sessions'), 'a file where the folder should be');
    const logs: string[] = [];
    const index = createPhaseIndex({ stateDir: dir, log: (l) => logs.push(l), retryMs: 20 });
    index.record(phase({ session_id: 's', phase_id: 1 }));
    await tick();
    index.record(phase({ session_id: 's', phase_id: 2 }));
    index.flush();
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/^hmc: cannot write the phase index .*s_index\.jsonl .*retrying later$/);
    expect(index.pending).toBe(2);
    expect(index.list('s').map((p) => p.phase_id)).toEqual([1, 2]);
    rmSync(join(dir, 'sessions'));
    await new Promise((r) => setTimeout(r, 200));
    expect(index.pending).toBe(0);
    expect(lines(phaseFilePath(dir, 's'))).toHaveLength(2);
    expect(logs[1]).toBe('hmc: writing the phase index again');
    index.close();
  });

  it('logs a bad entry once and drops it; recording, listing and searching never throw', () => {
    const logs: string[] = [];
    const index = createPhaseIndex({ stateDir: tempDir(), log: (l) => logs.push(l) });
    index.record(JSON.parse('null'));
    index.record({ ...phase({ session_id: 's', phase_id: 1 }), tokens_before: -5 });
    index.record({ ...phase({ session_id: 's', phase_id: 1 }), tokens_before: -5 });
    expect(logs).toEqual([
      'hmc: phase not indexed: the entry is not an object',
      'hmc: phase not indexed: tokens_before must be a whole number of 0 or more, got -5',
    ]);
    expect(index.list('s')).toEqual([]);
    expect(index.search('anything', { limit: 5 })).toEqual({ hits: [], method: 'scan' });
    index.close();
  });

  it('keeps everything in memory without a state dir', () => {
    const index = createPhaseIndex({ stateDir: null, log: () => {} });
    index.record(phase({ session_id: 's', phase_id: 1, summary: 'Goal: index in memory.' }));
    index.flush();
    expect(index.list('s')).toHaveLength(1);
    expect(index.search('memory', { limit: 5 }).hits.map((h) => h.phase_id)).toEqual([1]);
  });
});

describe('searching the session index', () => {
  function seed(dir: string, mirror?: (e: PhaseEntry) => void): ReturnType<typeof createPhaseIndex> {
    const index = createPhaseIndex({ stateDir: dir, log: () => {}, mirror: () => mirror ?? null });
    index.record(
      phase({
        session_id: 'a',
        phase_id: 1,
        topic: 'Payment retries',
        summary: 'Goal: make payment retries idempotent.',
      }),
    );
    index.record(
      phase({ session_id: 'a', phase_id: 2, topic: 'Docs', summary: 'Goal: document the retry policy for payments.' }),
    );
    index.record(
      phase({ session_id: 'b', phase_id: 1, topic: 'Flaky test', summary: 'Goal: fix the flaky payment test.' }),
    );
    index.flush();
    return index;
  }

  it('searches this session\u2019s file by default, and every session\u2019s files when analytics is off', () => {
    const dir = tempDir();
    seed(dir).close();
    const index = createPhaseIndex({ stateDir: dir, log: () => {} });
    const mine = index.search('payment', { limit: 10, sessionId: 'a' });
    expect(mine.method).toBe('scan');
    expect(mine.hits.map((h) => `${h.session_id}#${h.phase_id}`)).toEqual(['a#1', 'a#2']); // topic match first
    expect(mine.hits[0]?.marks.map(([x, y]) => mine.hits[0]?.snippet.slice(x, y))).toEqual(['payment']);
    const all = index.search('payment', { limit: 10 });
    expect(all.hits.map((h) => `${h.session_id}#${h.phase_id}`).sort()).toEqual(['a#1', 'a#2', 'b#1']);
    expect(index.search('payment flaky', { limit: 10 }).hits.map((h) => h.session_id)).toEqual(['b']);
    expect(index.search('payment', { limit: 1 }).hits).toHaveLength(1);
  });

  it('searches across sessions in the analytics file when analytics is on (FTS5), and falls back to the files with one log line when that fails', async () => {
    const dir = tempDir();
    const dbPath = join(dir, 'analytics.db');
    const recorder = createRecorder({ path: dbPath, retentionDays: 90, log: () => {} });
    seed(dir, (e) => recorder.recordPhase(e)).close();
    await recorder.close();
    const logs: string[] = [];
    let broken = false;
    const index = createPhaseIndex({
      stateDir: dir,
      log: (l) => logs.push(l),
      searchDb: () => (query, opts) => {
        if (broken) throw new Error('database is locked');
        const db = openStore(dbPath, { readonly: true, check: false });
        try {
          return db.searchPhases(query, opts);
        } finally {
          db.close();
        }
      },
    });
    const fromDb = index.search('retr', { limit: 10 });
    expect(fromDb.method).toBe('fts');
    expect(fromDb.hits.map((h) => `${h.session_id}#${h.phase_id}`)).toEqual(['a#1', 'a#2']);
    broken = true;
    expect(index.search('retr', { limit: 10 })).toMatchObject({
      method: 'scan',
      hits: [{ phase_id: 1 }, { phase_id: 2 }],
    });
    index.search('retr', { limit: 10 });
    expect(logs).toEqual([
      'hmc: phase search in the analytics file failed (database is locked); scanning the session index files instead',
    ]);
  });
});

describe('the analytics file\u2019s phase reader', () => {
  it('keeps one read-only connection, sees later writes, and opens the new file when a writer replaced it', () => {
    const dbPath = join(tempDir(), 'analytics.db');
    const writer = openStore(dbPath);
    writer.recordPhases([phase({ session_id: 'a', phase_id: 1, summary: 'Goal: first words.' })]);
    const reader = createPhaseDbReader(() => dbPath);
    expect(reader.search('first', { limit: 5 }).hits).toHaveLength(1);
    writer.recordPhases([phase({ session_id: 'a', phase_id: 2, summary: 'Goal: first again.' })]);
    expect(reader.search('first', { limit: 5 }).hits).toHaveLength(2);
    writer.close();
    // A damaged file moved aside and a fresh one started, as the recorder does.
    renameSync(dbPath, `${dbPath}.corrupt-test`);
    const fresh = openStore(dbPath);
    fresh.recordPhases([phase({ session_id: 'b', phase_id: 1, summary: 'Goal: fresh start.' })]);
    fresh.close();
    expect(reader.search('first', { limit: 5 }).hits).toEqual([]);
    expect(reader.search('fresh', { limit: 5 }).hits.map((h) => h.session_id)).toEqual(['b']);
    reader.close();
    rmSync(dbPath);
    expect(() => reader.search('fresh', { limit: 5 })).toThrow(/no analytics database/);
  });
});
