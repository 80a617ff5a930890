/**
 * The list-wide rewrites inside one long tool loop (issue 8): stale reads, clearing, the price rule
 * and the cache-break budget, the cold cache, and placeholders carried on by a new process.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HmcConfig } from '../../src/config/keys.js';
import { Engine } from '../../src/engine/engine.js';
import { MIN_CLEAR_TOKENS } from '../../src/strategies/list-wide/clearing.js';
import type { Message } from '../../src/core/message.js';
import { NULL_SINK } from '../../src/events/types.js';
import { assistantCall, config, terminal, toolResult, user } from '../helpers/conversation.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

const S = 'loop';
const source = (v: number, n = 300) =>
  JSON.stringify({
    content: Array.from({ length: n }, (_, i) => `${i + 1}|value_${i} = ${i * v}`).join('\n'),
    total_lines: n,
  });
const make = (c: HmcConfig, stateDir: string | null = null, now?: () => number): Engine =>
  new Engine({
    config: () => c,
    stateDir,
    sink: NULL_SINK,
    recorder: null,
    log: () => {},
    autoSettle: false,
    ...(now ? { now } : {}),
  });

const WORDS = [
  'river',
  'copper',
  'lantern',
  'orbit',
  'meadow',
  'cipher',
  'harbor',
  'violet',
  'summit',
  'ember',
  'quartz',
  'willow',
  'falcon',
  'tundra',
];
/** A page of prose that single-output compression leaves whole (no log shape, nothing repeated). */
const wide = (i: number) =>
  JSON.stringify({
    content: Array.from(
      { length: 40 },
      (_, k) =>
        Array.from({ length: 24 }, (_, w) => WORDS[(i * 31 + k * 7 + w * w) % WORDS.length]).join(' ') + ` (${i}.${k})`,
    ).join('\n'),
  });

/** The loop so far, one model call per step: returns the edits of the last call. */
function run(e: Engine, messages: Message[], from = 0, extra: Record<string, unknown> = {}) {
  let last: ReturnType<Engine['preModelCall']> = { edits: [] };
  for (let n = Math.max(from, 2); n <= messages.length; n++) {
    if (messages[n - 1]?.role === 'assistant') continue;
    last = e.preModelCall({ session_id: S, messages: messages.slice(0, n), ...extra });
  }
  return last;
}

function filler(count: number, offset = 0): Message[] {
  return Array.from({ length: count }, (_, i) => [
    assistantCall(`f${offset + i}`, 'terminal', { command: `echo ${offset + i}` }),
    toolResult(`f${offset + i}`, 'terminal', terminal(`step ${offset + i}`)),
  ]).flat();
}

