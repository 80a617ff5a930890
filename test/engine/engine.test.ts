import { describe, expect, it } from 'vitest';
import { ResyncError } from '../../src/core/host-api.js';
import { InProcessHost } from '../../src/hosts/in-process.js';
import { replaySession } from '../../src/app/replay.js';
import { safeJson } from '../../src/engine/session/hashing.js';
import type { Message } from '../../src/core/message.js';
import {
  assistantCall,
  config,
  engine,
  longLog,
  pythonSource,
  readFile,
  RecordingSink,
  reply,
  terminal,
  toolResult,
  user,
} from '../helpers/conversation.js';

const S = 'session-1';

function snapshot(messages: readonly Message[]): string[] {
  return messages.map((m) => safeJson(m));
}

describe('post_tool_call', () => {
  it('returns a shorter replacement for a long log, keeping the error line from its middle', () => {
    const e = engine();
    const result = e.postToolCall({
      session_id: S,
      tool_name: 'terminal',
      args: { command: 'make' },
      result: terminal(longLog()),
      tool_call_id: 'c1',
    });
    expect(result.replace).toBeDefined();
    const replaced = JSON.parse(result.replace as string) as { output: string; exit_code: number };
    expect(replaced.exit_code).toBe(0);
    expect(replaced.output).toContain('error TS2322');
    expect(replaced.output).toMatch(/lines omitted/);
    expect((result.replace as string).length).toBeLessThan(terminal(longLog()).length);
  });

  it('leaves protected tools, short outputs and non-string results alone', () => {
    const e = engine();
    expect(
      e.postToolCall({
        session_id: S,
        tool_name: 'write_file',
        args: {},
        result: terminal(longLog()),
        tool_call_id: 'w',
      }),
    ).toEqual({});
    expect(
      e.postToolCall({ session_id: S, tool_name: 'terminal', args: {}, result: terminal('ok'), tool_call_id: 'x' }),
    ).toEqual({});
    expect(
      e.postToolCall({ session_id: S, tool_name: 'terminal', args: {}, result: { parts: [1, 2] }, tool_call_id: 'y' }),
    ).toEqual({});
  });

  it('emits a tool event with real token counts and keeps an inspector record', () => {
    const sink = new RecordingSink();
    const e = engine(config(), sink);
    e.postToolCall({ session_id: S, tool_name: 'terminal', args: {}, result: terminal(longLog()), tool_call_id: 'c1' });
    e.settle();
    const event = sink.events.find((ev) => ev.type === 'tool');
    expect(event).toMatchObject({
      type: 'tool',
      tool_name: 'terminal',
      tool_call_id: 'c1',
      strategies: ['truncation'],
    });
    if (event?.type !== 'tool') throw new Error('no tool event');
    expect(event.tokens_after).toBeLessThan(event.tokens_before);
    expect(sink.inspections[0]?.before).toBe(terminal(longLog()));
  });

  it('never fails the host on garbage params', () => {
    const e = engine();
    expect(
      e.postToolCall({
        session_id: S,
        tool_name: 42 as unknown as string,
        args: null,
        result: '\u0000\uffff binary',
        tool_call_id: undefined,
      }),
    ).toEqual({});
    expect(e.postToolCall({ session_id: '', tool_name: 't', args: {}, result: 'x' })).toEqual({});
  });
});

