import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../../src/engine/engine.js';
import { messageTokens, toolsTokens } from '../../src/core/tokens.js';
import { contextView, parseContextBreakdown, type ContextView } from '../../src/core/context-view.js';
import type { Message } from '../../src/core/message.js';
import { assistantCall, config, engine, longLog, terminal, toolResult, user } from '../helpers/conversation.js';

const S = 'ctx';
const SYSTEM = 'You are a coding agent. Be brief.';

function schema(name: string, words: number): Record<string, unknown> {
  return {
    type: 'function',
    function: {
      name,
      description: `${name} `.repeat(words),
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
    },
  };
}

const TOOLS = [
  schema('terminal', 40),
  schema('read_file', 20),
  schema('browser_navigate', 60),
  schema('<img src=x onerror=alert(1)>', 5),
  schema('hmc_control', 10),
];

function turn(n: number): Message[] {
  const out: Message[] = [user('fix the build')];
  for (let i = 0; i < n; i++)
    out.push(
      assistantCall(`c${i}`, 'terminal', { command: `make step${i}` }),
      toolResult(`c${i}`, 'terminal', terminal(longLog(200, 100 + i))),
    );
  out.push({ role: 'assistant', content: 'Done: the build passes.' });
  return out;
}

async function contextOf(
  e: Engine,
  args: Record<string, unknown> = {},
): Promise<Record<string, unknown> & { breakdown: ContextView | null }> {
  return (await e.control({ session_id: S, args: { action: 'context', ...args } })) as Record<string, unknown> & {
    breakdown: ContextView | null;
  };
}

