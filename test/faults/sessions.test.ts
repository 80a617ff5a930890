/**
 * Fault suite, the session files (docs/faults.md): a full disk, a read-only disk, a damaged file
 * and a process killed in the middle of its saves. A new process always finds a session file it
 * can use, or starts the session afresh with one log line; nothing needs a restart.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.js';
import { SessionFiles } from '../../src/engine/saving/session-files.js';
import { NULL_SINK } from '../../src/events/types.js';
import type { Message } from '../../src/core/message.js';
import { assistantCall, config, reply, terminal, toolResult, user } from '../helpers/conversation.js';
import { mountTinyFs, tinyFsUnavailable, type TinyFs } from '../helpers/tiny-fs.js';
import { recordFigure, until } from './figures.js';

const ROOT = join(import.meta.dirname, '..', '..');
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'hmc-fault-ses-'));
  cleanups.push(() => rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }));
  return d;
};
const skip = tinyFsUnavailable();
const note = skip ? ` (skipped: ${skip})` : '';
const c = config();

/** An engine over `stateDir`, and a turn as Hermes runs it (pre_llm_call, then on_session_end, which saves). */
function hermes(stateDir: string, logs: string[] = []) {
  const engine = new Engine({
    config: () => c,
    stateDir,
    sink: NULL_SINK,
    recorder: null,
    log: (l) => logs.push(l),
    autoSettle: false,
  });
  const messages: Message[] = [user('go')];
  return {
    engine,
    turn(n: number): void {
      messages.push(
        assistantCall(`c${n}`, 'terminal', { command: `make ${n}` }),
        toolResult(`c${n}`, 'terminal', terminal(`built ${n}`)),
        reply(`done ${n}`),
        user(`next ${n}`),
      );
      engine.preLlmCall({ session_id: 'T', messages: [...messages] });
      engine.settle();
      engine.onSessionEnd({ session_id: 'T' });
    },
  };
}
const savedTurns = (stateDir: string): number =>
  (JSON.parse(readFileSync(join(stateDir, 'sessions', 'T.json'), 'utf8')) as { turns: number }).turns;

describe('fault suite: session files', () => {
  it.skipIf(skip !== null)(
    `full disk: one line, then the latest picture is on disk once space returns${note}`,
    async () => {
      const fs = mountTinyFs(64 * 1024) as TinyFs;
      cleanups.push(() => fs.unmount());
      const logs: string[] = [];
      const h = hermes(fs.dir, logs);
      h.turn(1);
      await h.engine.flushSaves();
      fs.fill();
      for (let n = 2; n <= 30; n++) h.turn(n);
      await h.engine.flushSaves();
      fs.free();
      const back = performance.now();
      // No further turn: the failed save is retried on its own.
      await until(() => savedTurns(fs.dir) === 31);
      const recoveredMs = performance.now() - back;
      expect(logs.filter((l) => l.includes('could not save session'))).toHaveLength(1);
      await h.engine.closeSaves();
      recordFigure({
        area: 'sessions',
        fault: 'disk full (tmpfs)',
        lost: 'nothing (the latest picture is written once space returns, without another turn)',
        recoveredMs,
      });
    },
  );

  it.skipIf(skip !== null)(`read-only disk: one line, then saved again once writable${note}`, async () => {
    const fs = mountTinyFs(256 * 1024) as TinyFs;
    cleanups.push(() => fs.unmount());
    const logs: string[] = [];
    const h = hermes(fs.dir, logs);
    h.turn(1);
    await h.engine.flushSaves();
    fs.readOnly();
    for (let n = 2; n <= 10; n++) h.turn(n);
    await h.engine.flushSaves();
    fs.readWrite();
    const back = performance.now();
    await until(() => savedTurns(fs.dir) === 11);
    const recoveredMs = performance.now() - back;
    expect(logs.filter((l) => l.includes('could not save session'))).toHaveLength(1);
    await h.engine.closeSaves();
    recordFigure({ area: 'sessions', fault: 'read-only disk (tmpfs remounted ro)', lost: 'nothing', recoveredMs });
  });

  it('damaged session file: one line, the session starts afresh and its next save replaces the file', async () => {
    const dir = tmp();
    mkdirSync(join(dir, 'sessions'));
    writeFileSync(
      join(dir, 'sessions', 'T.json'),
      '{"version":1,"session_id":"T","started_at":1,"turns":3,"rec\u0000\u0001',
    );
    const logs: string[] = [];
    const started = performance.now();
    const h = hermes(dir, logs);
    h.turn(1);
    await h.engine.flushSaves();
    const recoveredMs = performance.now() - started;
    expect(logs.filter((l) => l.includes('cannot use the saved session'))).toHaveLength(1);
    expect(savedTurns(dir)).toBe(2);
    recordFigure({
      area: 'sessions',
      fault: 'damaged session file',
      lost: 'the carried-over counters of that one session (turns, totals, placeholder words); its messages and compression are rebuilt from the conversation',
      recoveredMs,
    });
  });

  it('process killed (SIGKILL) mid-save: the file is whole (old or new), the next process cleans the temp files and carries on', async () => {
    const dir = tmp();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'test', 'faults', 'fixtures', 'writers.ts'), 'sessions', dir],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] },
    );
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    await new Promise((r) => setTimeout(r, 30));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const killedAt = performance.now();
    const files = new SessionFiles(dir, () => undefined);
    const saved = files.load('K');
    expect(saved?.session_id).toBe('K');
    expect(saved?.turns).toBeGreaterThanOrEqual(20);
    // Simulate what a save cut short leaves behind, from the killed process's pid.
    writeFileSync(join(dir, 'sessions', `K.json.${child.pid}.99.tmp`), '{"half":');
    files.save('K', JSON.stringify({ ...saved, turns: (saved?.turns ?? 0) + 1 }));
    await files.flush();
    const recoveredMs = performance.now() - killedAt;
    expect(readdirSync(join(dir, 'sessions'))).toEqual(['K.json']);
    expect(files.load('K')?.turns).toBe((saved?.turns ?? 0) + 1);
    recordFigure({
      area: 'sessions',
      fault: 'process killed with SIGKILL mid-save',
      lost: 'nothing on disk (the save in flight; the file keeps the previous turn)',
      recoveredMs,
    });
  });
});
