/**
 * Quiet calls: most model calls of a long tool loop cannot change a single view. The cache-break
 * budget is spent, so every rewrite of a message already sent waits (ledger/pass.ts), and the
 * messages not sent yet are the current step's, which no list-wide strategy rewrites. Then the
 * pass (list-wide.ts, inputs.ts, batch.ts) would only work out, call after call, the same waiting
 * changes; it is skipped, and a model call costs O(new messages) instead of O(conversation): on
 * a session of 437 calls and 965 messages the pass was 2.2 ms of each `pre_model_call`
 * (docs/engine.md, "Quiet calls").
 *
 * A call is quiet only when each of these holds; anything else runs the whole pass:
 * - no cache break this call anyway (a caught-up output), no sweep;
 * - no break left in the budget, and the context far from overflowing the window (either would
 *   let a waiting rewrite go now; a layer-1 summary waiting to go out waits for the same break,
 *   since it never covers the current step);
 * - every placeholder and cleared input an earlier process sent is back on its message;
 * - the results not sent yet are the current step's (the latest assistant message's calls: never
 *   cleared, echoed or input-cleared), and none of them repeats an earlier output, has a later
 *   copy (dedup keeps the latest), shares a file name with another of them (a read superseded
 *   within the step), or came in an earlier user turn (error purge).
 *
 * What a quiet call leaves for the next pass: a changed placeholder of a result inside a
 * summarised range (it is sent as the summary whatever its placeholder, so the model sees the same).
 * test/engine/quiet-calls.test.ts runs random tool loops with and without quiet calls and requires
 * the same view on every call.
 */
import type { HmcConfig } from '../../config/keys.js';
import { breakBudget } from '../ledger/pass.js';
import type { MessageState } from '../session/held.js';
import type { Session } from '../session/session.js';
import { fileName, normalizePath } from '../../strategies/shared/file-ops.js';
import { currentStepCalls, fileOpFor } from './facts.js';
import { indexUpTo } from './list-wide.js';

/** Above this share of the window a request risks failing: waiting rewrites are made whatever the budget. */
const OVERFLOW_SHARE = 0.85;

/** What the call brings besides the session (batch.ts's deps). */
export interface QuietFacts {
  /** This call already rewrites a sent message at this index, else null. */
  breakingAt: number | null;
  /** The host applies `tool_calls` edits (input clearing runs). */
  toolCalls: boolean;
  /** The views sent are near the window (`overflowing`): waiting rewrites that make room go now. */
  overflowing: boolean;
}

/** True when the list-wide pass would change no view in this call (see the file's head). */
export function quietCall(s: Session, config: HmcConfig, facts: QuietFacts): boolean {
  if (facts.breakingAt !== null || s.pruning.sweepPending) return false;
  const budget = breakBudget(s.held.replies, config.cache.max_breaks_per_100_calls, config.cache.first_break_after);
  if (s.counts.cacheBreaks < budget || facts.overflowing) return false;
  indexUpTo(s, config, s.held.messages.length);
  if (!earlierRewritesBack(s, facts.toolCalls)) return false;
  return onlyTheCurrentStep(s);
}

/** The views sent would overflow the window soon: waiting rewrites that make room go now. */
export function overflowing(s: Session, window: number): boolean {
  return viewChars(s.held.messages, 0, s.held.messages.length) / 4 > OVERFLOW_SHARE * window;
}

/** Characters of the views of messages [from, to). */
export function viewChars(messages: readonly MessageState[], from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to && i < messages.length; i++) {
    const m = messages[i] as MessageState;
    const view = m.summary !== null ? m.summary : m.prune ? m.prune.content : m.single ? m.single.content : m.raw;
    n += (typeof view === 'string' ? view.length : 0) + (m.inputs ? m.inputs.extra : m.extra).length;
  }
  return n;
}

/** Every placeholder and input clearing in force (this process's, or an earlier one's) is on its message. */
function earlierRewritesBack(s: Session, toolCalls: boolean): boolean {
  for (const [key, kind] of s.pruning.pruned) {
    const m = s.rewriteIndex.byKey.get(key)?.message;
    if (m && m.prune?.strategy !== kind) return false;
  }
  if (!toolCalls || s.pruning.inputsCleared.size === 0) return true;
  s.inputIndex.update(s.held.messages);
  for (const id of s.pruning.inputsCleared.keys()) {
    const call = s.inputIndex.byId.get(id);
    if (call?.input && !s.held.messages[call.message]?.inputs?.cleared.has(id)) return false;
  }
  return true;
}

/**
 * The results not sent yet are the current step's and none a strategy would rewrite for free. (An
 * older assistant message among the new ones has its results among them too, outside the current
 * step; its calls, unanswered, are never input-cleared.)
 */
function onlyTheCurrentStep(s: Session): boolean {
  const messages = s.held.messages;
  const current = currentStepCalls(s);
  const names = new Set<string>();
  for (let i = s.held.previousCallLength; i < messages.length; i++) {
    const m = messages[i] as MessageState;
    if (m.role !== 'tool') continue;
    const item = s.rewriteIndex.byKey.get(m.key);
    // An output from an earlier user turn may be purged at once if it failed (error purge's age).
    if (!item || item.index !== i || !current.has(m.key) || m.turn < s.counts.turn) return false;
    const first = s.rewriteIndex.firstByText.get(m.raw as string);
    if ((first !== undefined && first !== item) || s.rewriteIndex.hasLaterCopy(item)) return false;
    const op = fileOpFor(m).op;
    for (const path of op ? (op.op === 'read' ? [op.path] : op.paths) : []) {
      const name = fileName(normalizePath(path));
      if (names.has(name)) return false;
      names.add(name);
    }
  }
  return true;
}
