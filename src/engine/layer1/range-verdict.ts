/**
 * Whether summarising a chosen range pays for itself (issue 15), measured on the session: the
 * tokens the model is sent of the range now, the summary and stubs that would replace them, and
 * the request the summariser would read, handed to the price rule of layer1-price.ts.
 *
 * Invariants: reads the session and the layer's counters, writes nothing; only what a message is
 * sent with counts as replaceable (tool calls keep their arguments; system messages and protected
 * tools' outputs are never replaced).
 */
import type { HmcConfig } from '../../config/keys.js';
import { estimateRequestChars } from '../../summarise/prompt.js';
import { summaryVerdict, type SummaryVerdict } from './layer1-price.js';
import { protectionFor } from '../session/protection.js';
import type { MessageState, Phase } from '../session/held.js';
import type { Session } from '../session/session.js';
import type { Message } from '../../core/message.js';

/** Tokens of a summary's head line (its phase and recall id) and of one stub. */
const HEAD_TOKENS = 30;
const STUB_TOKENS = 6;

/** Whether summarising `range` (the summariser reading `messages`) pays for itself, at the summariser's `price`. */
export function rangeVerdict(
  s: Session,
  config: HmcConfig,
  range: { from: number; to: number },
  messages: readonly Message[],
  previous: Phase | undefined,
  c: { answered: number; tokensOut: number },
  price: { input: number; output: number },
): SummaryVerdict {
  const bc = config.background_compression;
  const protection = protectionFor(config);
  // Only what a message is sent with goes (its text or output); tool calls keep their arguments.
  let replaceable = 0;
  let stubs = 0;
  for (let i = range.from; i <= range.to; i++) {
    const m = s.held.messages[i] as MessageState;
    if (m.role === 'system' || (m.role === 'tool' && protection.tool(m.tool))) continue;
    const view = s.viewOf(m);
    replaceable += Math.ceil((typeof view === 'string' ? view.length : 200) / 4);
    if (i > range.from) stubs++;
  }
  // The next answer is about as long as this session's earlier ones, else most of its limit.
  const answer = c.answered > 0 ? c.tokensOut / c.answered : 0.85 * bc.max_summary_tokens;
  return summaryVerdict({
    replaceable,
    replacement: answer + HEAD_TOKENS + stubs * STUB_TOKENS,
    requestTokens: estimateRequestChars(messages, previous?.summary.length ?? 0) / 4,
    answerTokens: answer,
    callsSoFar: s.held.replies,
    breaksSoFar: s.counts.cacheBreaks,
    breaksPer100: config.cache.max_breaks_per_100_calls,
    firstAfter: config.cache.first_break_after,
    price,
    margin: bc.min_return,
  });
}
