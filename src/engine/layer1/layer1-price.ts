/**
 * When a layer-1 summary pays (issue 15): its expected saving under the prompt-cache model against
 * its price. The summariser's tokens are bought at a price relative to the main model's input
 * (`background_compression.summariser_price`: by default its input at 1.25×, its output at 5×);
 * a summary saves the tokens it takes out of every later request, read at the cached 0.1× once
 * it is in force, and it goes in force only at a pass (the cache-break budget of pass.ts decides
 * when). So a summary is asked for only when
 *
 *   removed × 0.1 × (calls expected after the pass that sends it) ≥ margin × price,
 *
 * those calls counted from the call that earns the session its next break (n × 100 /
 * max_breaks_per_100_calls), not from an earlier pass the budget allows: a session may end soon
 * after an early pass, and the summariser's price is certain.
 *
 * removed being the tokens the model is sent of the range now less the summary and its stubs.
 * The one-off write saved at the pass itself is left out on purpose: the estimate errs towards
 * not asking (the price is certain, the calls to come are a guess).
 *
 * Pure: a function of the figures it is given.
 */
import { CACHE_READ } from '../ledger/cache-cost.js';
import { breakBudget, expectedRemainingCalls } from '../ledger/pass.js';

/** Calls a summary takes to come back and be staged (it is asked for after a call's view). */
const RETURN_CALLS = 1;

export interface SummaryFigures {
  /** Tokens the model is sent now of the messages the summary would replace. */
  replaceable: number;
  /** Tokens the summary, its head line and the stubs of the other messages would take instead. */
  replacement: number;
  /** Tokens the summariser reads (its instructions, the range, an earlier note). */
  requestTokens: number;
  /** Tokens it is expected to write. */
  answerTokens: number;
  /** Model calls so far, and costly passes so far (the cache-break budget). */
  callsSoFar: number;
  breaksSoFar: number;
  breaksPer100: number;
  firstAfter: number;
  /** Summariser input and output token prices, in main-model input tokens. */
  price: { input: number; output: number };
  /** The saving must be at least this multiple of the price. */
  margin: number;
}

export interface SummaryVerdict {
  pays: boolean;
  /** Expected saving and price, in main-model input tokens (the replay's cost units). */
  saving: number;
  price: number;
  /** Tokens taken out of each request once the summary is in force. */
  removed: number;
  /** Model calls expected after the pass that sends it. */
  callsAfter: number;
}

/** The call at which the cache-break budget next allows a costly pass (now, when it already does). */
export function nextPassCall(
  callsSoFar: number,
  breaksSoFar: number,
  breaksPer100: number,
  firstAfter: number,
): number {
  if (breaksSoFar < breakBudget(callsSoFar, breaksPer100, firstAfter)) return callsSoFar;
  if (breaksPer100 <= 0) return Infinity;
  return Math.max(callsSoFar, firstAfter + Math.ceil((breaksSoFar * 100) / breaksPer100));
}

export function summaryVerdict(f: SummaryFigures): SummaryVerdict {
  const removed = Math.max(0, f.replaceable - f.replacement);
  const end = f.callsSoFar + expectedRemainingCalls(f.callsSoFar);
  // A pass before the session earned its break (pass.ts) may come early, but the session may end
  // soon after it: only the calls after the one that earns the break are counted on.
  const earned = f.breaksPer100 > 0 ? Math.ceil(((f.breaksSoFar + 1) * 100) / f.breaksPer100) : 0;
  const goesOut = Math.max(
    nextPassCall(f.callsSoFar, f.breaksSoFar, f.breaksPer100, f.firstAfter),
    earned,
    f.callsSoFar + RETURN_CALLS,
  );
  const callsAfter = Number.isFinite(goesOut) ? Math.max(0, end - goesOut) : 0;
  const saving = removed * CACHE_READ * callsAfter;
  const price = f.requestTokens * f.price.input + f.answerTokens * f.price.output;
  return { pays: saving > 0 && saving >= f.margin * price, saving, price, removed, callsAfter };
}
