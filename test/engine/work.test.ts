/**
 * Did compression cost the agent work (issue 17, finding 7)? The agent's recalls, its re-reads of
 * file parts whose earlier read HMC had shortened, and what each tool and shell program's outputs
 * saved when they arrived, through the hooks and into the session's record.
 */
import { describe, expect, it } from 'vitest';
import { commandProgram } from '../../src/hosts/outputs/shell-command.js';
import type { Engine } from '../../src/engine/engine.js';
import { engine, longLog, readFile, terminal } from '../helpers/conversation.js';
import { sessionRecord } from '../../src/engine/turn/events.js';
import { askedToReadAgain } from '../../src/engine/session/work.js';

const S = 'work';
let n = 0;

/** A tool call through the hooks, its tokens counted. */
function call(e: Engine, tool: string, args: Record<string, unknown>, result: string): void {
  const id = `c${++n}`;
  e.preToolCall({ session_id: S, tool_name: tool, args, tool_call_id: id });
  e.postToolCall({ session_id: S, tool_name: tool, args, result, tool_call_id: id, status: 'ok' });
  e.settle();
}

/** A source file long enough for the code filter to elide its bodies. */
const SOURCE = readFile(
  Array.from({ length: 240 }, (_, i) =>
    i % 12 === 0 ? `def handler_${i}(request):` : `    value_${i} = request.get("field_${i}") or ${i}`,
  ),
);
const SHORT = readFile(['# a small file', 'x = 1']);

function record(e: Engine) {
  const s = e.sessions.get(S);
  if (!s) throw new Error('no session');
  return sessionRecord(s);
}

describe('recalls and re-reads', () => {
  it('counts a re-read of lines an earlier read showed shortened, not of a whole one, nor after a write', () => {
    const e = engine();
    e.preLlmCall({ session_id: S, messages: [{ role: 'user', content: 'look at the handlers' }] });
    call(e, 'read_file', { path: 'src/app.py' }, SOURCE);
    expect(e.sessions.get(S)?.held.records.get(`c${n}`)?.shortened).toBe(true);
    call(e, 'read_file', { path: 'src/small.py' }, SHORT);
    call(e, 'read_file', { path: 'src/small.py' }, SHORT);
    expect(record(e).work?.rereads).toBe(0);
    // The same file again, by another spelling of its path: the agent read again what HMC had cut.
    call(e, 'read_file', { path: './src/app.py', offset: 20, limit: 40 }, SOURCE);
    expect(record(e).work?.rereads).toBe(1);
    // Written since: reading it again is reading a new file.
    call(e, 'write_file', { path: 'src/app.py', content: 'x = 2\n' }, JSON.stringify({ bytes_written: 6 }));
    call(e, 'read_file', { path: 'src/app.py' }, SOURCE);
    expect(record(e).work?.rereads).toBe(1);
  });

  it("counts the agent's recalls, and never tallies HMC's own answers as outputs", async () => {
    const e = engine();
    e.preLlmCall({ session_id: S, messages: [{ role: 'user', content: 'run the build' }] });
    call(e, 'terminal', { command: 'make' }, terminal(longLog(400, 200), 1));
    call(
      e,
      'hmc_control',
      { action: 'recall', id: 'r123', lines: '190-210' },
      JSON.stringify({ id: 'r123', content: 'x' }),
    );
    call(e, 'hmc_control', { action: 'status' }, JSON.stringify({ status: 'HMC [auto]' }));
    const r = record(e);
    expect(r.work?.recalls).toBe(1);
    expect(r.work?.outputs.map((o) => o.tool)).toEqual(['terminal']);
    expect(r.work?.elided).toBe(1);
    const stats = await e.control({ session_id: S, args: { action: 'stats' } });
    expect(stats.work).toEqual({ recalls: 1, rereads: 0, elided: 1 });
  });
});

