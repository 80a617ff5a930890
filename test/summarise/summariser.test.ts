/**
 * The summariser's own contract (src/summarise/types.ts): never throws, never waits past its
 * timeout, and turns every failure into a result that says why.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Message } from '../../src/core/message.js';
import { CompleteError } from '../../src/summarise/errors.js';
import { createSummariser } from '../../src/summarise/summariser.js';
import type { Complete, SummaryResult } from '../../src/summarise/types.js';
import { GOOD_SUMMARY } from './openai-server.js';

const RANGE: Message[] = [
  { role: 'user', content: 'Fix the build.' },
  { role: 'assistant', content: 'Done: src/pipeline.py fixed.' },
];

afterEach(() => {
  vi.useRealTimers();
});

describe('createSummariser', () => {
  it('settles exactly at the timeout when the model call hangs and ignores its signal', async () => {
    vi.useFakeTimers();
    let signal: AbortSignal | undefined;
    const hung: Complete = (_m, _t, s) => {
      signal = s;
      return new Promise(() => {}); // never settles, never looks at the signal
    };
    let result: SummaryResult | undefined;
    void createSummariser({ complete: hung, timeoutMs: 1000, log: () => {} })
      .summarise({ sessionId: 'S', messages: RANGE, maxTokens: 500 })
      .then((r) => {
        result = r;
      });
    await vi.advanceTimersByTimeAsync(999);
    expect(result).toBeUndefined();
    expect(signal?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(result).toMatchObject({ ok: false, retryable: true, reason: 'the summariser did not answer within 1.0 s' });
    expect(signal?.aborted).toBe(true);
    expect(result?.tokensIn).toBeGreaterThan(0);
  });

  it('drops an answer that arrives after the timeout', async () => {
    vi.useFakeTimers();
    const late: Complete = () => new Promise((resolve) => setTimeout(() => resolve({ text: GOOD_SUMMARY }), 2000));
    const pending = createSummariser({ complete: late, timeoutMs: 1000, log: () => {} }).summarise({
      sessionId: 'S',
      messages: RANGE,
      maxTokens: 500,
    });
    await vi.advanceTimersByTimeAsync(3000);
    expect(await pending).toMatchObject({ ok: false, retryable: true });
  });

  it('turns a model call that throws at once into a failure, not an exception', async () => {
    const throwing: Complete = () => {
      throw new Error('boom');
    };
    const result = await createSummariser({ complete: throwing, timeoutMs: 1000, log: () => {} }).summarise({
      sessionId: 'S',
      messages: RANGE,
      maxTokens: 500,
    });
    expect(result).toMatchObject({ ok: false, retryable: true, reason: 'the summariser failed: boom' });
  });

  it('passes a CompleteError on with its retry advice', async () => {
    const refused: Complete = () => Promise.reject(new CompleteError('the endpoint answered HTTP 401: bad key', false));
    const logs: string[] = [];
    const result = await createSummariser({ complete: refused, timeoutMs: 1000, log: (l) => logs.push(l) }).summarise({
      sessionId: 'S',
      messages: RANGE,
      maxTokens: 500,
    });
    expect(result).toMatchObject({ ok: false, retryable: false, reason: 'the endpoint answered HTTP 401: bad key' });
    expect(logs).toEqual([
      expect.stringMatching(
        /^hmc: layer 1: no summary of 2 messages of session S after .*: the endpoint answered HTTP 401: bad key \(not retried\)$/,
      ),
    ]);
  });

  it('refuses an empty range without calling the model', async () => {
    const complete = vi.fn<Complete>();
    const result = await createSummariser({ complete, timeoutMs: 1000, log: () => {} }).summarise({
      sessionId: 'S',
      messages: [],
      maxTokens: 500,
    });
    expect(result).toMatchObject({ ok: false, retryable: false });
    expect(complete).not.toHaveBeenCalled();
  });

  it('keeps its result when the logger throws', async () => {
    const ok: Complete = () => Promise.resolve({ text: GOOD_SUMMARY, model: 'm' });
    const result = await createSummariser({
      complete: ok,
      timeoutMs: 1000,
      log: () => {
        throw new Error('stderr closed');
      },
    }).summarise({ sessionId: 'S', messages: RANGE, maxTokens: 500 });
    expect(result.ok).toBe(true);
  });

  it('redacts a secret in a failure reason', async () => {
    const leaky: Complete = () =>
      Promise.reject(new Error('proxy said: Authorization: Bearer ZXhhbXBsZTEyMzQ1Njc4OTA'));
    const result = await createSummariser({ complete: leaky, timeoutMs: 1000, log: () => {} }).summarise({
      sessionId: 'S',
      messages: RANGE,
      maxTokens: 500,
    });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toBe('the summariser failed: proxy said: Authorization: Bearer [REDACTED]');
  });

  it('asks for at most maxTokens and counts the note it gets as tokens out', async () => {
    let asked = 0;
    const ok: Complete = (_m, maxTokens) => {
      asked = maxTokens;
      return Promise.resolve({ text: `Here is the note.\n\n${GOOD_SUMMARY}` });
    };
    const result = await createSummariser({ complete: ok, timeoutMs: 1000, log: () => {} }).summarise({
      sessionId: 'S',
      messages: RANGE,
      maxTokens: 700,
    });
    expect(asked).toBe(700);
    expect(result).toMatchObject({ ok: true, model: 'unknown', text: GOOD_SUMMARY });
  });
});
