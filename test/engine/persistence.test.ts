/**
 * A session carried on by a new process (Hermes `hermes chat -q` starts one per turn): the same
 * rewrites, the same placeholder bytes, the same totals; nothing counted twice.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.js';
import { NULL_SINK } from '../../src/events/types.js';
import type { Message } from '../../src/core/message.js';
import { assistantCall, config, reply, terminal, toolResult, user } from '../helpers/conversation.js';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function processEngine(stateDir: string): Engine {
  const c = config((x) => (x.cache.min_batch_tokens = 0));
  return new Engine({ config: () => c, stateDir, sink: NULL_SINK, recorder: null, log: () => {}, autoSettle: false });
}

const listing = terminal(Array.from({ length: 40 }, (_, i) => `file_${i}.txt`).join('\n'));

function turn(n: number): Message[] {
  return [
    user(`turn ${n}`),
    assistantCall(`c${n}`, 'terminal', { command: 'ls' }),
    toolResult(`c${n}`, 'terminal', listing),
    reply('listed'),
  ];
}

describe('a session carried on by a new process', () => {
  it('keeps placeholders word for word and counts every model call once', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hmc-persist-'));
    const messages: Message[] = [...turn(1), ...turn(2)];
    const first = processEngine(dir);
    first.preLlmCall({ session_id: 'S', messages: [...messages, user('turn 3')] });
    first.onSessionEnd({ session_id: 'S' });
    await first.flushSaves();
    const sent = first
      .preLlmCall({ session_id: 'S', messages: [...messages, user('turn 3')] })
      .edits.find((e) => e.index === 6)?.content;
    expect(sent).toContain('Same output as the earlier terminal call c1');
    const calls = first.sessions.get('S')?.ledger.modelCalls;

    // The next turn, in a new process: a third identical call joined the group.
    messages.push(user('turn 3'), ...turn(4).slice(1));
    const second = processEngine(dir);
    const edits = second.preLlmCall({ session_id: 'S', messages: [...messages, user('turn 5')] }).edits;
    expect(edits.find((e) => e.index === 6)?.content).toBe(sent);
    expect(edits.find((e) => e.index === 10)?.content).toContain('Same output as the earlier terminal call c1');
    expect(second.sessions.get('S')?.counts.cacheBreaks).toBe(0);
    second.settle();
    // Calls already counted by the first process are not counted again; the new reply is.
    expect(second.sessions.get('S')?.ledger.modelCalls).toBe((calls ?? 0) + 2);
    second.onSessionEnd({ session_id: 'S' });
    await second.flushSaves();
    const files = readdirSync(join(dir, 'sessions'));
    expect(files).toEqual(['S.json']);
    expect((statSync(join(dir, 'sessions', 'S.json')).mode & 0o777).toString(8)).toBe('600');
    // No tool output or argument is on disk.
    expect(readFileSync(join(dir, 'sessions', 'S.json'), 'utf8')).not.toContain('file_1.txt');
  });
});

describe('an error placeholder carried on by a new process', () => {
  it('states the same age in the same words and keeps the failure text off the disk', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hmc-persist-'));
    const failure = terminal(
      `Traceback (most recent call last):\nValueError: secret-ish detail 42\n${'context line\n'.repeat(30)}`,
      1,
    );
    const c = config((x) => {
      x.cache.min_batch_tokens = 0;
      x.strategies.purge_errors.turns = 1;
    });
    const make = () =>
      new Engine({ config: () => c, stateDir: dir, sink: NULL_SINK, recorder: null, log: () => {}, autoSettle: false });
    const messages: Message[] = [
      user('run'),
      assistantCall('f', 'terminal', { command: 'python x.py' }),
      toolResult('f', 'terminal', failure),
      reply('it failed'),
      user('next'),
    ];
    const first = make();
    const sent = first.preLlmCall({ session_id: 'E', messages }).edits.find((e) => e.index === 2)?.content;
    expect(sent).toContain('failed 1 turn ago: ValueError: secret-ish detail 42');
    first.onSessionEnd({ session_id: 'E' });
    await first.flushSaves();
    expect(readFileSync(join(dir, 'sessions', 'E.json'), 'utf8')).not.toContain('secret-ish');
    const second = make();
    messages.push(reply('ok'), user('and again'));
    expect(second.preLlmCall({ session_id: 'E', messages }).edits.find((e) => e.index === 2)?.content).toBe(sent);
    await second.flushSaves();
  });
});
