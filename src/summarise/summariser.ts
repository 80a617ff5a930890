/**
 * Layer 1's summariser (issue 10): a range of messages in, a handoff note out. Builds the prompt
 * (redacted, bounded), calls `complete` with a signal that fires at the timeout, checks the
 * answer against the template, redacts it again, and counts the tokens both ways as a cost.
 *
 * Invariants (src/summarise/types.ts): `summarise` never throws and never waits past its timeout,
 * even when `complete` ignores the signal and never settles; a failure is a result saying why and
 * whether to try again; no secret the patterns know leaves in a request or comes back in a note;
 * nothing here holds a lock or a hook: while the model thinks, the event loop is free.
 */
import { countTokens } from '../core/tokens.js';
import { checkAnswer } from './answer.js';
import { CompleteError } from './errors.js';
import { buildPrompt, DEFAULT_REQUEST_BUDGET_CHARS } from './prompt.js';
import { redactSecrets, scrubValues } from './redact.js';
import type { Complete, Summariser, SummaryRequest, SummaryResult } from './types.js';
import type { Message } from '../core/message.js';
import { errorText } from '../core/errors.js';

export interface SummariserOptions {
  /** The model call: the host's `llm.complete` or an OpenAI-compatible endpoint (choose.ts). */
  complete: Complete;
  /** A call taking longer fails with `retryable: true` (background_compression.timeout_seconds). */
  timeoutMs: number;
  /** Clock for the elapsed time in log lines. */
  now?: () => number;
  /** One line per summary, success or failure; never holds a secret. */
  log: (line: string) => void;
  /** Characters of material per request (prompt.ts DEFAULT_REQUEST_BUDGET_CHARS). */
  requestBudgetChars?: number;
}

/** Longest failure reason kept (an HTTP body quoted in it is already cut to 200 characters). */
const MAX_REASON_CHARS = 400;

export function createSummariser(opts: SummariserOptions): Summariser {
  return { summarise: (request) => summarise(request, opts) };
}

async function summarise(request: SummaryRequest, opts: SummariserOptions): Promise<SummaryResult> {
  const now = opts.now ?? Date.now;
  const started = now();
  const what = `${request.messages.length} message${request.messages.length === 1 ? '' : 's'} of session ${request.sessionId}`;
  let tokensIn = 0;
  const fail = (reason: string, retryable: boolean): SummaryResult => {
    const clean = redactSecrets(reason).text.slice(0, MAX_REASON_CHARS);
    safeLog(
      opts,
      `hmc: layer 1: no summary of ${what} after ${seconds(now() - started)}: ${clean}${retryable ? '' : ' (not retried)'}`,
    );
    return { ok: false, reason: clean, retryable, tokensIn };
  };
  try {
    if (request.messages.length === 0) return fail('nothing to summarise: the range is empty', false);
    const maxTokens = Number.isInteger(request.maxTokens) && request.maxTokens > 0 ? request.maxTokens : 1500;
    const extra = {
      ...(request.pace ? { pace: request.pace } : {}),
      ...(request.previous ? { previous: request.previous } : {}),
      ...(request.focus ? { focus: request.focus } : {}),
      ...(request.notes ? { notes: request.notes } : {}),
    };
    const prompt = await buildPrompt(
      { messages: request.messages, maxTokens, ...extra },
      opts.requestBudgetChars ?? DEFAULT_REQUEST_BUDGET_CHARS,
    );
    tokensIn = requestTokens(prompt.messages);
    const answer = await withTimeout((signal) => opts.complete(prompt.messages, maxTokens, signal), opts.timeoutMs);
    if (answer.kind === 'timeout') return fail(`the summariser did not answer within ${seconds(opts.timeoutMs)}`, true);
    if (answer.kind === 'error') {
      const err = answer.error;
      if (err instanceof CompleteError) return fail(err.message, err.retryable);
      return fail(`the summariser failed: ${errorText(err)}`, true);
    }
    if (typeof answer.value?.text !== 'string') return fail('the summariser answered without a text', true);
    // The note again: the patterns, then every value the request's redaction found (a model that
    // knew a secret some other way must not store it either).
    const patterned = redactSecrets(answer.value.text);
    const scrubbed = scrubValues(patterned.text, [...prompt.values, ...patterned.values]);
    const redacted = { text: scrubbed.text, count: patterned.count + scrubbed.count };
    const checked = checkAnswer(redacted.text);
    if (!checked.ok) return fail(checked.reason, true);
    const model = typeof answer.value.model === 'string' && answer.value.model ? answer.value.model : 'unknown';
    const tokensOut = countTokens(checked.text);
    const redactions = prompt.redactions + redacted.count;
    safeLog(
      opts,
      `hmc: layer 1: summarised ${what} in ${seconds(now() - started)} with ${redactSecrets(model).text}: ${tokensIn} tokens in, ${tokensOut} out` +
        (prompt.omitted > 0 ? `, ${prompt.omitted} messages left out of the request` : '') +
        (redactions > 0 ? `, ${redactions} secrets redacted` : ''),
    );
    return {
      ok: true,
      text: checked.text,
      topic: checked.topic,
      model,
      tokensIn,
      tokensOut,
      redactions,
      ...(answer.value.price ? { price: answer.value.price } : {}),
    };
  } catch (err) {
    // A bug here must not reach the engine: it becomes a failure like any other.
    return fail(`the summariser failed unexpectedly: ${errorText(err)}`, true);
  }
}

type Outcome<T> = { kind: 'value'; value: T } | { kind: 'error'; error: unknown } | { kind: 'timeout' };

/**
 * Runs `run` with a signal that aborts after `ms`, and settles by then whatever `run` does: a
 * call that ignores its signal is left behind (its late answer is dropped), never waited for.
 */
export function withTimeout<T>(run: (signal: AbortSignal) => Promise<T>, ms: number): Promise<Outcome<T>> {
  const controller = new AbortController();
  return new Promise<Outcome<T>>((resolve) => {
    const timer = setTimeout(() => {
      controller.abort(new CompleteError(`timed out after ${seconds(ms)}`, true));
      resolve({ kind: 'timeout' });
    }, ms);
    // A pending summary must not keep a closing process alive.
    timer.unref();
    let pending: Promise<T>;
    try {
      pending = Promise.resolve(run(controller.signal));
    } catch (err) {
      pending = Promise.reject(err);
    }
    pending.then(
      (value) => {
        clearTimeout(timer);
        resolve(controller.signal.aborted ? { kind: 'timeout' } : { kind: 'value', value });
      },
      (error: unknown) => {
        clearTimeout(timer);
        resolve(controller.signal.aborted ? { kind: 'timeout' } : { kind: 'error', error });
      },
    );
  });
}

/** What the request costs, counted as the ledger counts a message (4 per message plus its content). */
function requestTokens(messages: readonly Message[]): number {
  return messages.reduce((n, m) => n + 4 + (typeof m.content === 'string' ? countTokens(m.content) : 0), 0);
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

function safeLog(opts: SummariserOptions, line: string): void {
  try {
    opts.log(line);
  } catch {
    // A broken logger loses the line, never the result.
  }
}
