/**
 * Layer 1 in the engine (issue 10): summaries of finished work go out at a pass, over the very
 * messages they were made from; the wire stays valid and the restore exact; the latest user
 * message stays verbatim; recall gives the exact messages back; failures cool down and lose
 * nothing; a new process puts a summary back word for word. The summariser here answers at once
 * from the messages it is given (the real ones are tested over HTTP in test/summarise/).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HmcConfig } from '../../src/config/keys.js';
import { Engine } from '../../src/engine/engine.js';
import { safeJson } from '../../src/engine/session/hashing.js';
import type { Message } from '../../src/core/message.js';
import type { SummaryRequest, SummaryResult } from '../../src/summarise/types.js';
import { NULL_PHASE_INDEX, type PhaseEntry, type PhaseIndex } from '../../src/store/phase-types.js';
import { assistantCall, layer1Config, RecordingSink, toolResult, user } from '../helpers/conversation.js';
import { recallAll } from '../helpers/recall.js';
import { drive, ListingSummariser, loop, make, PAGE } from './layer1-harness.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

describe('layer 1', () => {
  it('summarises finished work once the context passes the threshold, and the range goes out as summary plus stubs', async () => {
    const summariser = new ListingSummariser();
    const e = make(layer1Config(), summariser);
    const { problems, restored, session } = await drive(e, loop(30), { window: 60_000 });
    expect(problems).toEqual([]);
    expect(restored).toBe(true);
    expect(summariser.requests.length).toBeGreaterThan(0);
    expect(session?.layer1.phases.length).toBe(1);
    const phase = session?.layer1.phases[0];
    expect(phase?.from).toBe(2);
    // The request carried the range as the model is sent it (here, nothing of it was shortened).
    expect(summariser.requests[0]?.messages[1]?.content).toBe(PAGE(0));
    // What the model is sent for the range: the summary first, then stubs; the task untouched.
    const view = e.preModelCall({ session_id: 'L1', messages: loop(30), context_length: 60_000 }).edits;
    const first = view.find((x) => x.index === phase?.from)?.content ?? '';
    expect(first).toMatch(
      /^\[Summary of earlier work \(phase 1; its exact messages: hmc_control action=recall id=r[0-9a-f]{10}\)\]\n## Goal/,
    );
    expect(view.some((x) => x.index === 1)).toBe(false);
    expect(view.filter((x) => x.content === '[summarised]').length).toBeGreaterThan(4);
  });

  it('reads the range as the model is sent it (cleared outputs as their markers), and of an extended phase only what came after its note', async () => {
    const summariser = new ListingSummariser();
    // Clearing keeps the context between a quarter and a third of the window; layer 1 fires above a tenth.
    const e = make(
      layer1Config((c) => {
        c.strategies.clearing.enabled = true;
        c.strategies.clearing.trigger_percent = 0.3;
        c.strategies.clearing.target_percent = 0.25;
        c.background_compression.host_threshold = 0.15;
      }),
      summariser,
    );
    const { problems } = await drive(e, loop(60), { window: 60_000 });
    expect(problems).toEqual([]);
    const outputs = summariser.requests.flatMap((r) =>
      r.messages.filter((m) => m.role === 'tool').map((m) => String(m.content)),
    );
    expect(outputs.some((o) => o.includes('cleared to save context'))).toBe(true);
    const update = summariser.requests.find((r) => r.previous !== undefined);
    expect(update).toBeDefined();
    // The update reads the note and the new messages only, not the messages the note covers.
    const calls = (update?.messages ?? []).flatMap((m) =>
      (m.tool_calls ?? []).map((c) => String(c.function?.arguments)),
    );
    expect(calls.some((a) => a.includes('"make step0"'))).toBe(false);
  });

  it('reads the calls of the range with the arguments input clearing left (a written file as its short form)', async () => {
    const summariser = new ListingSummariser();
    const e = make(layer1Config(), summariser);
    const messages: Message[] = [{ role: 'system', content: 'You are a coding agent.' }, user('write the modules')];
    for (let i = 0; i < 30; i++) {
      messages.push(
        assistantCall(`w${i}`, 'write_file', {
          path: `src/mod${i}.ts`,
          content: `export const v${i} = ${i};\n${'// filler line of the module\n'.repeat(60)}`,
        }),
        toolResult(`w${i}`, 'write_file', JSON.stringify({ bytes_written: 1900 })),
      );
      messages.push(
        assistantCall(`c${i}`, 'terminal', { command: `make step${i}` }),
        toolResult(`c${i}`, 'terminal', PAGE(i)),
      );
    }
    const { problems } = await drive(e, messages, { window: 60_000 });
    expect(problems).toEqual([]);
    const args = summariser.requests.flatMap((r) =>
      r.messages.flatMap((m) =>
        (m.tool_calls ?? []).filter((c) => c.function?.name === 'write_file').map((c) => String(c.function?.arguments)),
      ),
    );
    expect(args.length).toBeGreaterThan(0);
    // Written files the model is no longer sent whole are read short, as the model is sent them.
    expect(args.some((a) => !a.includes('filler line of the module'))).toBe(true);
  });

  it('asks for a summary only when it pays for the summariser at its price', async () => {
    const dear = new ListingSummariser();
    const declining = make(
      layer1Config((c) => {
        c.background_compression.min_return = 2;
        c.background_compression.summariser_price = { input: 500, output: 2000 };
      }),
      dear,
    );
    const { session } = await drive(declining, loop(30), { window: 60_000 });
    expect(dear.requests).toEqual([]);
    expect(declining.layer1.stats(session as NonNullable<typeof session>).declined).toBeGreaterThan(0);
    const cheap = new ListingSummariser();
    await drive(
      make(
        layer1Config((c) => {
          c.background_compression.min_return = 2;
          c.background_compression.summariser_price = { input: 0.1, output: 0.4 };
        }),
        cheap,
      ),
      loop(30),
      { window: 60_000 },
    );
    expect(cheap.requests.length).toBeGreaterThan(0);
  });

  it('prices later requests at the price the host states for its auxiliary model', async () => {
    const cheap = (c: HmcConfig): void => {
      c.background_compression.min_return = 2;
      c.background_compression.summariser_price = { input: 0.1, output: 0.4 };
    };
    const free = new ListingSummariser();
    await drive(make(layer1Config(cheap), free), loop(60), { window: 60_000 });
    expect(free.requests.length).toBeGreaterThan(1);
    // The same, but the host says its model costs a hundred times the main model's input.
    class Dear extends ListingSummariser {
      override async summarise(request: SummaryRequest): Promise<SummaryResult> {
        const result = await super.summarise(request);
        return result.ok ? { ...result, price: { input: 100, output: 400 } } : result;
      }
    }
    const dear = new Dear();
    await drive(make(layer1Config(cheap), dear), loop(60), { window: 60_000 });
    expect(dear.requests.length).toBe(1);
  });

  it('hands each phase to the session index and announces it live', async () => {
    const sink = new RecordingSink();
    const recorded: PhaseEntry[] = [];
    const index: PhaseIndex = { ...NULL_PHASE_INDEX, record: (entry) => recorded.push(entry) };
    const c = layer1Config();
    const e = new Engine({
      config: () => c,
      stateDir: null,
      sink,
      recorder: null,
      log: () => {},
      autoSettle: false,
      summariser: () => new ListingSummariser(),
      phases: index,
    });
    await drive(e, loop(30), { window: 60_000 });
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({
      session_id: 'L1',
      phase_id: 1,
      message_from: 2,
      topic: 'fix the build',
      model: 'listing',
      updates: 0,
    });
    expect(recorded[0]?.tokens_after).toBeLessThan(recorded[0]?.tokens_before ?? 0);
    // The index holds the summary and numbers only, never a raw output.
    expect(JSON.stringify(recorded[0])).not.toContain('detail detail');
    expect(sink.events.filter((ev) => ev.type === 'phase')).toEqual([
      expect.objectContaining({ type: 'phase', phase_id: 1, updated: false, recall_id: recorded[0]?.recall_id }),
    ]);
  });

  it('recall gives back the exact messages of a phase', async () => {
    const e = make(layer1Config(), new ListingSummariser());
    const messages = loop(30);
    const { session } = await drive(e, messages, { window: 60_000 });
    const phase = session?.layer1.phases[0];
    const answer = await e.control({ session_id: 'L1', args: { action: 'recall', id: phase?.recallId } });
    expect(answer.phase).toBe(true);
    expect(safeJson(await recallAll(e, 'L1', String(phase?.recallId)))).toBe(
      safeJson(messages.slice(phase?.from, (phase?.to ?? 0) + 1)),
    );
  });

  it('gives a big phase back a page at a time, every page exact, a message too big for a page by its lines', async () => {
    const e = make(layer1Config(), new ListingSummariser());
    await drive(e, loop(4), { window: 60_000 });
    const line = (n: number): string => `line ${n} of a long output ${'x'.repeat(60)}`;
    const big = Array.from({ length: 1500 }, (_, i) => line(i + 1)).join('\n');
    const phase: Message[] = [];
    for (let i = 0; i < 12; i++) {
      phase.push({
        role: 'assistant',
        content: '',
        tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'terminal', arguments: '{}' } }],
      });
      phase.push({ role: 'tool', tool_call_id: `c${i}`, content: i === 5 ? big : big.slice(0, 9_000) });
    }
    e.recall.put('L1', 'r00000000ab', '(phase)', JSON.stringify(phase));
    expect(safeJson(await recallAll(e, 'L1', 'r00000000ab'))).toBe(safeJson(phase));
    const ask = async (args: Record<string, unknown>): Promise<Record<string, unknown>> =>
      e.control({ session_id: 'L1', args: { action: 'recall', id: 'r00000000ab', ...args } });
    expect(await ask({ messages: 'soon' })).toEqual({
      error: 'messages must look like 1-20 (or one message number), got "soon"',
    });
    expect(await ask({ message: 99 })).toEqual({ error: 'message must be a number from 1 to 24, got "99"' });
  });

  it('updates the same phase as the finished work grows, never summarising a range twice', async () => {
    const summariser = new ListingSummariser();
    const e = make(layer1Config(), summariser);
    const { session, problems } = await drive(e, loop(60), { window: 60_000 });
    expect(problems).toEqual([]);
    expect(session?.layer1.phases.length).toBe(1);
    expect(session?.layer1.phases[0]?.updates).toBeGreaterThan(0);
    expect(summariser.requests.some((r) => r.previous !== undefined)).toBe(true);
    const ranges = summariser.requests.map((r) => r.messages.length);
    expect(new Set(ranges).size).toBe(ranges.length);
  });

  it('a failed summary replaces nothing and cools layer 1 down', async () => {
    const summariser = new ListingSummariser(true);
    const e = make(layer1Config(), summariser);
    const { session, restored } = await drive(e, loop(30), { window: 60_000 });
    expect(restored).toBe(true);
    expect(session?.layer1.phases.length).toBe(0);
    const stats = e.layer1.stats(session as NonNullable<typeof session>);
    expect(stats.failures).toBeGreaterThan(0);
    // With a cooldown of 3 calls, far fewer tries than calls.
    expect(summariser.requests.length).toBeLessThan(12);
    expect(String((await e.control({ session_id: 'L1', args: { action: 'status' } })).status)).toContain(
      'failed (last: timeout after 120 s)',
    );
  });

  it('does nothing in manual mode, with layer 1 off, or below the threshold', async () => {
    const a = new ListingSummariser();
    const manual = make(
      layer1Config((c) => (c.manual_mode.enabled = true)),
      a,
    );
    await drive(manual, loop(30), { window: 60_000 });
    const b = new ListingSummariser();
    await drive(
      make(
        layer1Config((c) => (c.background_compression.enabled = false)),
        b,
      ),
      loop(30),
      { window: 60_000 },
    );
    const c = new ListingSummariser();
    await drive(make(layer1Config(), c), loop(30), { window: 2_000_000 });
    expect([a.requests.length, b.requests.length, c.requests.length]).toEqual([0, 0, 0]);
  });

  it('fires below the host\u2019s own compression threshold (a share of it), as the host reports it', async () => {
    const early = new ListingSummariser();
    const e = make(layer1Config(), early);
    const messages = loop(14);
    const live: Message[] = [];
    for (const m of messages) {
      if (m.role === 'assistant') {
        e.preModelCall({ session_id: 'T', messages: live, context_length: 100_000, compression_threshold: 0.1 });
        await new Promise((resolve) => setImmediate(resolve));
      }
      live.push(m);
    }
    const late = new ListingSummariser();
    await drive(make(layer1Config(), late), messages, { window: 100_000, session: 'T' });
    expect(early.requests.length).toBeGreaterThan(0);
    expect(late.requests.length).toBe(0);
  });

  it('measures the context in the host\u2019s own units when the host sends them (host_tokens)', async () => {
    // The same loop, the same window and threshold: HMC's own measure stays below the trigger;
    // the host, counting its system prompt and tool schemas too, says the request is far bigger.
    const run = async (hostExtra: number | null): Promise<number> => {
      const summariser = new ListingSummariser();
      const e = make(layer1Config(), summariser);
      const live: Message[] = [];
      for (const m of loop(14)) {
        if (m.role === 'assistant') {
          const own = Math.ceil(JSON.stringify(live).length / 4);
          e.preModelCall({
            session_id: 'H',
            messages: live,
            context_length: 100_000,
            compression_threshold: 0.5,
            ...(hostExtra === null ? {} : { host_tokens: own + hostExtra }),
          });
          await new Promise((resolve) => setImmediate(resolve));
        }
        live.push(m);
      }
      return summariser.requests.length;
    };
    expect(await run(null)).toBe(0);
    expect(await run(0)).toBe(0);
    expect(await run(40_000)).toBeGreaterThan(0);
  });

  it('refuses a host_tokens that is not a non-negative number, naming it', async () => {
    const { classify } = await import('../../src/protocol/guards.js');
    const record = { id: 1, method: 'pre_model_call', params: { session_id: 'X', messages: [], host_tokens: -3 } };
    expect(classify(record)).toEqual({
      kind: 'invalid',
      id: 1,
      error: { code: 'invalid_params', message: 'pre_model_call: params.host_tokens must be a non-negative number' },
    });
  });

  it('a summary that had not gone out when the session was saved goes out from the next process, not asked for again (Hermes -q)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hmc-l1-'));
    dirs.push(dir);
    const messages = loop(30);
    // The first process may not rewrite anything already sent before its 31st call (it ends at its
    // 30th): the summary, asked for as that pass nears, comes back and waits. (4 breaks per 100
    // calls: the first is earned at call 25, so the summary counts on the calls after call 31.)
    const first = new ListingSummariser();
    const closed = make(
      layer1Config((c) => {
        c.cache.max_breaks_per_100_calls = 4;
        c.cache.first_break_after = 31;
      }),
      first,
      dir,
    );
    const { session } = await drive(closed, messages, { window: 60_000 });
    expect(first.requests.length).toBe(1);
    expect(session?.layer1.phases).toEqual([]);
    const staged = session?.layer1.stagedPhase?.phase;
    expect(staged?.summary).toContain('## Goal');
    closed.onSessionEnd({ session_id: 'L1' });
    await closed.flushSaves();
    // The next process: its first call sends that summary; it never asks for that range again.
    const second = new ListingSummariser();
    const open = make(layer1Config(), second, dir);
    const live = [
      ...messages,
      assistantCall('c30', 'terminal', { command: 'make step30' }),
      toolResult('c30', 'terminal', PAGE(30)),
    ];
    const edits = open.preModelCall({ session_id: 'L1', messages: live, context_length: 60_000 }).edits;
    expect(edits.find((e) => e.index === staged?.from)?.content).toContain(staged?.summary ?? '?');
    expect(open.sessions.get('L1')?.layer1.phases.map((p) => p.recallId)).toEqual([staged?.recallId]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(second.requests.filter((r) => r.previous === undefined)).toEqual([]);
    await open.flushSaves();
  });

  it('a new process puts a summary back word for word, and that is no cache break', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hmc-l1-'));
    dirs.push(dir);
    const messages = loop(30);
    const first = make(layer1Config(), new ListingSummariser(), dir);
    await drive(first, messages, { window: 60_000 });
    const sent = first.preModelCall({ session_id: 'L1', messages, context_length: 60_000 }).edits;
    first.onSessionEnd({ session_id: 'L1' });
    await first.flushSaves();
    const second = make(layer1Config(), new ListingSummariser(), dir);
    const again = second.preModelCall({ session_id: 'L1', messages, context_length: 60_000 }).edits;
    expect(again).toEqual(sent);
    expect(second.sessions.get('L1')?.counts.cacheBreaks).toBe(first.sessions.get('L1')?.counts.cacheBreaks);
    await second.flushSaves();
  });

  it('the hint lists the phases and how to recall them, sent again only when it changes', async () => {
    const e = make(layer1Config(), new ListingSummariser());
    const messages = loop(30);
    await drive(e, messages, { window: 60_000 });
    const withTurn = [...messages, user('and the tests?')];
    const first = e.preLlmCall({ session_id: 'L1', messages: withTurn, context_length: 60_000 });
    expect(first.context).toMatch(
      /Earlier work is summarised in 1 phase \(1: fix the build \(recall id=r[0-9a-f]{10}\)\)/,
    );
    const second = e.preLlmCall({
      session_id: 'L1',
      messages: [...withTurn, assistantCall('x', 'terminal', {}), toolResult('x', 'terminal', 'ok'), user('more')],
      context_length: 60_000,
    });
    expect(second.context).toBeUndefined();
  });
});