describe('hmc_control context: where the context goes', () => {
  it('splits the latest request into parts that add up to the context the ledger reports, raw and sent', async () => {
    const e = engine();
    const messages = turn(4);
    e.preToolCall({ session_id: S, tool_name: 'terminal', tool_call_id: 'c0', args: {} });
    e.preModelCall({ session_id: S, messages, system: SYSTEM, tools: TOOLS, context_length: 128_000 });
    const r = await contextOf(e);
    const b = r.breakdown as ContextView;
    expect(b).not.toBeNull();
    // The old fields stay as they were.
    expect(r.context_tokens_estimate).toBe(b.total.sent);
    expect(r.context_tokens_raw).toBe(b.total.raw);
    expect(b.parts.reduce((n, p) => n + p.sent, 0)).toBe(b.total.sent);
    const part = (name: string) => b.parts.find((p) => p.part === name) as { raw: number; sent: number };
    expect(part('system_prompt').sent).toBe(messageTokens({ content: SYSTEM }));
    expect(part('tool_schemas').sent).toBe(toolsTokens(TOOLS));
    expect(part('tool_outputs').raw).toBeGreaterThan(part('tool_outputs').sent); // HMC shortened the long logs
    expect(part('tool_call_arguments').raw).toBeGreaterThan(0);
    expect(part('user').raw).toBe(messageTokens(messages[0] as Message));
    expect(part('assistant').raw).toBe(messageTokens({ content: 'Done: the build passes.' }) + 4 * 4);
    // One row per schema, largest first, each its own JSON's tokens; joints make up the difference.
    expect(b.tools.map((t) => t.name).sort()).toEqual(TOOLS.map((t) => (t.function as { name: string }).name).sort());
    expect(b.tools.map((t) => t.tokens)).toEqual(b.tools.map((t) => t.tokens).sort((x, y) => y - x));
    expect(b.tools.reduce((n, t) => n + t.tokens, 0) + b.tool_schemas_joints).toBe(toolsTokens(TOOLS));
    // The four terminal calls the conversation holds; no other tool was called.
    expect(b.tools.find((t) => t.name === 'terminal')?.calls_session).toBe(4);
    expect(b.tools.filter((t) => t.name !== 'terminal').every((t) => t.calls_session === 0)).toBe(true);
    expect(b.context_window).toBe(128_000);
  });

  it('advises leaving out the tools never called, naming them, and never its own tool', async () => {
    const e = engine();
    e.preToolCall({ session_id: S, tool_name: 'terminal', tool_call_id: 'c0', args: {} });
    e.preModelCall({ session_id: S, messages: turn(1), system: SYSTEM, tools: TOOLS });
    const b = (await contextOf(e)).breakdown as ContextView;
    expect([...b.unused_tools].sort()).toEqual(['<img src=x onerror=alert(1)>', 'browser_navigate', 'read_file']);
    expect(b.unused_tokens).toBe(
      b.tools.filter((t) => b.unused_tools.includes(t.name)).reduce((n, t) => n + t.tokens, 0),
    );
    expect(b.advice).toHaveLength(1);
    expect(b.advice[0]).toMatch(
      /^tool schemas are [\d.]+ % of each request; these 3 tools were never called in this session/,
    );
    expect(b.advice[0]).toContain('hermes tools disable <toolset>');
    expect(b.advice[0]).not.toContain('hmc_control');
    expect(b.period_note).toMatch(/analytics is off/);
  });

  it('counts calls over the period from the analytics store when it answers', () => {
    const b = {
      session_id: S,
      at: 0,
      model: '',
      context_window: null,
      total: { raw: 100, sent: 100 },
      parts: [
        { part: 'tool_schemas' as const, raw: 60, sent: 60 },
        { part: 'user' as const, raw: 40, sent: 40 },
      ],
      tools: [
        { name: 'a', tokens: 30, calls_session: 0 },
        { name: 'b', tokens: 30, calls_session: 0 },
      ],
      tool_schemas_joints: 0,
      request_seen: true,
      problems: [],
    };
    const v = contextView(b, new Map([['a', 3]]), 30);
    expect(v.tools.map((t) => t.calls_period)).toEqual([3, 0]);
    expect(v.unused_tools).toEqual(['b']);
    expect(v.advice[0]).toMatch(
      /^tool schemas are 60 % of each request; this tool was never called in 30 days and cost 30 tokens a call \(b\)/,
    );
  });

  it('says so when no request was seen, and names a session it will not show', async () => {
    const e = engine();
    e.preToolCall({ session_id: S, tool_name: 'terminal', tool_call_id: 'c0', args: {} });
    const r = await contextOf(e);
    expect(r.breakdown).toBeNull();
    expect(r.breakdown_note).toMatch(/no request seen in this session yet/);
    expect(await e.command({ session_id: S, raw_args: 'context' })).toContain('no request seen in this session yet');
    expect((await contextOf(e, { session: 'another' })).error).toMatch(/context shows this session only/);
    expect((await contextOf(e, { days: 'lots' })).error).toBe('days must be a whole number from 1 to 3650, got "lots"');
    // A session id the engine never saw is a new session of the host's: nothing to show yet.
    expect((await engine().control({ session_id: 'nobody', args: { action: 'context' } })).breakdown_note).toMatch(
      /no request seen/,
    );
    expect(
      (
        await new Engine({
          config: () => config(),
          stateDir: null,
          sink: { emit() {}, inspect() {} } as never,
          recorder: null,
          log: () => {},
        }).control({ args: { action: 'context' } })
      ).error,
    ).toMatch(/Could not determine session/);
  });

  it('names a tool schema that is not an object, and counts it as sent', async () => {
    const e = engine();
    const tools = [schema('terminal', 5), 'not a schema', { type: 'function' }];
    e.preModelCall({ session_id: S, messages: turn(1), system: SYSTEM, tools });
    const b = (await contextOf(e)).breakdown as ContextView;
    expect(b.problems).toEqual([
      'tool schema 2 is not an object (it is a string); counted as sent, under the name #2',
      'tool schema 3 names no tool (no function.name or name); shown as #3',
    ]);
    expect(b.tools.reduce((n, t) => n + t.tokens, 0) + b.tool_schemas_joints).toBe(toolsTokens(tools));
  });

  it('/hmc context answers aligned columns: every row of a table is as wide as its header', async () => {
    const e = engine();
    e.preModelCall({ session_id: S, messages: turn(2), system: SYSTEM, tools: TOOLS, context_length: 128_000 });
    const text = await e.command({ session_id: S, raw_args: 'context days=7' });
    const lines = text.split('\n');
    expect(lines.find((l) => l.startsWith('Latest request:'))).toMatch(
      /^Latest request: [\d.]+K? tokens sent \([\d.]+K? without HMC\) of a 128K window, [\d.]+ %$/,
    );
    const parts = lines.slice(
      lines.findIndex((l) => l.trim().startsWith('part')),
      lines.findIndex((l) => l.trim().startsWith('total')) + 1,
    );
    expect(parts.length).toBe(8);
    // Right-aligned figures: each row ends its sent column where the header's does.
    const end = (parts[0] as string).indexOf('sent') + 4;
    for (const l of parts.slice(1)) expect(l.slice(0, end)).toMatch(/[\dK]$/);
    expect(text).toContain('<img src=x onerror=alert(1)>');
    expect(text).toMatch(/calls 7 d +calls session\n/);
    // No analytics here: the period's calls are unknown ("--"), and the text says why.
    expect(text).toMatch(/\n {2}terminal +\d+ +-- +2\n/);
    expect(text).toContain('analytics is off: calls are counted in this session only');
    expect(text).toMatch(/\nAdvice: tool schemas are/);
  });

  it('keeps the breakdown in the session file, and a new process shows it until it sees a request', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hmc-ctx-'));
    try {
      const opts = { config: () => config(), stateDir: dir, sink: undefined, recorder: null, log: () => {} };
      const a = new Engine({ ...opts, sink: { emit() {}, inspect() {} } as never });
      a.preModelCall({ session_id: S, messages: turn(2), system: SYSTEM, tools: TOOLS });
      const live = (await a.control({ session_id: S, args: { action: 'context' } })).breakdown as ContextView;
      a.onSessionEnd({ session_id: S });
      await a.flushSaves();
      const saved = parseContextBreakdown(JSON.parse(readFileSync(join(dir, 'sessions', `${S}.json`), 'utf8')).context);
      expect(saved?.total).toEqual(live.total);
      const b = new Engine({ ...opts, sink: { emit() {}, inspect() {} } as never });
      const r = await b.control({ session_id: S, args: { action: 'context' } });
      expect((r.breakdown as ContextView).total).toEqual(live.total);
      expect(r.breakdown_note).toMatch(/^as saved at \S+; no request in this process yet$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a tool schema shown cut short', () => {
  it('says the counts are short when the host showed the schemas depth-limited (Hermes 0.16 hooks)', async () => {
    const e = engine();
    const cut = {
      type: 'function',
      function: {
        name: 'terminal',
        description: 'Runs a command.',
        parameters: { type: 'object', properties: { command: '<dict depth limit>' } },
      },
    };
    e.preModelCall({ session_id: S, messages: turn(1), system: SYSTEM, tools: [cut, schema('read_file', 3)] });
    const b = (await contextOf(e)).breakdown as ContextView;
    expect(b.problems).toEqual([
      '1 tool schema was shown to HMC cut short (values below a depth replaced by "<… depth limit>", as Hermes 0.16\'s hooks show them): their tokens here are fewer than were sent',
    ]);
  });
});