describe('outputs per tool and program', () => {
  it('tallies each output as it arrived and as first sent, shell commands by their program', () => {
    const e = engine();
    e.preLlmCall({ session_id: S, messages: [{ role: 'user', content: 'test it' }] });
    call(e, 'terminal', { command: 'cd repo && python -m pytest -q' }, terminal(longLog(300, 150), 1));
    call(e, 'terminal', { command: 'cd repo && pytest tests/' }, terminal(longLog(300, -1), 0));
    call(e, 'terminal', { command: 'git status' }, terminal('On branch main\nnothing to commit, working tree clean'));
    call(e, 'read_file', { path: 'src/app.py' }, SOURCE);
    const outputs = record(e).work?.outputs ?? [];
    const pytest = outputs.find((o) => o.program === 'pytest');
    expect(pytest).toMatchObject({ tool: 'terminal', kind: 'shell', outputs: 2 });
    expect(pytest!.tokens_sent).toBeLessThan(pytest!.tokens_raw);
    expect(outputs.find((o) => o.program === 'git status')).toMatchObject({ outputs: 1 });
    expect(outputs.find((o) => o.tool === 'read_file')).toMatchObject({ kind: 'read', program: '', outputs: 1 });
  });

  it('names programs as a person groups them', () => {
    expect(commandProgram('cd /repo && FOO=1 timeout 60 python3 -m pytest -x')).toBe('pytest');
    expect(commandProgram('git -C repo log --oneline | head')).toBe('git log');
    expect(commandProgram('npm run test -- --watch=false')).toBe('npm run test');
    expect(commandProgram('/usr/bin/make -j4 all')).toBe('make');
    expect(commandProgram('')).toBe('');
  });
});

describe('a read the user asked for is no re-read (issue 27, finding 6)', () => {
  /** The first turn reads src/app.py (shortened by HMC); the second turn's user message is `ask`; the agent reads it again. */
  function secondRead(ask: string, path = 'src/app.py'): number | undefined {
    const e = engine();
    const first = { role: 'user', content: 'look at the handlers' };
    e.preLlmCall({ session_id: S, messages: [first] });
    call(e, 'read_file', { path: 'src/app.py' }, SOURCE);
    expect(e.sessions.get(S)?.held.records.get(`c${n}`)?.shortened).toBe(true);
    e.preLlmCall({
      session_id: S,
      messages: [first, { role: 'assistant', content: 'Read it.' }, { role: 'user', content: ask }],
    });
    call(e, 'read_file', { path, offset: 20, limit: 40 }, SOURCE);
    return record(e).work?.rereads;
  }

  it('"read src/inventory.py once more", "read it again", "re-read app.py": not counted against HMC', () => {
    expect(secondRead('read src/app.py once more')).toBe(0);
    expect(secondRead('Please read it again, carefully.')).toBe(0);
    expect(secondRead('re-read app.py and tell me what changed')).toBe(0);
    expect(secondRead([{ type: 'text', text: 'Open ./src/app.py one more time' }] as unknown as string)).toBe(0);
  });

  it('a message that does not ask, or asks for another file, still counts the re-read', () => {
    expect(secondRead('now fix the bug')).toBe(1);
    expect(secondRead('fix the handler in src/app.py')).toBe(1);
    expect(secondRead('read src/other.py again')).toBe(1);
    expect(secondRead('try again')).toBe(1);
  });

  it('the rule, word by word', () => {
    expect(askedToReadAgain('read src/inventory.py once more', '/repo/src/inventory.py')).toBe(true);
    expect(askedToReadAgain('REREAD inventory.py', 'src/inventory.py')).toBe(true);
    expect(askedToReadAgain('look at it again', 'src/inventory.py')).toBe(true);
    expect(askedToReadAgain('show me config.yaml and inventory.py again', 'inventory.py')).toBe(true);
    expect(askedToReadAgain('read inventory.py', 'inventory.py')).toBe(false);
    expect(askedToReadAgain('run the tests again', 'inventory.py')).toBe(false);
    expect(askedToReadAgain('read main.py again', 'inventory.py')).toBe(false);
    expect(askedToReadAgain('', 'inventory.py')).toBe(false);
  });
});
