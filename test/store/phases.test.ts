/**
 * The phases table of the analytics file (issue 10): migration, upsert by (session, phase_id),
 * FTS5 search and its ranking, the LIKE scan that stands in when SQLite has no FTS5, retention,
 * and a damaged file, all on real SQLite files.
 */
import { closeSync, openSync, readdirSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LATEST_VERSION, migrate, openStore } from '../../src/store/index.js';
import { createRecorder } from '../../src/store/recorder.js';
import { queryTerms, rankEntries } from '../../src/store/phase-search.js';
import type { PhaseEntry } from '../../src/store/phase-types.js';
import { phase } from './fixtures/phases.js';
import { NOW, rec, tempDb } from './helpers.js';

const DAY = 86_400_000;

const ids = (hits: { session_id: string; phase_id: number }[]): string[] =>
  hits.map((h) => `${h.session_id}#${h.phase_id}`);

function tables(path: string): string[] {
  const db = new Database(path, { readonly: true });
  const names = db
    .prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger') ORDER BY name")
    .pluck()
    .all() as string[];
  db.close();
  return names;
}

describe('the phases table', () => {
  it('is added to a v4 file with sessions by migration v5, with its full-text index; the sessions stay', () => {
    const path = tempDb();
    const raw = new Database(path);
    expect(migrate(raw, 4)).toBe(4);
    raw
      .prepare(
        `INSERT INTO sessions (id, started_at, input_raw, input_hmc, saved, recorded_at) VALUES ('old', ?, 100, 40, 60, ?)`,
      )
      .run(NOW, NOW);
    raw.close();
    const store = openStore(path);
    expect(store.summary().total_saved).toBe(60);
    store.recordPhases([phase({ session_id: 'old', phase_id: 1, summary: 'Goal: migrate the billing tables.' })]);
    expect(store.searchPhases('billing', { limit: 5 })).toMatchObject({
      method: 'fts',
      hits: [{ session_id: 'old', phase_id: 1 }],
    });
    store.close();
    expect(tables(path)).toEqual(
      expect.arrayContaining(['phases', 'phases_fts', 'phases_fts_added', 'phases_fts_removed', 'phases_fts_changed']),
    );
    const db = new Database(path, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(LATEST_VERSION);
    db.close();
  });

  it('replaces a phase recorded again under the same session and phase_id, keeping when it was first summarised; search sees only the new summary', () => {
    const store = openStore(tempDb());
    store.recordPhases([
      phase({ session_id: 's', phase_id: 1, summary: 'Goal: set up the zeppelin build.', created_at: NOW }),
    ]);
    store.recordPhases([
      phase({
        session_id: 's',
        phase_id: 1,
        summary: 'Goal: set up the rocket build; then the tests.',
        updates: 1,
        created_at: NOW + 5000,
        message_to: 40,
      }),
    ]);
    store.recordPhases([phase({ session_id: 't', phase_id: 1, summary: 'Another session, same phase number.' })]);
    const rows = store.phases('s');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      summary: 'Goal: set up the rocket build; then the tests.',
      updates: 1,
      created_at: NOW,
      message_to: 40,
    });
    expect(store.phase('t', 1)?.summary).toBe('Another session, same phase number.');
    expect(store.searchPhases('zeppelin', { limit: 5 }).hits).toEqual([]);
    expect(ids(store.searchPhases('rocket', { limit: 5 }).hits)).toEqual(['s#1']);
    store.close();
  });

  it('ranks a match in the topic above matches in summaries, and more occurrences above fewer', () => {
    const store = openStore(tempDb());
    const filler = 'We read files, ran the build, fixed lint and wrote notes about it all. '.repeat(3);
    store.recordPhases([
      phase({
        session_id: 'a',
        phase_id: 1,
        topic: 'Other work',
        summary: `${filler} The migration was mentioned once.`,
        created_at: NOW + 3,
      }),
      phase({
        session_id: 'b',
        phase_id: 1,
        topic: 'Migration of the orders table',
        summary: filler,
        created_at: NOW + 1,
      }),
      phase({
        session_id: 'c',
        phase_id: 1,
        topic: 'Other work',
        summary: `${filler} Migration planned; migration run; migration checked.`,
        created_at: NOW + 2,
      }),
      phase({ session_id: 'd', phase_id: 1, topic: 'Unrelated', summary: filler }),
    ]);
    const found = store.searchPhases('migration', { limit: 10 });
    expect(found.method).toBe('fts');
    expect(ids(found.hits)).toEqual(['b#1', 'c#1', 'a#1']);
    expect(ids(store.searchPhases('migration', { limit: 2 }).hits)).toEqual(['b#1', 'c#1']);
    store.close();
  });

  it('matches word prefixes in any case and without diacritics, never inside a word, and takes search syntax as plain words', () => {
    const store = openStore(tempDb());
    store.recordPhases([
      phase({
        session_id: 's',
        phase_id: 1,
        topic: 'Login',
        summary: 'Fixed the AUTHENTICATION bug in the Café module (naïve retry).',
      }),
      phase({
        session_id: 's',
        phase_id: 2,
        topic: 'Docs',
        summary: 'Wrote the README: install, usage, "quotes" and NEAR(x y) examples.',
      }),
    ]);
    const hit = (q: string): string[] => ids(store.searchPhases(q, { limit: 10 }).hits);
    expect(hit('auth')).toEqual(['s#1']);
    expect(hit('cafe NAIVE')).toEqual(['s#1']);
    expect(hit('thentic')).toEqual([]);
    expect(hit('auth readme')).toEqual([]); // every word must match
    for (const q of [
      '"',
      'auth OR docs',
      'NEAR(x y)',
      'auth*',
      '-auth',
      'summary:auth',
      '^auth',
      'a AND',
      '(',
      '"quotes"',
    ]) {
      expect(() => store.searchPhases(q, { limit: 10 }), q).not.toThrow();
    }
    expect(hit('summary:auth')).toEqual([]); // "summary" and "auth" are words; no phase holds both
    expect(hit('"quotes"')).toEqual(['s#2']);
    expect(store.searchPhases('*** ---', { limit: 10 }).hits).toEqual([]);
    store.close();
  });

  it('gives a snippet around the first match with the matched words marked', () => {
    const store = openStore(tempDb());
    const summary = `${'Earlier work on other things. '.repeat(10)}Then the flaky payment test was fixed by pinning the clock.\n${'More. '.repeat(30)}`;
    store.recordPhases([phase({ session_id: 's', phase_id: 1, topic: 'Tests', summary })]);
    const [h] = store.searchPhases('payment flaky', { limit: 1 }).hits;
    expect(h?.snippet.startsWith('…')).toBe(true);
    expect(h?.snippet.endsWith('…')).toBe(true);
    expect(h?.snippet).not.toContain('\n');
    expect(h?.marks.map(([a, b]) => h.snippet.slice(a, b))).toEqual(['flaky', 'payment']);
    store.close();
  });

  it('searches one session or every session', () => {
    const store = openStore(tempDb());
    store.recordPhases([
      phase({ session_id: 'one', phase_id: 1, summary: 'Deploy the worker.' }),
      phase({ session_id: 'two', phase_id: 1, summary: 'Deploy the web app.' }),
      phase({ session_id: 'two', phase_id: 2, summary: 'Roll back the deploy.' }),
    ]);
    expect(ids(store.searchPhases('deploy', { limit: 10, sessionId: 'one' }).hits)).toEqual(['one#1']);
    expect(ids(store.searchPhases('deploy', { limit: 10 }).hits).sort()).toEqual(['one#1', 'two#1', 'two#2']);
    expect(store.searchPhases('deploy', { limit: 10, sessionId: 'nobody' }).hits).toEqual([]);
    store.close();
  });

  it('refuses an entry with a bad field, naming it, and writes none of its batch', () => {
    const store = openStore(tempDb());
    expect(() =>
      store.recordPhases([
        phase({ session_id: 's', phase_id: 1 }),
        { ...phase({ session_id: 's', phase_id: 2 }), phase_id: 0 },
      ]),
    ).toThrow(/phase_id must be 1 or more/);
    expect(() => store.recordPhases([phase({ session_id: 's', phase_id: 2, turn_from: 5, turn_to: 1 })])).toThrow(
      /turn_from is after turn_to/,
    );
    expect(store.phases('s')).toEqual([]);
    store.close();
  });
});