describe('pre_llm_call and restore', () => {
  function conversation(): Message[] {
    return [
      { role: 'system', content: 'You are a coding agent.' },
      user('fix the build'),
      assistantCall('c1', 'terminal', { command: 'make' }),
      toolResult('c1', 'terminal', terminal(longLog())),
      assistantCall('c2', 'read_file', { path: 'src/app.py' }),
      toolResult('c2', 'read_file', readFile(pythonSource())),
      reply('I found the error.'),
      user('thanks, go on'),
    ];
  }

  it('edits only tool messages, in place, and restores them byte-exactly', () => {
    const e = engine();
    const host = new InProcessHost(e);
    const messages = conversation();
    const before = snapshot(messages);
    const originals = messages.map((m) => m.content);
    host.preLlmCall(S, messages);
    expect(messages[3]?.content).not.toBe(originals[3]);
    expect(messages[5]?.content).not.toBe(originals[5]);
    for (const i of [0, 1, 2, 4, 6, 7]) expect(messages[i]?.content).toBe(originals[i]);
    host.onSessionEnd(S);
    expect(snapshot(messages)).toEqual(before);
    messages.forEach((m, i) => {
      expect(m.content).toBe(originals[i]);
    });
  });

  it('answers the same edits for the full list and for base + append', () => {
    const full = engine();
    const inc = engine();
    const messages = conversation();
    const a = full.preLlmCall({ session_id: S, messages: messages.slice(0, 4) });
    const b = inc.preLlmCall({ session_id: S, messages: messages.slice(0, 4) });
    expect(b).toEqual(a);
    const fullAnswer = full.preLlmCall({ session_id: S, messages });
    const incAnswer = inc.preLlmCall({ session_id: S, base: 4, append: messages.slice(4) });
    expect(incAnswer.edits).toEqual(fullAnswer.edits);
  });

  it('asks for a resync when it does not hold the base', () => {
    const e = engine();
    expect(() => e.preLlmCall({ session_id: S, base: 3, append: [user('x')] })).toThrow(ResyncError);
  });

  it('notices a rewritten history and starts over from the first changed message', () => {
    const e = engine();
    const messages = conversation();
    e.preLlmCall({ session_id: S, messages });
    const rewritten = [messages[0] as Message, user('summary of earlier work'), ...messages.slice(4)];
    const answer = e.preLlmCall({ session_id: S, messages: rewritten });
    expect(answer.edits.map((x) => x.index)).toEqual([3]);
  });

  it('passes everything through untouched when enabled is false', () => {
    const e = engine(config((c) => (c.enabled = false)));
    expect(e.preLlmCall({ session_id: S, messages: conversation() })).toEqual({ edits: [] });
    expect(
      e.postToolCall({
        session_id: S,
        tool_name: 'terminal',
        args: {},
        result: terminal(longLog()),
        tool_call_id: 'c',
      }),
    ).toEqual({});
  });

  it('sends the context hint once per session', () => {
    const e = engine();
    expect(e.preLlmCall({ session_id: S, messages: [user('a')] }).context).toMatch(/Context management/);
    expect(e.preLlmCall({ session_id: S, messages: [user('a'), reply('b'), user('c')] }).context).toBeUndefined();
  });

  it('never touches multimodal content, unknown roles or messages without ids', () => {
    const e = engine();
    const parts = [{ type: 'text', text: longLog() }];
    const messages: Message[] = [
      user('x'),
      { role: 'tool', content: parts },
      { role: 'weird', content: longLog() },
      { role: 'tool', content: terminal(longLog()) },
    ];
    const answer = e.preLlmCall({ session_id: S, messages });
    expect(answer.edits.map((x) => x.index)).toEqual([3]);
    expect(messages[1]?.content).toBe(parts);
  });
});

