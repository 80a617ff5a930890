/**
 * Issue 11, fault 1 (session files): on a full disk "could not save session" was logged on every
 * hook (128 lines) instead of once per episode, and a session whose save failed was not written
 * again. Injected ENOSPC here, and a real 64 KiB tmpfs where mounting is permitted.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, rename, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.js';
import { latestSavedSession } from '../../src/engine/saving/saved-sessions.js';
import { SessionFiles, type SaveFs } from '../../src/engine/saving/session-files.js';
import { NULL_SINK } from '../../src/events/types.js';
import { assistantCall, config, reply, terminal, toolResult, user } from '../helpers/conversation.js';
import { mountTinyFs, tinyFsUnavailable, type TinyFs } from '../helpers/tiny-fs.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'hmc-sf-'));
  cleanups.push(() => rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }));
  return d;
};
const until = async (pred: () => boolean, ms = 5000): Promise<void> => {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

function fullDisk(): SaveFs & { full: boolean } {
  const fs = {
    full: false,
    mkdir: (dir: string) => mkdir(dir, { recursive: true }),
    async writeFile(path: string, body: string) {
      if (fs.full) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      await writeFile(path, body, { mode: 0o600 });
    },
    rename,
    unlink,
  };
  return fs;
}

const persisted = (id: string, turns: number): string =>
  JSON.stringify({ version: 1, session_id: id, started_at: 1, turns, records: {}, pruned: {}, ledger: {} });

describe('SessionFiles on a full disk', () => {
  it('logs one line per episode, not one per save (regression: 128 "could not save session" lines)', async () => {
    const dir = tmp();
    const logs: string[] = [];
    const disk = fullDisk();
    const files = new SessionFiles(dir, (l) => logs.push(l), disk, 5);
    disk.full = true;
    for (let turn = 1; turn <= 128; turn++) files.save('S', persisted('S', turn));
    await files.flush();
    expect(logs.filter((l) => l.includes('could not save session'))).toHaveLength(1);
    disk.full = false;
    files.save('S', persisted('S', 129));
    await files.flush();
    expect(logs.filter((l) => l.includes('again after'))).toHaveLength(1);
    expect(files.load('S')?.turns).toBe(129);
    // No temp file was left behind by the failed saves.
    expect(readdirSync(join(dir, 'sessions'))).toEqual(['S.json']);
  });

  it('writes a session that ended while the disk was full once space returns, without another save', async () => {
    const dir = tmp();
    const disk = fullDisk();
    const files = new SessionFiles(dir, () => undefined, disk, 5);
    disk.full = true;
    files.save('ended', persisted('ended', 7));
    await files.flush();
    expect(files.failing).toBe(true);
    disk.full = false;
    await until(() => files.load('ended')?.turns === 7);
    await until(() => !files.failing);
  });

  it('answers for the newest session that reads back, skipping a torn file', async () => {
    const dir = tmp();
    const files = new SessionFiles(dir, () => undefined);
    files.save('older', persisted('older', 1));
    await files.flush();
    await new Promise((r) => setTimeout(r, 20));
    writeFileSync(join(dir, 'sessions', 'torn.json'), '{"version":1,"session_id":"to');
    expect(latestSavedSession(dir)).toBe('older');
  });
});

describe('an engine saving sessions on a real full disk (64 KiB tmpfs)', () => {
  const skip = tinyFsUnavailable();
  it.skipIf(skip !== null)(
    `keeps every turn and saves again once space returns${skip ? ` (skipped: ${skip})` : ''}`,
    async () => {
      const fs = mountTinyFs(64 * 1024) as TinyFs;
      cleanups.push(() => fs.unmount());
      const logs: string[] = [];
      const c = config();
      const engine = new Engine({
        config: () => c,
        stateDir: fs.dir,
        sink: NULL_SINK,
        recorder: null,
        log: (l) => logs.push(l),
        autoSettle: false,
      });
      const messages = [user('go')];
      const turn = (n: number): void => {
        messages.push(
          assistantCall(`c${n}`, 'terminal', { command: `make ${n}` }),
          toolResult(`c${n}`, 'terminal', terminal(`built ${n}`)),
          reply(`done ${n}`),
          user(`next ${n}`),
        );
        engine.preLlmCall({ session_id: 'T', messages: [...messages] });
        engine.settle();
        // Hermes fires on_session_end after every turn: each one saves the session.
        engine.onSessionEnd({ session_id: 'T' });
      };
      turn(1);
      await engine.flushSaves();
      fs.fill();
      for (let n = 2; n <= 40; n++) turn(n);
      await engine.flushSaves();
      expect(logs.filter((l) => l.includes('could not save session'))).toHaveLength(1);
      fs.free();
      turn(41);
      await engine.flushSaves();
      expect(logs.filter((l) => l.includes('again after'))).toHaveLength(1);
      const saved = JSON.parse(readFileSync(join(fs.dir, 'sessions', 'T.json'), 'utf8')) as { turns: number };
      expect(saved.turns).toBe(42);
      await engine.closeSaves();
    },
  );
});