describe('phase search without FTS5', () => {
  it('scans with LIKE, says so in one log line, and a later open with FTS5 rebuilds the index with what was written meanwhile', () => {
    const path = tempDb();
    const first = openStore(path);
    first.recordPhases([phase({ session_id: 's', phase_id: 1, summary: 'Tune the query planner.' })]);
    first.close();
    const logs: string[] = [];
    const plain = openStore(path, { fts: false, log: (l) => logs.push(l) });
    expect(logs).toEqual(['analytics: this SQLite has no FTS5; phase search scans the phases table with LIKE instead']);
    expect(tables(path)).not.toContain('phases_fts_added'); // writes no longer touch the FTS5 table
    plain.recordPhases([phase({ session_id: 's', phase_id: 2, summary: 'Planner statistics refreshed.' })]);
    plain.recordPhases([phase({ session_id: 's', phase_id: 1, summary: 'Tune the query optimizer.' })]);
    expect(plain.searchPhases('planner', { limit: 10 })).toMatchObject({ method: 'like', hits: [{ phase_id: 2 }] });
    plain.close();
    const again = openStore(path);
    expect(again.searchPhases('planner', { limit: 10 })).toMatchObject({ method: 'fts', hits: [{ phase_id: 2 }] });
    expect(ids(again.searchPhases('optimizer', { limit: 10 }).hits)).toEqual(['s#1']);
    again.close();
  });

  it('finds the same phases as FTS5 and as a scan of the entries, for any phases and query (property)', () => {
    const words = [
      'alpha',
      'alphabet',
      'Beta',
      'gamma',
      'GAMMAS',
      'delta',
      'x1',
      'x10',
      'under_score',
      '50%',
      'path/to/file.ts',
    ];
    const text = fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 8 }).map((w) => w.join(' '));
    const entries = fc.array(fc.record({ topic: text, summary: text }), { minLength: 1, maxLength: 12 });
    const query = fc
      .array(fc.constantFrom(...words, 'alp', 'gam', 'x', '%', '_', 'file.t', 'beta gamma'), {
        minLength: 1,
        maxLength: 3,
      })
      .map((w) => w.join(' '));
    const fts = openStore(tempDb());
    const like = openStore(tempDb(), { fts: false });
    let run = 0;
    fc.assert(
      fc.property(entries, query, (es, q) => {
        run++;
        const batch: PhaseEntry[] = es.map((e, i) => phase({ session_id: `r${run}`, phase_id: i + 1, ...e }));
        fts.recordPhases(batch);
        like.recordPhases(batch);
        const opts = { limit: 100, sessionId: `r${run}` };
        const a = ids(fts.searchPhases(q, opts).hits).sort();
        const b = ids(like.searchPhases(q, opts).hits).sort();
        const c = ids(rankEntries(batch, queryTerms(q), 100)).sort();
        expect(b).toEqual(a);
        expect(c).toEqual(a);
      }),
      { numRuns: 150 },
    );
    fts.close();
    like.close();
  });
});

