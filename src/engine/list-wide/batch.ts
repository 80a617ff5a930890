/**
 * Puts list-wide rewrites into force before a model call: asks `list-wide.ts` what should be a
 * placeholder, lets the price rule (`pass.ts`) decide whether changes to messages already sent are
 * worth their cache break now, applies what goes, keeps exact copies for recall, and tells the
 * ledger. Placeholders restored from an earlier process (Hermes `-q` runs one per turn) were sent
 * by that process already: putting them back is not a change and costs nothing.
 *
 * Invariant: a message's view changes here only; raw contents are never touched.
 */
import type { HmcConfig } from '../../config/keys.js';
import { keptForRecall, listWideRewrites } from './list-wide.js';
import { decidePass, type PassDecision, type ViewChange } from '../ledger/pass.js';
import { protectionFor } from '../session/protection.js';
import { ARGUMENTS_TOOL_PREFIX, inputRecallId, recallId, type RecallStore } from '../session/recall.js';
import type { StagedPhase } from '../layer1/layer1.js';
import type { HeldInputs, MessageState, Prune } from '../session/held.js';
import type { InputClearing } from '../../strategies/list-wide/input-clearing.js';
import { clearable, heldInputs, sameClearings, wantedInputs } from './inputs.js';
import type { Session } from '../session/session.js';
import { viewCounts } from '../ledger/message-tokens.js';
import { overflowing, quietCall, viewChars } from './quiet.js';

/** Assumed when the host does not say (the analytics and the clearing threshold need a window). */
export const DEFAULT_CONTEXT_WINDOW = 128_000;
/** Near overflow (quiet.ts), a pass must remove at least this share of the window to be worth a break outside the budget. */
const OVERFLOW_ROOM = 0.1;

export interface BatchDeps {
  recall: RecallStore;
  /** The time of this model call (ms). */
  callTime: number;
  /** This call already rewrites a sent message at this index (caught-up outputs), else null. */
  breakingAt: number | null;
  /** A layer-1 summary back and waiting to go out (all of its range's views at once, or none). */
  phase: StagedPhase | null;
  /** The host applies `tool_calls` edits to a request (hosts/capabilities.ts): input clearing may run. */
  toolCalls: boolean;
  /** Skip the pass on a quiet call (quiet.ts; the default). False runs it on every call: tests compare both. */
  quietCalls?: boolean;
}

/**
 * One wanted change: a tool result's placeholder (null: back to its own view), a summarised range's
 * view, or an assistant message's calls with some arguments cleared (null: sent as they are).
 */
type Change =
  | { kind: 'prune'; prune: Prune | null }
  | { kind: 'phase'; text: string }
  | { kind: 'inputs'; inputs: HeldInputs | null };

/**
 * Applies the rewrites due now. Returns the indices whose view changed, the pass decision, and
 * whether something the previous call sent was rewritten (a cache break; re-held placeholders are not).
 */
