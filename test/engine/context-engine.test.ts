/**
 * HMC as the host's context engine (issue 16): whether to compact is judged on the context as HMC
 * sends it, in the host's units; a compaction summarises finished work into phases whose exact
 * messages come back by recall, reuses what layer 1 already summarised, keeps the head, the latest
 * user message and the tail, and answers no plan (never half of one) when it cannot; the
 * provider's usage of each call is recorded with HMC's own figures for that call.
 */
import { describe, expect, it } from 'vitest';
import type { CompressResult, PlanItem } from '../../src/core/context-engine.js';
import type { Message } from '../../src/core/message.js';
import { Engine } from '../../src/engine/engine.js';
import { safeJson } from '../../src/engine/session/hashing.js';
import { rangeDigest } from '../../src/engine/layer1/layer1.js';
import { NULL_SINK } from '../../src/events/types.js';
import { NULL_PHASE_INDEX, type PhaseEntry, type PhaseIndex } from '../../src/store/phase-types.js';
import type { UsageRecord } from '../../src/store/usage.js';
import type { Summariser, SummaryRequest, SummaryResult } from '../../src/summarise/types.js';
import { assistantCall, config, readFile, reply, terminal, toolResult, user } from '../helpers/conversation.js';
import { recallAll } from '../helpers/recall.js';

class NoteSummariser implements Summariser {
  readonly requests: SummaryRequest[] = [];
  constructor(private readonly fail = false) {}
  async summarise(request: SummaryRequest): Promise<SummaryResult> {
    this.requests.push(request);
    if (this.fail)
      return { ok: false, reason: 'the summariser did not answer within 120 s', retryable: true, tokensIn: 300 };
    const text = `## Goal\nsurvey the notes\n## Done\n${request.messages.length} messages${request.previous ? ' (updated)' : ''}${request.focus ? `\n## Facts\nfocus: ${request.focus}` : ''}`;
    return {
      ok: true,
      text,
      topic: 'survey the notes',
      model: 'note-model',
      tokensIn: 900,
      tokensOut: 30,
      redactions: 0,
    };
  }
}

const DOC = (i: number): string =>
  readFile(Array.from({ length: 60 }, (_, k) => `doc ${i} line ${k}: ${'prose about the service '.repeat(4)}`));

/** `turns` user turns, each reading `reads` documents, then answering. Wire form, no system prompt. */
function conversation(turns: number, reads: number): Message[] {
  const out: Message[] = [];
  let id = 0;
  for (let t = 1; t <= turns; t++) {
    out.push(user(`L${t}: read the next notes`));
    for (let r = 0; r < reads; r++) {
      const cid = `c${++id}`;
      out.push(assistantCall(cid, 'read_file', { path: `docs/${id}.md` }), toolResult(cid, 'read_file', DOC(id)));
    }
    out.push(reply('All done.'));
  }
  return out;
}

function make(summariser: Summariser | null, extra: { phases?: PhaseIndex; usage?: UsageRecord[] } = {}): Engine {
  const c = config((x) => {
    x.strategies.clearing.enabled = false;
  });
  const recorder = { record: () => {}, recordUsage: (row: UsageRecord) => extra.usage?.push(row) };
  return new Engine({
    config: () => c,
    stateDir: null,
    sink: NULL_SINK,
    recorder,
    log: () => {},
    autoSettle: false,
    summariser: () => summariser,
    ...(extra.phases ? { phases: extra.phases } : {}),
  });
}

function apply(messages: readonly Message[], plan: readonly PlanItem[]): Message[] {
  return plan.map((item) => ('keep' in item ? (messages[item.keep] as Message) : item.message));
}