describe('phases and retention', () => {
  it('deletes the phases of sessions retention deletes, and old phases of sessions never recorded; keeps the rest', () => {
    const path = tempDb();
    const store = openStore(path, { retentionDays: 30, now: () => NOW - 365 * DAY });
    store.recordSessions([
      rec({ session_id: 'old', started_at: NOW - 40 * DAY, ended_at: NOW - 39 * DAY }),
      rec({ session_id: 'long', started_at: NOW - 40 * DAY, ended_at: NOW - DAY }),
    ]);
    store.recordPhases([
      phase({ session_id: 'old', phase_id: 1, created_at: NOW - 39.5 * DAY }),
      phase({ session_id: 'long', phase_id: 1, created_at: NOW - 39 * DAY }),
      phase({ session_id: 'unrecorded', phase_id: 1, created_at: NOW - 31 * DAY }),
      phase({ session_id: 'unrecorded', phase_id: 2, created_at: NOW - 2 * DAY }),
    ]);
    expect(store.applyRetention(NOW)).toBe(3); // the session "old", its phase, the old unrecorded phase
    expect(store.phases('old')).toEqual([]);
    expect(store.phases('long').map((p) => p.phase_id)).toEqual([1]); // a kept session keeps its early phases
    expect(store.phases('unrecorded').map((p) => p.phase_id)).toEqual([2]);
    expect(
      store
        .searchPhases('goal', { limit: 10 })
        .hits.map((h) => h.session_id)
        .sort(),
    ).toEqual(['long', 'unrecorded']);
    store.close();
  });
});

describe('phases in a damaged file', () => {
  it('are copied into the fresh file with the sessions when the recorder moves a damaged one aside', async () => {
    const path = tempDb();
    const first = createRecorder({ path, retentionDays: 36_500, log: () => undefined });
    first.record(rec({ session_id: 'kept', started_at: Date.now() - 1000 }));
    for (let i = 1; i <= 300; i++)
      first.recordPhase(
        phase({ session_id: `s${i % 7}`, phase_id: i, summary: `Goal: task number ${i}. ${'Detail. '.repeat(40)}` }),
      );
    await first.close();
    // Damage one page of the phases table, as a bad disk would.
    const db = new Database(path, { readonly: true });
    const pageSize = Number(db.pragma('page_size', { simple: true }));
    const pages = db
      .prepare("SELECT pageno FROM dbstat WHERE name = 'phases' AND pagetype = 'leaf' ORDER BY pageno")
      .pluck()
      .all() as number[];
    db.close();
    const fd = openSync(path, 'r+');
    const page = pages[Math.floor(pages.length / 2)] ?? 1;
    writeSync(fd, Buffer.alloc(pageSize, 0x5a), 0, pageSize, (page - 1) * pageSize);
    closeSync(fd);
    const logs: string[] = [];
    const second = createRecorder({ path, retentionDays: 36_500, log: (l) => logs.push(l) });
    second.recordPhase(phase({ session_id: 'new', phase_id: 1, summary: 'Goal: written after the damage.' }));
    await second.close();
    const line = logs.find((l) => l.includes('is damaged')) ?? '';
    const m = /copied back 1 of 1 session\(s\) and (\d+) of (\d+) phase\(s\) that still read/.exec(line);
    expect(m, logs.join('\n')).not.toBeNull();
    const copied = Number(m?.[1]);
    expect(copied).toBeGreaterThan(200); // one damaged page costs the rows on it, not the table
    expect(copied).toBeLessThan(300);
    expect(readdirSync(dirname(path)).some((n) => n.startsWith('analytics.db.corrupt-'))).toBe(true);
    const fresh = openStore(path, { readonly: true });
    expect(fresh.session('kept')).not.toBeNull();
    expect(fresh.phase('new', 1)?.summary).toBe('Goal: written after the damage.');
    expect(fresh.searchPhases('task', { limit: 1000 }).hits).toHaveLength(copied);
    fresh.close();
  });
});
