/**
 * GET /api/phases over a real dashboard, a real SQLite file and real index files: a session's
 * phases (the file and the analytics file merged), one phase, search in a session and across
 * sessions (FTS5, or the files when there is no analytics file), the Host/Origin checks and
 * parameters checked with errors that name them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/db.js';
import { phaseFilePath } from '../../src/store/phase-file.js';
import type { PhaseEntry } from '../../src/store/phase-types.js';
import { phase } from '../store/fixtures/phases.js';
import { rawRequest } from './helpers.js';
import { rig, type Rig } from './setup.js';

let r: Rig | null = null;
afterEach(async () => {
  await r?.done();
  r = null;
});

function writeIndexFile(dir: string, entries: PhaseEntry[]): void {
  mkdirSync(join(dir, 'sessions'), { recursive: true });
  const id = entries[0]?.session_id ?? '';
  writeFileSync(phaseFilePath(dir, id), entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
}

/** A dashboard whose analytics file holds phases of three sessions, one of them also in its index file (newer there). */
async function seeded(): Promise<Rig> {
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const dbDir = mkdtempSync(join(tmpdir(), 'hmc-phases-db-'));
  const dbPath = join(dbDir, 'analytics.db');
  const store = openStore(dbPath);
  store.recordPhases([
    phase({ session_id: 'live-1', phase_id: 1, topic: 'Repo set-up', summary: 'Goal: clone and build the repo.' }),
    phase({
      session_id: 'live-1',
      phase_id: 2,
      topic: 'Flaky payment test',
      summary: 'Goal: fix the flaky payment test.',
    }),
    phase({
      session_id: 'old-2',
      phase_id: 1,
      topic: 'Payment gateway',
      summary: 'Goal: move payments to the new gateway.',
    }),
    phase({ session_id: 'old-3', phase_id: 1, topic: 'Docs', summary: 'Goal: document the CLI.' }),
  ]);
  store.close();
  const rigged = await rig({ dbPath });
  writeIndexFile(rigged.dir, [
    phase({
      session_id: 'live-1',
      phase_id: 2,
      topic: 'Flaky payment test',
      summary: 'Goal: fix the flaky payment test.\nDone: pinned the clock.',
      updates: 1,
    }),
    phase({ session_id: 'live-1', phase_id: 3, topic: 'Release notes', summary: 'Goal: write the release notes.' }),
  ]);
  return rigged;
}

const get = async (port: number, path: string): Promise<Record<string, unknown>> =>
  JSON.parse((await rawRequest(port, path)).body) as Record<string, unknown>;

describe('GET /api/phases', () => {
  it('lists a session\u2019s phases from its index file and the analytics file, the more updated entry winning', async () => {
    r = await seeded();
    const answer = await get(r.dash.port, '/api/phases?session=live-1');
    expect(answer.session_id).toBe('live-1');
    const phases = answer.phases as PhaseEntry[];
    expect(phases.map((p) => [p.phase_id, p.updates])).toEqual([
      [1, 0],
      [2, 1],
      [3, 0],
    ]);
    expect(phases[1]?.summary).toContain('pinned the clock');
    expect(await get(r.dash.port, '/api/phases?session=nobody')).toEqual({ session_id: 'nobody', phases: [] });
  });

  it('answers one phase, and 404 for a phase the session does not have', async () => {
    r = await seeded();
    expect(await get(r.dash.port, '/api/phases?session=old-2&phase=1')).toMatchObject({
      session_id: 'old-2',
      phase: { topic: 'Payment gateway', summary: 'Goal: move payments to the new gateway.' },
    });
    expect((await rawRequest(r.dash.port, '/api/phases?session=old-2&phase=2')).status).toBe(404);
  });

  it('searches every session through the analytics file\u2019s FTS5 index, and one session in its own phases', async () => {
    r = await seeded();
    const all = await get(r.dash.port, '/api/phases?q=payment');
    expect(all).toMatchObject({ query: 'payment', scope: 'global', search: 'fts' });
    const hits = all.hits as { session_id: string; phase_id: number; snippet: string; marks: [number, number][] }[];
    expect(hits.map((h) => `${h.session_id}#${h.phase_id}`).sort()).toEqual(['live-1#2', 'old-2#1']);
    for (const h of hits)
      expect(h.marks.map(([a, b]) => h.snippet.slice(a, b).toLowerCase()).every((w) => w.startsWith('payment'))).toBe(
        true,
      );
    for (const h of hits) expect(h.marks.length).toBeGreaterThan(0);
    const mine = await get(r.dash.port, '/api/phases?q=release&session=live-1');
    expect(mine).toMatchObject({ scope: 'session', session_id: 'live-1', search: 'scan', hits: [{ phase_id: 3 }] });
    expect(((await get(r.dash.port, '/api/phases?q=goal&limit=2')).hits as unknown[]).length).toBe(2);
  });

  it('searches the index files when there is no analytics file', async () => {
    r = await rig({ dbPath: null });
    writeIndexFile(r.dir, [
      phase({ session_id: 'only-files', phase_id: 1, summary: 'Goal: rotate the signing keys.' }),
    ]);
    expect(await get(r.dash.port, '/api/phases?q=signing')).toMatchObject({
      search: 'scan',
      hits: [{ session_id: 'only-files', phase_id: 1 }],
    });
    expect(await get(r.dash.port, '/api/phases?session=only-files')).toMatchObject({ phases: [{ phase_id: 1 }] });
  });

  it('answers 400 naming the parameter for bad values', async () => {
    r = await seeded();
    for (const [path, text] of [
      ['/api/phases', 'session or q is required'],
      ['/api/phases?q=%2A%2A%2A', 'q must hold a word'],
      ['/api/phases?q=a&limit=0', 'limit must be a whole number from 1 to 100'],
      ['/api/phases?session=a&limit=5', 'limit applies to a search'],
      ['/api/phases?session=a&phase=x', 'phase must be a whole number'],
      ['/api/phases?phase=1', 'phase needs session'],
      ['/api/phases?session=a&phase=1&q=x', 'phase and q cannot be combined'],
      ['/api/phases?session=%0a', 'session must not contain control characters'],
      [`/api/phases?q=${'x'.repeat(501)}`, 'q must be at most 500 characters'],
      ['/api/phases?session=a&scope=global', 'unknown parameter "scope"'],
    ] as const) {
      const res = await rawRequest(r.dash.port, path);
      expect(res.status, path).toBe(400);
      expect(res.body, path).toContain(text);
    }
  });

  it('refuses a foreign Host or Origin like every route', async () => {
    r = await seeded();
    expect(
      (await rawRequest(r.dash.port, '/api/phases?session=live-1', { headers: { host: 'evil.example.com' } })).status,
    ).toBe(403);
    expect(
      (await rawRequest(r.dash.port, '/api/phases?q=payment', { headers: { origin: 'https://evil.example.com' } }))
        .status,
    ).toBe(403);
  });
});