describe('should_compress, in the host\u2019s units', () => {
  it('takes what HMC sends off the host\u2019s rough measure, and the provider\u2019s figure as it is', () => {
    const e = make(null);
    const messages = [
      user('run it'),
      assistantCall('c1', 'terminal', { command: 'make' }),
      toolResult('c1', 'terminal', terminal('ok\n'.repeat(4000))),
      reply('done'),
    ];
    e.preModelCall({ session_id: 'S', messages });
    const s = e.sessions.get('S');
    const taken = s?.hostReduction() ?? 0;
    expect(taken).toBeGreaterThan(1000);
    const host = e.shouldCompress({ session_id: 'S', tokens: 10_000, measure: 'host', threshold_tokens: 9_000 });
    expect(host).toMatchObject({ compress: false, tokens: 10_000 - taken });
    // The turn's in-place edits were in the history the host measured: not taken off twice.
    expect(
      e.shouldCompress({
        session_id: 'S',
        tokens: 10_000,
        measure: 'host',
        threshold_tokens: 9_000,
        in_place_tokens: taken,
      }).compress,
    ).toBe(true);
    expect(
      e.shouldCompress({ session_id: 'S', tokens: 10_000, measure: 'provider', threshold_tokens: 9_000 }),
    ).toMatchObject({ compress: true, tokens: 10_000 });
    expect(
      e.shouldCompress({
        session_id: 'S',
        tokens: 99_000,
        measure: 'host',
        threshold_tokens: 9_000,
        awaiting_usage: true,
      }).compress,
    ).toBe(false);
    // A session HMC does not hold: the host's figure decides.
    expect(
      e.shouldCompress({ session_id: 'other', tokens: 10_000, measure: 'host', threshold_tokens: 9_000 }).compress,
    ).toBe(true);
  });
});

describe('compress', () => {
  it('replaces the earlier turns by one summary, keeps the head, the latest turn and every pairing, and recall gives them back exactly', async () => {
    const summariser = new NoteSummariser();
    const recorded: PhaseEntry[] = [];
    const e = make(summariser, { phases: { ...NULL_PHASE_INDEX, record: (x) => recorded.push(x) } });
    const messages = conversation(5, 3);
    const result = await e.compress({
      session_id: 'S',
      messages,
      threshold_tokens: 20_000,
      focus_topic: 'the ledger service',
    });
    expect(result.plan).not.toBeNull();
    const out = apply(messages, result.plan ?? []);
    expect(out.length).toBeLessThan(messages.length);
    expect(out[0]).toBe(messages[0]); // the head: the task
    const lastUser = messages.map((m) => m.role).lastIndexOf('user');
    expect(out.slice(-(messages.length - lastUser))).toEqual(messages.slice(lastUser)); // the latest turn, as it was
    const summary = out.find((m) => typeof m.content === 'string' && m.content.startsWith('[Summary of earlier work'));
    expect(summary?.role).toBe('assistant');
    const id = /recall id=(r[0-9a-f]{10})/.exec(String(summary?.content))?.[1] ?? '';
    expect(result.recall_ids).toEqual([id]);
    expect(summariser.requests[0]?.focus).toBe('the ledger service');
    // Every tool call kept has its result right after it.
    for (const [i, m] of out.entries()) for (const c of m.tool_calls ?? []) expect(out[i + 1]?.tool_call_id).toBe(c.id);
    // Nothing is lost: the replaced messages come back byte for byte.
    const replaced = messages.slice(1, messages.length - out.length + 2);
    expect(safeJson(await recallAll(e, 'S', id))).toBe(safeJson(replaced));
    expect(recorded).toEqual([
      expect.objectContaining({ session_id: 'S', phase_id: 1, recall_id: id, message_from: 1 }),
    ]);
    expect(result.summariser_tokens).toEqual({ in: 900, out: 30 });
  });

  it('reuses a summary layer 1 already made instead of asking again', async () => {
    const summariser = new NoteSummariser();
    const messages = conversation(5, 3);
    const first = await make(summariser).compress({ session_id: 'S', messages, threshold_tokens: 20_000 });
    const plan = first.plan ?? [];
    const at = plan.findIndex((x) => 'message' in x);
    const next = plan[at + 1];
    const to = (next && 'keep' in next ? next.keep : messages.length) - 1;
    // Another session holds a layer-1 phase over exactly that range.
    const e = make(summariser);
    e.preModelCall({ session_id: 'R', messages });
    e.sessions.get('R')?.layer1.putInForce({
      id: 1,
      from: 1,
      to,
      digest: rangeDigest(
        messages.map((m) => ({ role: m.role, raw: m.content })),
        1,
        to,
      ),
      recallId: 'r0123456789',
      topic: 't',
      summary: '## Goal\nheld',
      tokensBefore: 1,
      tokensAfter: 1,
      updates: 0,
      model: 'm',
      createdAt: 1,
      turnFrom: 1,
      turnTo: 4,
    });
    const asked = summariser.requests.length;
    const again: CompressResult = await e.compress({ session_id: 'R', messages, threshold_tokens: 20_000 });
    expect(summariser.requests.length).toBe(asked);
    expect(again).toMatchObject({ reused: 1, summarised: 0, recall_ids: ['r0123456789'] });
    expect(JSON.stringify(again.plan)).toContain('recall id=r0123456789)]\\n## Goal\\nheld');
  });

  it('answers no plan, and replaces nothing, when the summariser fails or there is nothing finished', async () => {
    const failing = make(new NoteSummariser(true));
    const failed = await failing.compress({ session_id: 'S', messages: conversation(5, 3), threshold_tokens: 20_000 });
    expect(failed.plan).toBeNull();
    expect(failed.reason).toContain('did not answer within 120 s');
    const short = await make(new NoteSummariser()).compress({
      session_id: 'S',
      messages: conversation(1, 2),
      threshold_tokens: 20_000,
    });
    expect(short.plan).toBeNull();
    expect(
      (await make(null).compress({ session_id: 'S', messages: conversation(5, 3), threshold_tokens: 20_000 })).reason,
    ).toContain('no summariser');
  });
});