describe('batched rewrites (dedup, error purge)', () => {
  it('sends a new exact repeat of an earlier output as a pointer to it, at once and without a cache break', () => {
    const e = engine();
    const out = terminal(Array.from({ length: 40 }, (_, i) => `file_${i}.txt`).join('\n'));
    const messages: Message[] = [
      user('list'),
      assistantCall('a', 'terminal', { command: 'ls' }),
      toolResult('a', 'terminal', out),
      reply('ok'),
    ];
    e.preLlmCall({ session_id: S, messages });
    messages.push(user('again'), assistantCall('b', 'terminal', { command: 'ls' }), toolResult('b', 'terminal', out));
    const answer = e.preModelCall({ session_id: S, messages });
    expect(answer.edits.map((x) => x.index)).toEqual([6]);
    expect(JSON.parse(answer.edits[0]?.content as string)).toMatchObject({
      output: expect.stringMatching(/^\[Same output as the earlier terminal call a \(recall id=r[0-9a-f]{10}\)\]$/),
      exit_code: 0,
    });
    expect(e.sessions.get(S)?.counts.cacheBreaks).toBe(0);
  });

  it('leaves an older copy of the same call alone while rewriting it would cost more than it saves', () => {
    const e = engine();
    const listing = (n: number) => terminal(Array.from({ length: 40 }, (_, i) => `file_${i}_${n}.txt`).join('\n'));
    const messages: Message[] = [
      user('list'),
      assistantCall('a', 'terminal', { command: 'ls' }),
      toolResult('a', 'terminal', listing(1)),
      reply('ok'),
    ];
    e.preLlmCall({ session_id: S, messages });
    messages.push(
      user('again'),
      assistantCall('b', 'terminal', { command: 'ls' }),
      toolResult('b', 'terminal', listing(2)),
    );
    // The old listing is small next to the cache it would break (and under cache.min_batch_tokens).
    expect(e.preModelCall({ session_id: S, messages }).edits).toEqual([]);
    const cheap = engine(
      config((c) => {
        c.cache.min_batch_tokens = 0;
        c.cache.first_break_after = 0;
      }),
    );
    cheap.preLlmCall({ session_id: S, messages: messages.slice(0, 4) });
    const answer = cheap.preModelCall({ session_id: S, messages });
    expect(answer.edits.map((x) => x.index)).toEqual([2]);
    expect(JSON.parse(answer.edits[0]?.content as string)).toMatchObject({
      output: expect.stringContaining('called 2× with same args'),
      exit_code: 0,
    });
  });

  it('purges a failure once it is old enough, saying which tool failed and why', () => {
    const e = engine(
      config((c) => {
        c.strategies.purge_errors.turns = 2;
        c.cache.min_batch_tokens = 0;
      }),
    );
    const failure = terminal(
      `Traceback (most recent call last):\n  File "x.py", line 1\nModuleNotFoundError: No module named 'foo'\n${'noise\n'.repeat(40)}`,
      1,
    );
    const messages: Message[] = [
      user('run'),
      assistantCall('a', 'terminal', { command: 'python x.py' }),
      toolResult('a', 'terminal', failure),
      reply('failed'),
    ];
    for (let t = 0; t < 3; t++) messages.push(user(`turn ${t}`), reply('ok'));
    const answer = e.preLlmCall({ session_id: S, messages });
    const edit = answer.edits.find((x) => x.index === 2);
    expect(edit).toBeDefined();
    const parsed = JSON.parse(edit?.content as string) as { output: string; exit_code: number };
    expect(parsed.exit_code).toBe(1);
    expect(parsed.output).toMatch(/Error output removed - terminal failed 3 turns ago: .*ModuleNotFoundError/);
  });

  it('counts a cache break only when an already-sent message is rewritten', () => {
    const listing = (n: number) => terminal(Array.from({ length: 200 }, (_, i) => `entry ${i} of run ${n}`).join('\n'));
    const conversation = (c: ReturnType<typeof config>) =>
      replaySession(
        [
          user('a'),
          assistantCall('1', 'terminal', { command: 'ls' }),
          toolResult('1', 'terminal', listing(1)),
          reply('.'),
          user('b'),
          assistantCall('2', 'terminal', { command: 'ls' }),
          toolResult('2', 'terminal', listing(2)),
          reply('.'),
          ...Array.from({ length: 4 }, (_, i) => [user(`t${i}`), reply('.')]).flat(),
        ],
        { config: c },
      );
    const waiting = conversation(config());
    expect(waiting.restore_exact).toBe(true);
    expect(waiting.cache_breaks).toBe(0);
    const paying = conversation(
      config((c) => {
        c.cache.min_batch_tokens = 0;
        c.cache.first_break_after = 0;
      }),
    );
    expect(paying.restore_exact).toBe(true);
    expect(paying.cache_breaks).toBe(1);
    expect(paying.saved_by_strategy.dedup).toBeGreaterThan(0);
  });
});