export function applyListWide(
  s: Session,
  config: HmcConfig,
  deps: BatchDeps,
): { changed: number[]; decision: PassDecision<Change>; breaks: boolean; phase: StagedPhase | null } {
  const window = s.meta.contextWindow || DEFAULT_CONTEXT_WINDOW;
  const overflow = overflowing(s, window);
  const facts = { breakingAt: deps.breakingAt, toolCalls: deps.toolCalls, overflowing: overflow };
  if (deps.quietCalls !== false && quietCall(s, config, facts)) {
    s.counts.passSkipped();
    return { changed: [], decision: { apply: [], costly: false, reason: 'no budget' }, breaks: false, phase: null };
  }
  // Past the point where this call breaks the cache anyway, a change costs nothing more.
  const firstUnsent = Math.min(s.held.previousCallLength, deps.breakingAt ?? Infinity);
  const wanted = listWideRewrites(s, config, protectionFor(config), { firstUnsent, window });
  const reheld: ViewChange<Change>[] = [];
  const changes: ViewChange<Change>[] = [];
  // Only results that are, or should be, rewritten can change: not the whole conversation.
  for (const key of new Set([...wanted.keys(), ...s.pruning.pruned.keys()])) {
    const item = s.rewriteIndex.byKey.get(key);
    if (!item) continue;
    const { message: m, index } = item;
    const next = wanted.get(key) ?? null;
    if ((next?.content ?? null) === (m.prune?.content ?? null)) continue;
    // A result inside a summarised range is sent as the summary's stub whatever its placeholder.
    const hidden = m.summary !== null;
    const after = next ? next.content.length : length(m.single?.content ?? m.raw);
    const change: ViewChange<Change> = {
      index,
      before: hidden ? 0 : length(s.viewOf(m)),
      after: hidden ? 0 : after,
      change: { kind: 'prune', prune: next },
    };
    if (hidden || (!m.prune && next && s.pruning.pruned.get(key) === next.strategy)) reheld.push(change);
    else changes.push(change);
  }
  if (deps.toolCalls) {
    for (const [index, wantedHere] of wantedInputs(s, config, protectionFor(config), wanted)) {
      const m = s.held.messages[index] as MessageState;
      const cleared = clearable(s, wantedHere);
      if (sameClearings(m.inputs?.cleared, cleared)) continue;
      const inputs = heldInputs(s, m, cleared);
      const change: ViewChange<Change> = {
        index,
        before: s.extraOf(m).length,
        after: (inputs ?? m).extra.length,
        change: { kind: 'inputs', inputs },
      };
      // Clearings an earlier process had in force were sent by it already: putting them back is free.
      if (
        !m.inputs &&
        inputs &&
        [...inputs.cleared].every(([id, c]) => sameClearings(new Map([[id, c]]), onlyEarlier(s, id)))
      )
        reheld.push(change);
      else changes.push(change);
    }
  }
  if (deps.phase) {
    for (const { index, text } of deps.phase.views) {
      changes.push({
        index,
        before: length(s.viewOf(s.held.messages[index] as MessageState)),
        after: text.length,
        change: { kind: 'phase', text },
        whole: true,
      });
    }
  }
  const ttl = config.cache.ttl_seconds * 1000;
  const decision = decidePass(changes, {
    sentLength: s.held.previousCallLength,
    breakingAt: deps.breakingAt,
    sentFrom: sentFromOf(s.held.messages, s.held.previousCallLength),
    callsSoFar: s.held.replies,
    cold: ttl > 0 && s.counts.lastCallAt > 0 && deps.callTime - s.counts.lastCallAt > ttl,
    forced: s.pruning.sweepPending,
    breaksSoFar: s.counts.cacheBreaks,
    // Near overflow, a pass that makes real room (a tenth of the window) is made whatever the budget.
    overflow: overflow ? OVERFLOW_ROOM * window : null,
    minTokens: config.cache.min_batch_tokens,
    breaksPer100: config.cache.max_breaks_per_100_calls,
    firstAfter: config.cache.first_break_after,
  });
  if (decision.costly) s.pruning.sweepTaken();
  // A summary goes out whole or waits whole.
  const phaseViews = decision.apply.filter((c) => c.change.kind === 'phase').length;
  const phaseGoes = deps.phase !== null && phaseViews === deps.phase.views.length && phaseViews > 0;
  const apply = [...reheld, ...decision.apply.filter((c) => c.change.kind !== 'phase' || phaseGoes)].sort(
    (a, b) => a.index - b.index,
  );
  const changed: number[] = [];
  for (const { index, change } of apply) {
    const m = s.held.messages[index] as MessageState;
    if (change.kind === 'phase') m.summary = change.text;
    else if (change.kind === 'inputs') {
      recordInputs(s, m, change.inputs, deps.recall);
      m.inputs = change.inputs;
    } else {
      const prune = change.prune;
      if (prune && !m.prune && !s.pruning.pruned.has(m.key)) s.pruning.countPrune();
      m.prune = prune;
      s.pruning.recordPrune(m.key, prune);
      if (prune && typeof m.raw === 'string' && keptForRecall(m, prune.strategy))
        deps.recall.put(s.id, recallId(s.id, m.key), m.tool, m.raw);
    }
    changed.push(index);
    if (index < s.held.ledgerLength) {
      const steps = s.stepsOf(m);
      s.ledger.defer(() => s.ledger.changeMessage(index, steps, m.extra), viewCounts(steps, m.extra));
    }
  }
  const free = new Set(reheld);
  return {
    changed,
    decision,
    breaks: apply.some((c) => c.index < s.held.previousCallLength && !free.has(c)),
    phase: phaseGoes ? deps.phase : null,
  };
}

/** The clearing an earlier process had in force for call `id` (empty when none). */
function onlyEarlier(s: Session, id: string): Map<string, InputClearing> {
  const c = s.pruning.inputsCleared.get(id);
  return c ? new Map([[id, c]]) : new Map();
}

/** Remembers which calls are cleared now (and keeps each one's exact arguments for recall). */
function recordInputs(s: Session, m: MessageState, next: HeldInputs | null, recall: RecallStore): void {
  for (const id of m.inputs?.cleared.keys() ?? []) if (!next?.cleared.has(id)) s.pruning.recordInputs(id, null);
  for (const [id, clearing] of next?.cleared ?? []) {
    s.pruning.recordInputs(id, clearing);
    const call = s.inputIndex.byId.get(id);
    const text = call?.call.function?.arguments;
    if (call && typeof text === 'string')
      recall.put(s.id, inputRecallId(s.id, id), `${ARGUMENTS_TOOL_PREFIX}${call.tool}`, text);
  }
}

/**
 * Characters the previous call sent from a message to its end (`to` messages), for the pass: worked
 * out once, on the first question (the break point asks it of each candidate).
 */
function sentFromOf(messages: readonly MessageState[], to: number): (from: number) => number {
  let prefix: number[] | null = null;
  return (from) => {
    if (!prefix) {
      prefix = [0];
      for (let i = 0; i < to && i < messages.length; i++)
        prefix.push((prefix[i] as number) + viewChars(messages, i, i + 1));
    }
    const end = prefix.length - 1;
    return (prefix[end] as number) - (prefix[Math.max(0, Math.min(from, end))] as number);
  };
}

function length(view: unknown): number {
  return typeof view === 'string' ? view.length : 0;
}