describe('engine_session', () => {
  it('lets a session a compaction moved to a new id (Hermes 0.16) recall the compaction’s phases, and never ends a session', async () => {
    const e = make(new NoteSummariser());
    const result = await e.compress({ session_id: 'old', messages: conversation(5, 3), threshold_tokens: 20_000 });
    const id = result.recall_ids?.[0] ?? '';
    expect((await e.control({ session_id: 'new', args: { action: 'recall', id } })).error).toBeDefined();
    e.engineSession({ session_id: 'new', event: 'start', boundary_reason: 'compression', old_session_id: 'old' });
    await e.flushSaves();
    expect((await e.control({ session_id: 'new', args: { action: 'recall', id } })).phase).toBe(true);
    e.engineSession({ session_id: 'old', event: 'end' });
    expect(e.sessions.get('old')?.meta.endedAt).toBeNull();
  });
});

describe('update_from_response', () => {
  it('records the provider\u2019s usage with HMC\u2019s figures for the call it counted, and none for a call it did not', () => {
    const usage: UsageRecord[] = [];
    const e = make(null, { usage });
    const messages = conversation(1, 2);
    const u = {
      prompt_tokens: 5000,
      completion_tokens: 40,
      cache_read_tokens: 3000,
      cache_write_tokens: 1500,
      reasoning_tokens: 0,
    };
    e.preModelCall({ session_id: 'S', messages: messages.slice(0, 3), call_id: 'a' });
    e.updateFromResponse({ session_id: 'S', model: 'claude-x', provider: 'anthropic', usage: u });
    e.preModelCall({ session_id: 'S', messages: messages.slice(0, 5), call_id: 'b' });
    e.updateFromResponse({
      session_id: 'S',
      model: 'claude-x',
      provider: 'anthropic',
      usage: { ...u, cache_read_tokens: 4000 },
    });
    e.updateFromResponse({ session_id: 'S', model: 'claude-x', provider: 'anthropic', usage: u }); // no call counted since
    e.settle();
    expect(usage.map((r) => r.seq)).toEqual([1, 2, 3]);
    expect(usage[0]).toMatchObject({
      session_id: 'S',
      model: 'claude-x',
      provider: 'anthropic',
      prompt_tokens: 5000,
      cache_read_tokens: 3000,
      cache_write_tokens: 1500,
      hmc_cached: 0,
    });
    expect(usage[0]?.hmc_input).toBeGreaterThan(0);
    // The second call sent the first call's messages again unchanged: HMC's model reads them from the cache.
    expect(usage[1]?.hmc_cached).toBeGreaterThan(0);
    expect(usage[1]?.hmc_cached).toBeLessThan(usage[1]?.hmc_input ?? 0);
    expect(usage[2]).toMatchObject({ hmc_input: null, raw_input: null, hmc_cached: null });
  });
});
