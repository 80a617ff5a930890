/**
 * Schema versions: a v1 file with data migrates to the latest version keeping every number,
 * a file from a newer HMC is refused with a clear message, and a failed migration is named.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { LATEST_VERSION, MIGRATIONS, migrate, openStore } from '../../src/store/index.js';
import { NOW, tempDb } from './helpers.js';

/** Writes a v1 file by hand, as HMC v1 would have: sessions and per-strategy savings only. */
function writeV1(path: string): void {
  const db = new Database(path);
  expect(migrate(db, 1)).toBe(1);
  const session = db.prepare(`INSERT INTO sessions (id, project_path, platform, model, started_at, ended_at, turns,
    tool_calls, input_raw, input_hmc, saved, context_peak, recorded_at) VALUES (?, ?, 'cli', 'm', ?, NULL, 2, 3, ?, ?, ?, 0, ?)`);
  const strategy = db.prepare('INSERT INTO session_strategy (session_id, strategy, saved) VALUES (?, ?, ?)');
  session.run('old-1', '/p', NOW, 1000, 700, 300, NOW);
  strategy.run('old-1', 'dedup', 200);
  strategy.run('old-1', 'truncation', 100);
  session.run('old-2', '/q', NOW - 1000, 500, 400, 100, NOW);
  strategy.run('old-2', 'dedup', 100);
  db.close();
}

describe('migrations', () => {
  it('numbers migrations 1, 2, 3… without gaps', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(Array.from({ length: MIGRATIONS.length }, (_, i) => i + 1));
    expect(LATEST_VERSION).toBe(MIGRATIONS.length);
  });

  it('migrates a v1 file with data to the latest version, keeping every total and backfilling the per-strategy totals', () => {
    const path = tempDb();
    writeV1(path);
    const store = openStore(path);
    expect(store.summary({ project: '/p' })).toMatchObject({
      total_saved: 300,
      total_input: 1000,
      by_strategy: { dedup: 200, truncation: 100 },
    });
    expect(store.summary()).toMatchObject({
      total_saved: 400,
      total_input: 1500,
      total_sessions: 2,
      by_strategy: { dedup: 300, truncation: 100 },
      by_tool: {},
    });
    expect(store.session('old-1')).toMatchObject({
      by_strategy: { dedup: 200, truncation: 100 },
      by_tool: {},
      timeline: [],
    });
    // The tables added by v2 work after the upgrade.
    store.recordSession({
      session_id: 'old-1',
      project_path: '/p',
      platform: 'cli',
      model: 'm',
      started_at: NOW,
      ended_at: NOW,
      turns: 2,
      tool_calls: 3,
      input_tokens_raw: 1000,
      input_tokens_hmc: 700,
      context_peak: 0,
      by_strategy: { dedup: 300 },
      by_tool: { terminal: 300 },
      timeline: [
        { turn: 1, time: NOW, context_tokens: 5, context_percent: 0, input_raw: 1000, input_hmc: 700, tool_calls: 3 },
      ],
    });
    expect(store.summary()).toMatchObject({
      total_saved: 400,
      by_strategy: { dedup: 400 },
      by_tool: { terminal: 300 },
    });
    store.close();
    const db = new Database(path, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(LATEST_VERSION);
    db.close();
  });

  it('is a no-op on an up-to-date file', () => {
    const path = tempDb();
    openStore(path).close();
    const db = new Database(path);
    expect(migrate(db)).toBe(LATEST_VERSION);
    db.close();
  });

  it('refuses a read-only open of an old file with a message that says how to fix it', () => {
    const path = tempDb();
    writeV1(path);
    expect(() => openStore(path, { readonly: true })).toThrow(/schema v1 .*open it read-write once/);
  });

  it('refuses a file written by a newer HMC', () => {
    const path = tempDb();
    const db = new Database(path);
    db.pragma(`user_version = ${LATEST_VERSION + 1}`);
    db.close();
    expect(() => openStore(path)).toThrow(/newer than this HMC/);
  });

  it('names the migration that failed and leaves the file at the previous version', () => {
    const path = tempDb();
    const db = new Database(path);
    migrate(db, 1);
    db.exec('CREATE TABLE session_tool (x)'); // collides with migration 2
    expect(() => migrate(db)).toThrow(
      /analytics migration v2 \(savings per tool and the per-turn timeline\) failed: .*already exists/,
    );
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    expect(db.prepare("SELECT COUNT(*) AS c FROM sqlite_master WHERE name = 'session_turn'").get()).toEqual({ c: 0 });
    db.close();
  });
});
