/**
 * What a sequence of model calls costs under a provider's prompt cache (DESIGN §6): each request's
 * longest run of leading messages identical to the previous request's is read from the cache at
 * 0.1× the base input price; everything after it is written at 1.25×. A call where a message the
 * previous request had sent changed or vanished is a cache break.
 *
 * Invariant: the meter only reads what it is given; the same requests always give the same figures
 * (this is the model `../shared/bench/replay.py` uses, with real token counts instead of chars/4).
 */

/** Price of written (uncached) input, relative to the base input price. */
export const CACHE_WRITE = 1.25;
/** Price of cached input, relative to the base input price. */
export const CACHE_READ = 0.1;

/** One message of a request: its tokens, and what it is (two requests share it when both keys are equal). */
export interface RequestMessage {
  tokens: number;
  /** The message (its place in the conversation). */
  message: unknown;
  /** What it was sent with (its content). */
  content: unknown;
  /** Its tool calls as sent (input clearing may send some arguments short), when it has any. */
  calls?: unknown;
}

export interface CacheCostTotals {
  /** Model calls seen. */
  calls: number;
  /** Input tokens over all calls. */
  input: number;
  /** Cost in base-price token units: 1.25 × written + 0.1 × cached. */
  cost: number;
  /** Calls that rewrote something the previous request had sent. */
  breaks: number;
  /** Tokens of the previous requests past the common prefix, summed over the breaks. */
  breakTokens: number;
}

export class CacheCostMeter {
  private previous: readonly RequestMessage[] | null = null;
  readonly totals: CacheCostTotals = { calls: 0, input: 0, cost: 0, breaks: 0, breakTokens: 0 };

  /** One model call with this request. */
  call(request: readonly RequestMessage[]): void {
    let total = 0;
    for (const m of request) total += m.tokens;
    let shared = 0;
    let cached = 0;
    const previous = this.previous;
    if (previous) {
      while (
        shared < request.length &&
        shared < previous.length &&
        same(request[shared] as RequestMessage, previous[shared] as RequestMessage)
      ) {
        cached += (request[shared] as RequestMessage).tokens;
        shared++;
      }
      if (shared < previous.length) {
        this.totals.breaks++;
        for (let i = shared; i < previous.length; i++)
          this.totals.breakTokens += (previous[i] as RequestMessage).tokens;
      }
    }
    this.previous = request;
    this.totals.calls++;
    this.totals.input += total;
    this.totals.cost += CACHE_WRITE * (total - cached) + CACHE_READ * cached;
  }
}

function same(a: RequestMessage, b: RequestMessage): boolean {
  return a.message === b.message && a.content === b.content && a.calls === b.calls;
}

/** The share of `raw` saved by `hmc` in percent (two decimals), 0 when there is nothing to save. */
export function savedPercent(raw: number, hmc: number): number {
  return raw > 0 ? Math.round((1 - hmc / raw) * 10000) / 100 : 0;
}