describe('inside one long tool loop', () => {
  it('turns a read the file later patched into a marker naming the path, the lines and the patch call, once the budget allows', () => {
    const c = config((x) => {
      x.cache.min_batch_tokens = 0;
      x.cache.first_break_after = 3;
    });
    const messages: Message[] = [
      { role: 'system', content: 'agent' },
      user('fix value_7'),
      assistantCall('r1', 'read_file', { path: 'src/values.py' }),
      toolResult('r1', 'read_file', source(1)),
      assistantCall('p1', 'patch', { path: 'src/values.py', old_string: 'value_7 = 7', new_string: 'value_7 = 8' }),
      toolResult('p1', 'patch', JSON.stringify({ success: true, diff: '-value_7 = 7\n+value_7 = 8' })),
      ...filler(3),
    ];
    const e = make(c);
    const edits = run(e, messages).edits;
    const marker = edits.find((x) => x.index === 3)?.content ?? '';
    expect(JSON.parse(marker).content).toBe(
      '[Earlier read of src/values.py (lines 1-300): out of date, the file was patched later in call p1; read it again with read_file for its current text]',
    );
    expect(JSON.parse(marker).total_lines).toBe(300);
    expect(e.sessions.get(S)?.counts.cacheBreaks).toBe(1);
  });

  it('waits while the cache-break budget is spent, and makes the waiting rewrites together when it allows', () => {
    const c = config((x) => {
      x.cache.min_batch_tokens = 0;
      x.cache.first_break_after = 10;
      // One break per 10 calls: the first is earned at call 10, so the usual share applies.
      x.cache.max_breaks_per_100_calls = 10;
    });
    const messages: Message[] = [
      { role: 'system', content: 'agent' },
      user('go'),
      assistantCall('r1', 'read_file', { path: 'a.py' }),
      toolResult('r1', 'read_file', source(1)),
      assistantCall('r2', 'read_file', { path: 'a.py', limit: 500 }),
      toolResult('r2', 'read_file', source(2)),
    ];
    const e = make(c);
    // Call 3: the first read is stale, but no break is allowed before call 10.
    expect(run(e, messages).edits.some((x) => x.index === 3)).toBe(false);
    messages.push(...filler(20));
    const edits = run(e, messages, 7).edits;
    expect(edits.find((x) => x.index === 3)?.content).toContain('superseded by the later read in call r2');
    expect(e.sessions.get(S)?.counts.cacheBreaks).toBe(1);
  });

  it('clears the oldest outputs once the context passes the trigger, keeping the last few whole', () => {
    const c = config((x) => {
      x.cache.first_break_after = 0;
      x.strategies.clearing.keep = 2;
    });
    const messages: Message[] = [{ role: 'system', content: 'agent' }, user('go')];
    for (let i = 0; i < 8; i++)
      messages.push(
        assistantCall(`t${i}`, 'web_extract', { url: `https://example.org/${i}` }),
        toolResult(`t${i}`, 'web_extract', wide(i)),
      );
    const e = make(c);
    const edits = run(e, messages, 0, { context_length: 30_000 }).edits;
    const cleared = edits.filter((x) => x.content?.includes('cleared to save context')).map((x) => x.index);
    expect(cleared.length).toBeGreaterThan(0);
    // The last two results (indices 15 and 17) stay as single-output compression made them.
    expect(cleared).not.toContain(15);
    expect(cleared).not.toContain(17);
    const first = JSON.parse(edits.find((x) => x.index === 3)?.content ?? '{}') as { content: string };
    expect(first.content).toMatch(/^\[Output of web_extract cleared to save context \(recall id=r[0-9a-f]{10}\)\]$/);
  });

  it('never clears the current step\u2019s results, however many calls it made (keep counts results, a step may hold more)', () => {
    const c = config((x) => {
      x.cache.first_break_after = 0;
      x.cache.max_breaks_per_100_calls = 100;
      x.cache.min_batch_tokens = 0;
      x.strategies.clearing.keep = 1;
    });
    const messages: Message[] = [{ role: 'system', content: 'agent' }, user('go')];
    for (let i = 0; i < 4; i++)
      messages.push(
        assistantCall(`t${i}`, 'web_extract', { url: `https://example.org/${i}` }),
        toolResult(`t${i}`, 'web_extract', wide(i)),
      );
    const parallel = [4, 5, 6].map((i) => `t${i}`);
    messages.push({
      role: 'assistant',
      content: '',
      tool_calls: parallel.map((id, k) => ({
        id,
        type: 'function',
        function: { name: 'web_extract', arguments: JSON.stringify({ url: `https://example.org/${k + 4}` }) },
      })),
    });
    parallel.forEach((id, k) => {
      messages.push(toolResult(id, 'web_extract', wide(k + 4)));
    });
    const e = make(c);
    const edits = e.preModelCall({ session_id: S, messages, context_length: 30_000 }).edits;
    const cleared = new Set(edits.filter((x) => x.content?.includes('cleared to save context')).map((x) => x.index));
    expect(cleared.size).toBeGreaterThan(0);
    // The step's three results are the last three messages.
    for (const i of [messages.length - 3, messages.length - 2, messages.length - 1]) expect(cleared.has(i)).toBe(false);
  });

  it('clears an old output once it is worth a marker (MIN_CLEAR_TOKENS), never a shorter one', () => {
    const c = config((x) => {
      x.cache.first_break_after = 0;
      x.cache.max_breaks_per_100_calls = 100;
      x.cache.min_batch_tokens = 0;
      x.strategies.clearing.keep = 1;
    });
    // Plain prose lines (no log shape): single-output compression leaves them whole.
    const prose = (tokens: number, seed: number) =>
      terminal(
        Array.from(
          { length: Math.ceil((tokens * 4) / 60) },
          (_, k) =>
            `${WORDS[(seed + k) % WORDS.length]} ${WORDS[(seed * 3 + k * 5) % WORDS.length]} note ${seed}.${k} about the ${WORDS[(k * 7) % WORDS.length]} value`,
        ).join('\n'),
      );
    const messages: Message[] = [{ role: 'system', content: 'agent' }, user('go')];
    messages.push(
      assistantCall('big', 'terminal', { command: 'cat notes' }),
      toolResult('big', 'terminal', prose(MIN_CLEAR_TOKENS * 1.3, 1)),
    );
    messages.push(
      assistantCall('small', 'terminal', { command: 'cat short' }),
      toolResult('small', 'terminal', prose(MIN_CLEAR_TOKENS * 0.6, 2)),
    );
    for (let i = 0; i < 6; i++)
      messages.push(
        assistantCall(`t${i}`, 'web_extract', { url: `https://example.org/${i}` }),
        toolResult(`t${i}`, 'web_extract', wide(i)),
      );
    const e = make(c);
    const edits = e.preModelCall({ session_id: S, messages, context_length: 30_000 }).edits;
    const cleared = (i: number) =>
      edits.find((x) => x.index === i)?.content?.includes('cleared to save context') === true;
    expect(cleared(3)).toBe(true);
    expect(cleared(5)).toBe(false);
  });

  it('makes a waiting rewrite the price rule refuses once the messages\u2019 own timestamps show the provider\u2019s cache went cold, within the budget', () => {
    const c = config((x) => {
      x.cache.min_batch_tokens = 0;
      x.cache.first_break_after = 0;
      x.cache.max_breaks_per_100_calls = 100;
    });
    const at = (minute: number): string => new Date(Date.UTC(2026, 0, 1, 10, minute)).toISOString();
    const stamp = (m: Message, minute: number): Message => ({ ...m, timestamp: at(minute) });
    const messages: Message[] = [
      { role: 'system', content: 'agent' },
      stamp(user('go'), 0),
      stamp(assistantCall('r1', 'read_file', { path: 'a.py' }), 0),
      stamp(toolResult('r1', 'read_file', source(1)), 0),
      stamp(assistantCall('w1', 'web_extract', { url: 'https://example.org/1' }), 0),
      stamp(toolResult('w1', 'web_extract', wide(1)), 0),
      stamp(assistantCall('r2', 'read_file', { path: 'a.py', limit: 500 }), 1),
      stamp(toolResult('r2', 'read_file', source(2)), 1),
      stamp(assistantCall('x', 'terminal', { command: 'sleep 600' }), 2),
    ];
    const e = make(c);
    // The stale read is under half of what follows it: a break would not pay while the cache is warm.
    expect(run(e, messages).edits.some((x) => x.index === 3)).toBe(false);
    messages.push(stamp(toolResult('x', 'terminal', terminal('done')), 12));
    expect(run(e, messages, messages.length).edits.find((x) => x.index === 3)?.content).toContain('superseded');
    expect(e.sessions.get(S)?.counts.cacheBreaks).toBe(1);
  });

  it('waits for the budget when the cache went cold before the first break is allowed', () => {
    const c = config((x) => (x.cache.first_break_after = 1000));
    const at = (minute: number): string => new Date(Date.UTC(2026, 0, 1, 10, minute)).toISOString();
    const stamp = (m: Message, minute: number): Message => ({ ...m, timestamp: at(minute) });
    const messages: Message[] = [
      { role: 'system', content: 'agent' },
      stamp(user('go'), 0),
      stamp(assistantCall('r1', 'read_file', { path: 'a.py' }), 0),
      stamp(toolResult('r1', 'read_file', source(1)), 0),
      stamp(assistantCall('r2', 'read_file', { path: 'a.py', limit: 500 }), 1),
      stamp(toolResult('r2', 'read_file', source(2)), 1),
      stamp(assistantCall('x', 'terminal', { command: 'sleep 600' }), 2),
      stamp(toolResult('x', 'terminal', terminal('done')), 12),
    ];
    const e = make(c);
    expect(run(e, messages).edits.some((x) => x.index === 3)).toBe(false);
    expect(e.sessions.get(S)?.counts.cacheBreaks).toBe(0);
  });

  it('puts placeholders back in a new process word for word, and that is no cache break', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hmc-loop-'));
    dirs.push(dir);
    const c = config((x) => {
      x.cache.min_batch_tokens = 0;
      x.cache.first_break_after = 0;
      x.cache.max_breaks_per_100_calls = 100;
      x.strategies.clearing.keep = 1;
    });
    const messages: Message[] = [
      { role: 'system', content: 'agent' },
      user('go'),
      assistantCall('r1', 'read_file', { path: 'a.py' }),
      toolResult('r1', 'read_file', source(1)),
      assistantCall('p1', 'patch', { path: 'a.py' }),
      toolResult('p1', 'patch', '{"success": true}'),
    ];
    for (let i = 0; i < 6; i++)
      messages.push(
        assistantCall(`t${i}`, 'web_extract', { url: `https://example.org/${i}` }),
        toolResult(`t${i}`, 'web_extract', wide(i)),
      );
    const first = make(c, dir);
    const sent = run(first, messages, 0, { context_length: 20_000 }).edits;
    expect(sent.some((x) => x.content?.includes('cleared to save context'))).toBe(true);
    expect(sent.some((x) => x.content?.includes('Earlier read of a.py'))).toBe(true);
    first.onSessionEnd({ session_id: S });
    await first.flushSaves();
    const saved = readFileSync(join(dir, 'sessions', `${S}.json`), 'utf8');
    expect(saved).not.toContain('a.py');
    const second = make(c, dir);
    const again = second.preModelCall({ session_id: S, messages, context_length: 20_000 }).edits;
    expect(again).toEqual(sent);
    expect(second.sessions.get(S)?.counts.cacheBreaks).toBe(first.sessions.get(S)?.counts.cacheBreaks);
    await second.flushSaves();
  });
});