describe('control', () => {
  it('reports status and fixes the original manual_set "false" bug', async () => {
    const e = engine();
    e.postToolCall({ session_id: S, tool_name: 'terminal', args: {}, result: terminal(longLog()), tool_call_id: 'c' });
    expect(await e.control({ session_id: S, args: { action: 'manual_set', enabled: 'false' } })).toEqual({
      status: 'ok',
      manual_mode: false,
    });
    expect(await e.control({ session_id: S, args: { action: 'manual_set', enabled: 'true' } })).toEqual({
      status: 'ok',
      manual_mode: true,
    });
    expect(await e.control({ session_id: S, args: { action: 'manual_set', enabled: 'maybe' } })).toHaveProperty(
      'error',
    );
    const status = await e.control({ session_id: S, args: { action: 'status' } });
    expect(status.status).toMatch(
      /^HMC \[manual\] \| ctx: .* \| input saved: .* tokens over \d+ model calls? .*\| context saved now: .* \| tools: 1 tracked, 0 pruned/,
    );
    expect(await e.control({ args: { action: 'nope' } })).toHaveProperty('error');
    expect(await e.control({ session_id: S, args: { action: 'sweep', count: 'abc' } })).toHaveProperty('error');
  });

  it('sweeps the latest tool outputs at the next model call', async () => {
    const e = engine();
    const messages: Message[] = [
      user('go'),
      assistantCall('a', 'terminal', { command: 'env' }),
      toolResult('a', 'terminal', terminal(Array.from({ length: 40 }, (_, i) => `VAR_${i}=value\n`).join(''))),
    ];
    e.preLlmCall({ session_id: S, messages });
    expect(await e.control({ session_id: S, args: { action: 'sweep' } })).toEqual({ status: 'ok', swept: 1 });
    const answer = e.preLlmCall({ session_id: S, messages: [...messages, reply('.')] });
    expect(answer.edits[0]?.content).toContain('Output removed to save context');
  });

  it('answers /hmc commands as text, with key=value arguments', async () => {
    const e = engine();
    e.preLlmCall({ session_id: S, messages: [user('x')] });
    expect(await e.command({ session_id: S, raw_args: 'status' })).toMatch(/^HMC \[auto\]/);
    expect(await e.command({ session_id: S, raw_args: 'help' })).toMatch(/manual_set/);
    expect(await e.command({ session_id: S, raw_args: 'dashboard action=start' })).toMatch(/not available/);
    expect(await e.command({ session_id: S, raw_args: 'sweep count' })).toMatch(/key=value/);
  });
});

describe('hard inputs through the hooks', () => {
  it('handles a 5 MB log in post_tool_call and pre_llm_call, keeping its failure', () => {
    const e = engine();
    const big = Array.from({ length: 150_000 }, (_, i) =>
      i === 54_321 ? 'FATAL: out of memory in worker 7' : `INFO ${i} request served in ${i % 50} ms`,
    ).join('\n');
    expect(big.length).toBeGreaterThan(5_000_000);
    const raw = terminal(big);
    const answer = e.postToolCall({
      session_id: S,
      tool_name: 'terminal',
      args: { command: 'cat server.log' },
      result: raw,
      tool_call_id: 'big',
    });
    expect(answer.replace?.length).toBeLessThan(5000);
    expect(answer.replace).toContain('FATAL: out of memory');
    const view = e.preLlmCall({
      session_id: S,
      messages: [
        user('why did it crash?'),
        assistantCall('big', 'terminal', { command: 'cat server.log' }),
        toolResult('big', 'terminal', raw),
      ],
    });
    expect(view.edits[0]?.content).toBe(answer.replace);
  });

  it('passes binary junk, CJK and emoji through without throwing and never grows them', () => {
    const e = engine();
    const junk =
      Array.from({ length: 3000 }, (_, i) => String.fromCharCode(i % 65536)).join('') + '日本語🎉'.repeat(200);
    const answer = e.postToolCall({ session_id: S, tool_name: 'terminal', args: {}, result: junk, tool_call_id: 'j' });
    if (answer.replace !== undefined) expect(answer.replace.length).toBeLessThan(junk.length);
  });

  it('answers pass-through for tool messages without ids or names and for unknown roles', () => {
    const e = engine();
    const messages: Message[] = [
      user('x'),
      { role: 'tool', content: longLog() },
      { role: 'function', content: longLog() },
      { role: 'developer', content: 'y' },
    ];
    const answer = e.preLlmCall({ session_id: S, messages });
    expect(answer.edits.map((x) => x.index)).toEqual([1]);
  });
});
