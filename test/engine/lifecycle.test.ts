/**
 * A session's life (issue 17, finding 4): ended means finished. A host process that exits (Hermes
 * finalizes with `reason: "shutdown"` after every `hermes chat -q` run and on `/quit`; its TUI with
 * no reason) leaves the session idle: one `session_idle` event per process, `ended_at` stays null,
 * and the next process resumes it. Only a real end (`/new`, an expiry, a reset, a replay's end)
 * emits `session_end`, once, and sets `ended_at`. Before, each `-q` turn emitted a `session_end`
 * (6 for one session of six turns).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { finishesSession } from '../../src/core/host-api.js';
import { Engine } from '../../src/engine/engine.js';
import type { SessionRecord } from '../../src/store/types.js';
import type { Message } from '../../src/core/message.js';
import {
  assistantCall,
  config,
  longLog,
  RecordingSink,
  reply,
  terminal,
  toolResult,
  user,
} from '../helpers/conversation.js';

const dirs: string[] = [];
const engines: Engine[] = [];
afterEach(async () => {
  // Saves and recall copies are written off the hook path: let them land before the dir goes.
  for (const e of engines.splice(0)) await Promise.all([e.flushSaves(), e.recall.flush()]);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});
const stateDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'hmc-life-'));
  dirs.push(d);
  return d;
};

/** One process of the host: an engine over the shared state dir, its events and analytics records. */
function processOver(dir: string) {
  const sink = new RecordingSink();
  const records: SessionRecord[] = [];
  const e = new Engine({
    config: () => config(),
    stateDir: dir,
    sink,
    recorder: { record: (r) => records.push(r) },
    log: () => {},
    autoSettle: true,
  });
  const kinds = (type: string) => sink.events.filter((x) => x.type === type).map((x) => x.session_id);
  engines.push(e);
  return { e, sink, records, kinds };
}

/** One user turn of session `sid` in `history`: a long build log, then an answer. */
function turn(e: Engine, sid: string, history: Message[], n: number): void {
  history.push(user(`turn ${n}: build it`));
  e.preLlmCall({ session_id: sid, messages: history });
  e.preModelCall({ session_id: sid, messages: history, call_id: `${n}:0` });
  history.push(assistantCall(`c${n}`, 'terminal', { command: 'make' }));
  e.postToolCall({
    session_id: sid,
    tool_name: 'terminal',
    args: { command: 'make' },
    result: terminal(longLog(200)),
    tool_call_id: `c${n}`,
  });
  history.push(toolResult(`c${n}`, 'terminal', terminal(longLog(200))));
  e.preModelCall({ session_id: sid, messages: history, call_id: `${n}:1` });
  history.push(reply('built'));
  e.onSessionEnd({ session_id: sid });
}

describe('a session\u2019s life', () => {
  it('which reasons finish a session: any stated one but a process exit', () => {
    for (const reason of ['session_boundary', 'new_session', 'session_expired', 'replay', 'finished', 'reset'])
      expect(finishesSession(reason)).toBe(true);
    for (const reason of ['shutdown', 'SHUTDOWN', ' shutdown ', '', undefined, null, 42])
      expect(finishesSession(reason)).toBe(false);
  });

  it('one process per turn (hermes chat -q): idle after each process, never ended; a real end ends it once', async () => {
    const dir = stateDir();
    const history: Message[] = [];
    const all: string[] = [];
    const records: SessionRecord[] = [];
    for (let n = 1; n <= 6; n++) {
      const p = processOver(dir);
      turn(p.e, 'S', history, n);
      p.e.onSessionFinalize({ session_id: 'S', reason: 'shutdown' });
      await p.e.flushSaves();
      all.push(
        ...p.sink.events.filter((x) => x.type === 'session_end' || x.type === 'session_idle').map((x) => x.type),
      );
      records.push(...p.records);
      expect(p.records.at(-1)?.ended_at).toBeNull();
      expect(p.records.at(-1)?.turns).toBe(n);
    }
    expect(all).toEqual(Array(6).fill('session_idle'));
    // The user starts a new session (/new): the old one is finished, in a process that resumed it.
    const last = processOver(dir);
    turn(last.e, 'S', history, 7);
    last.e.onSessionFinalize({ session_id: 'S', reason: 'session_boundary' });
    expect(last.kinds('session_end')).toEqual(['S']);
    expect(last.kinds('session_idle')).toEqual([]);
    expect(last.records.at(-1)?.ended_at).toEqual(expect.any(Number));
    expect(last.records.at(-1)?.turns).toBe(7);
  });

  it('a finalize without a reason (Hermes\u2019 TUI closing) leaves the session idle', () => {
    const p = processOver(stateDir());
    turn(p.e, 'T', [], 1);
    p.e.onSessionFinalize({ session_id: 'T' });
    expect(p.kinds('session_idle')).toEqual(['T']);
    expect(p.kinds('session_end')).toEqual([]);
  });

  it('an ended session resumed later is open again until its next real end', async () => {
    const dir = stateDir();
    const history: Message[] = [];
    const first = processOver(dir);
    turn(first.e, 'R', history, 1);
    first.e.onSessionFinalize({ session_id: 'R', reason: 'session_expired' });
    await first.e.flushSaves();
    expect(first.records.at(-1)?.ended_at).toEqual(expect.any(Number));
    const again = processOver(dir);
    turn(again.e, 'R', history, 2);
    expect(again.records.at(-1)?.ended_at).toBeNull();
    expect(again.records.at(-1)?.turns).toBe(2);
  });

  it('a real end of a session this process never held ends it from its saved state; an unknown one is left alone', async () => {
    const dir = stateDir();
    const before = processOver(dir);
    turn(before.e, 'G', [], 1);
    before.e.onSessionFinalize({ session_id: 'G', reason: 'shutdown' });
    await before.e.flushSaves();
    const gateway = processOver(dir);
    gateway.e.onSessionFinalize({ session_id: 'G', reason: 'session_expired' });
    gateway.e.onSessionFinalize({ session_id: 'never-seen', reason: 'session_expired' });
    expect(gateway.kinds('session_end')).toEqual(['G']);
    expect(gateway.records.map((r) => [r.session_id, r.ended_at !== null])).toEqual([['G', true]]);
  });

  it('when the host goes away without a word, what a hook touched goes idle; a session only read by /hmc does not', async () => {
    const dir = stateDir();
    const before = processOver(dir);
    turn(before.e, 'OLD', [], 1);
    before.e.onSessionFinalize({ session_id: 'OLD', reason: 'shutdown' });
    await before.e.flushSaves();
    const p = processOver(dir);
    turn(p.e, 'A', [], 1);
    expect(await p.e.command({ session_id: 'OLD', raw_args: 'status' })).toMatch(/saved: [1-9]/);
    const recorded = p.records.length;
    p.e.hostGone();
    expect(p.kinds('session_idle')).toEqual(['A']);
    expect(p.records.length).toBe(recorded + 1);
    expect(p.e.sessions.size).toBe(0);
    p.e.hostGone();
    expect(p.kinds('session_idle')).toEqual(['A']);
  });
});
