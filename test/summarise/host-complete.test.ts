/**
 * `hostComplete` through the protocol's own HostCalls (the pending table, ids, timeouts) with a
 * fake host on the other end of `send`, wired as the sidecar wires it (src/cli/sidecar.ts): the
 * params checked by `llmCompleteParams`, the answer by `llmCompleteResult`.
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import { llmCompleteParams } from '../../src/protocol/guards.js';
import { HostCalls } from '../../src/protocol/host-calls.js';
import { hostComplete, type HostCall } from '../../src/summarise/host-complete.js';
import { createSummariser } from '../../src/summarise/summariser.js';
import { GOOD_SUMMARY } from './openai-server.js';

interface Sent {
  id: string;
  method: string;
  params: { messages: Message[]; max_tokens: number };
}

/** HostCalls with a fake host: `answer` decides what the host sends back for each request. */
function host(answer: (sent: Sent, calls: HostCalls) => void, hostTimeoutMs = 60_000) {
  const sent: Sent[] = [];
  const calls: HostCalls = new HostCalls((record) => {
    const rec = record as Sent;
    sent.push(rec);
    queueMicrotask(() => answer(rec, calls));
  }, hostTimeoutMs);
  const hostCall: HostCall = async (method, params) => {
    if (method !== 'llm.complete') throw new Error(`unknown host method "${method}"`);
    const checked = llmCompleteParams(params);
    if (!checked) throw new Error('llm.complete needs "messages" and "max_tokens"');
    return calls.llmComplete(checked);
  };
  return { sent, calls, hostCall };
}

const RANGE: Message[] = [
  { role: 'user', content: 'Fix the build.' },
  { role: 'assistant', content: 'Fixed src/pipeline.py.' },
];

describe('hostComplete', () => {
  it("asks the host's auxiliary model through llm.complete and takes its text and model", async () => {
    const h = host((s, calls) => calls.settle({ id: s.id, result: { text: GOOD_SUMMARY, model: 'aux-flash' } }));
    const result = await createSummariser({
      complete: hostComplete(h.hostCall),
      timeoutMs: 5000,
      log: () => {},
    }).summarise({ sessionId: 'S', messages: RANGE, maxTokens: 900 });
    expect(result).toMatchObject({ ok: true, model: 'aux-flash', topic: 'Fix the failing build of the pipeline' });
    expect(h.sent).toHaveLength(1);
    expect(h.sent[0]).toMatchObject({ id: 'h1', method: 'llm.complete', params: { max_tokens: 900 } });
    expect(h.sent[0]!.params.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(String(h.sent[0]!.params.messages[1]!.content)).toContain('#1 user:\nFix the build.');
    expect(h.calls.waiting).toBe(0);
  });

  it('takes the price the host states for the model that answered, and ignores one it cannot state', async () => {
    const priced = host((s, calls) =>
      calls.settle({
        id: s.id,
        result: { text: GOOD_SUMMARY, model: 'aux-flash', price: { input: 0.1, output: 0.4 } },
      }),
    );
    const ok = await createSummariser({
      complete: hostComplete(priced.hostCall),
      timeoutMs: 5000,
      log: () => {},
    }).summarise({ sessionId: 'S', messages: RANGE, maxTokens: 900 });
    expect(ok).toMatchObject({ ok: true, price: { input: 0.1, output: 0.4 } });
    for (const price of [
      { input: -1, output: 1 },
      { input: 1 },
      { input: 'cheap', output: 2 },
      { input: Infinity, output: 1 },
    ]) {
      const bad = host((s, calls) =>
        calls.settle({ id: s.id, result: { text: GOOD_SUMMARY, model: 'aux-flash', price } }),
      );
      const result = await createSummariser({
        complete: hostComplete(bad.hostCall),
        timeoutMs: 5000,
        log: () => {},
      }).summarise({ sessionId: 'S', messages: RANGE, maxTokens: 900 });
      expect(result.ok && result.price).toBeFalsy();
    }
  });

  it("accepts the host's bare-string answer", async () => {
    const h = host((s, calls) => calls.settle({ id: s.id, result: GOOD_SUMMARY }));
    const result = await createSummariser({
      complete: hostComplete(h.hostCall),
      timeoutMs: 5000,
      log: () => {},
    }).summarise({ sessionId: 'S', messages: RANGE, maxTokens: 500 });
    expect(result).toMatchObject({ ok: true, model: 'unknown' });
  });

  it("names the host's error code and message, and retries later", async () => {
    const h = host((s, calls) =>
      calls.settle({ id: s.id, error: { code: 'host_error', message: 'no auxiliary provider configured' } }),
    );
    const result = await createSummariser({
      complete: hostComplete(h.hostCall),
      timeoutMs: 5000,
      log: () => {},
    }).summarise({ sessionId: 'S', messages: RANGE, maxTokens: 500 });
    expect(result).toMatchObject({
      ok: false,
      retryable: true,
      reason: "the host's llm.complete failed (host_error): no auxiliary provider configured",
    });
  });

  it('says so when the host answers without a text', async () => {
    const h = host((s, calls) => calls.settle({ id: s.id, result: { content: 'wrong field' } }));
    const result = await createSummariser({
      complete: hostComplete(h.hostCall),
      timeoutMs: 5000,
      log: () => {},
    }).summarise({ sessionId: 'S', messages: RANGE, maxTokens: 500 });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(/without a "text" string/);
  });

  it('fails at its own timeout when the host never answers, and a late answer changes nothing', async () => {
    let last: Sent | undefined;
    const h = host((s) => {
      last = s;
    });
    const result = await createSummariser({
      complete: hostComplete(h.hostCall),
      timeoutMs: 100,
      log: () => {},
    }).summarise({ sessionId: 'S', messages: RANGE, maxTokens: 500 });
    expect(result).toMatchObject({ ok: false, retryable: true, reason: 'the summariser did not answer within 0.1 s' });
    // The host answers after all: HostCalls settles its pending entry, nobody is hurt.
    expect(h.calls.settle({ id: last!.id, result: { text: GOOD_SUMMARY } })).toBe(true);
    expect(h.calls.waiting).toBe(0);
  });

  it('fails, retryable, when the host connection closes while it waits', async () => {
    const h = host((_s, calls) => calls.close());
    const result = await createSummariser({
      complete: hostComplete(h.hostCall),
      timeoutMs: 5000,
      log: () => {},
    }).summarise({ sessionId: 'S', messages: RANGE, maxTokens: 500 });
    expect(result).toMatchObject({ ok: false, retryable: true });
    if (!result.ok) expect(result.reason).toMatch(/lost the host connection/);
  });

  it('does not retry when the engine cannot call the host at all', async () => {
    const broken: HostCall = () => Promise.reject(new Error('unknown host method "llm.complete"'));
    const result = await createSummariser({ complete: hostComplete(broken), timeoutMs: 5000, log: () => {} }).summarise(
      { sessionId: 'S', messages: RANGE, maxTokens: 500 },
    );
    expect(result).toMatchObject({ ok: false, retryable: false });
  });
});
