/**
 * Before a model call: what `pre_llm_call` (once per user turn) and `pre_model_call` (before every
 * call of the tool loop) share. The hints the host sent are kept, the held conversation is synced,
 * summaries an earlier process made are put back, the list-wide rewrites go out when a pass is
 * due (batch.ts), a turn opens, the call is counted, and a layer-1 summary is started for later.
 * Then each hook answers in its own form: the turn's edits and context hint, or the one call's
 * view (model-call.ts).
 *
 * Invariant: where the two hooks differ, the code names the hook; a stretch of a streamed history
 * (`partial`) is held and answered with no view.
 */
import type { HmcConfig } from '../../config/keys.js';
import {
  ResyncError,
  type PreLlmCallParams,
  type PreLlmCallResult,
  type PreModelCallParams,
} from '../../core/host-api.js';
import type { Message } from '../../core/message.js';
import { applyListWide, DEFAULT_CONTEXT_WINDOW } from '../list-wide/batch.js';
import type { EventSink } from '../../events/types.js';
import type { PhaseIndex } from '../../store/phase-types.js';
import * as catchUp from './catch-up.js';
import { phaseEntry, phaseEvent } from './events.js';
import type { Layer1, StagedPhase } from '../layer1/layer1.js';
import { countCallAtSend, sortedEdits } from './model-call.js';
import type { BreakCause } from '../ledger/ledger.js';
import type { RecallStore } from '../session/recall.js';
import type { Session } from '../session/session.js';
import { syncConversation, type SyncDeps } from './sync.js';

/** The hint appended once per session (the original's text, reference §9). */
export const SYSTEM_CONTEXT =
  'Context management is handled automatically in the background. You do not need to manage context yourself.';

/** The hook a view is made for. */
export type CallHook = { name: 'pre_llm_call' } | { name: 'pre_model_call'; params: PreModelCallParams };

export interface CallDeps {
  config: HmcConfig;
  layer1: Layer1;
  recall: RecallStore;
  sync: SyncDeps;
  now: () => number;
  log: (line: string) => void;
  /** Where a summarised phase is shown live and kept in the session index. */
  sink: EventSink;
  phases: PhaseIndex | null;
  /** The host applies `tool_calls` edits (its hello, hosts/capabilities.ts): input clearing may run. */
  toolCalls: boolean;
  /** Skip the list-wide pass on quiet calls (list-wide/quiet.ts). */
  quietCalls: boolean;
}

/**
 * The conversation a call brings: the whole list, or what follows the held `base` (a base the
 * engine does not hold is a ResyncError: the host sends the whole list again).
 */
export function conversationOf(s: Session, p: PreLlmCallParams): { messages: Message[]; base: number } {
  if (p.messages) return { messages: p.messages, base: 0 };
  if (p.base !== undefined && p.append) {
    if (p.base > s.held.messages.length)
      throw new ResyncError(
        `base ${p.base} does not match the ${s.held.messages.length} messages held for session ${s.id}`,
      );
    return { messages: p.append, base: p.base };
  }
  return { messages: [], base: 0 };
}

/**
 * Brings `s` up to this call (the conversation is `messages` from index `base` on). False when
 * the call only streams a stretch of a long history: it is held, and no view is answered.
 */
export function prepareCall(
  s: Session,
  p: PreLlmCallParams,
  hook: CallHook,
  messages: readonly Message[],
  base: number,
  deps: CallDeps,
): boolean {
  const { config, layer1 } = deps;
  const before = { sent: s.held.previousCallLength, model: s.meta.model };
  s.meta.takeHints(p);
  // From the first pre_model_call on, calls are counted when sent, never again from replies.
  // The host's measure describes this one request; a call without it is measured by HMC alone.
  s.counts.callCame(
    hook.name === 'pre_model_call',
    hook.name === 'pre_model_call' ? hook.params.host_tokens : undefined,
  );
  const changed = syncConversation(s, messages, deps.sync, base, p.partial === true);
  // Summaries an earlier process made go back on the messages they were made from (free).
  for (const i of layer1.rehold(s, config)) s.viewChanged(i);
  // A stretch of a long history streamed ahead of the real call: held, no model call. A stretch
  // the engine held already (the bridge resent a history) leaves the list-wide rewrites on.
  if (p.partial !== true) catchUp.streaming(s, true);
  else {
    if (changed) catchUp.held(s);
    return false;
  }
  const previousTurn = s.counts.turn;
  s.counts.openTurn(hook.name === 'pre_llm_call', s.held.userCount);
  const callTime = s.held.latestStamp || deps.now();
  // List-wide rewrites wait until a big first call is caught up (catch-up.ts); then what it left
  // for later goes out with this call, with the caught-up outputs.
  const caughtUp = catchUp.takeCacheBreak(s);
  const pass = catchUp.catchingUp(s)
    ? null
    : applyListWide(s, config, {
        recall: deps.recall,
        callTime,
        breakingAt: catchUp.takeLanding(s),
        phase: layer1.staged(s, config),
        toolCalls: deps.toolCalls,
        quietCalls: deps.quietCalls,
      });
  if (pass && config.debug && pass.decision.costly)
    deps.log(
      `hmc: session ${s.id}: rewrote ${pass.decision.apply.length} outputs already sent (${pass.decision.reason}) at model call ${s.held.replies}`,
    );
  if (pass?.phase) phaseApplied(s, pass.phase, deps);
  s.counts.callMade(callTime);
  for (const i of pass?.changed ?? []) s.refreshEdit(i);
  // A message the previous call already sent was rewritten: the provider's cache breaks there.
  if (pass?.breaks || caughtUp) s.counts.cacheBroke();
  // The host's own changes break both requests' caches: its history rewritten (sync cut what the
  // previous call sent: its compaction, an edit) or another model; HMC's rewrites only the one it sends.
  const switched = before.model !== '' && s.meta.model !== before.model;
  const hostCut = s.held.previousCallLength < before.sent;
  // A history rewritten by a compaction HMC made as the host's context engine is HMC's, planned and priced.
  const compacted = s.counts.compactedSince(s.engine.compactions);
  const cause: BreakCause | undefined =
    switched || (hostCut && !compacted) ? 'hermes' : hostCut || pass?.breaks || caughtUp ? 'hmc' : undefined;
  const step = {
    before: before.sent,
    cutTo: s.held.previousCallLength,
    stable: unchangedPrefix(s, pass?.changed, caughtUp),
    switched,
    ...(cause ? { cause } : {}),
  };
  const send = s.counts.trackCall(step, hook.name === 'pre_model_call', s.held.messages.length);
  s.held.sentUpTo(s.held.messages.length);
  if (s.counts.turn !== previousTurn || s.ledger.timeline.length === 0) deferTurnStart(s, deps.now());
  if (hook.name === 'pre_model_call' && send) countCallAtSend(s, hook.params, { ...send, at: callTime });
  // A summary for a later pass is prepared now, off the hook path (it comes back by itself).
  if (!catchUp.catchingUp(s))
    layer1.maybeStart(s, config, s.meta.contextWindow || DEFAULT_CONTEXT_WINDOW, s.meta.hostThreshold);
  return true;
}

/**
 * How many leading messages this call sends as the previous call sent them (HMC's model of the
 * provider's prompt cache): those the previous call sent (fewer when the host rewrote its history:
 * sync cut it), up to the first one a rewrite changed now. A catch-up rewrite: unknown (-1).
 */
function unchangedPrefix(s: Session, changed: readonly number[] | undefined, caughtUp: boolean): number {
  if (caughtUp) return -1;
  let stable = s.held.previousCallLength;
  for (const i of changed ?? []) if (i < stable) stable = i;
  return stable;
}

/** pre_llm_call's answer: the complete edits, with the context hint when there is a new one. */
export function turnAnswer(s: Session, layer1: Layer1): PreLlmCallResult {
  const result: PreLlmCallResult = { edits: sortedEdits(s.view.edits) };
  const context: string[] = [];
  if (!s.counts.contextSent) {
    s.counts.contextGiven();
    context.push(SYSTEM_CONTEXT);
  }
  // The hint naming the summarised phases, only when it changed (hosts may store each one).
  const hint = layer1.hint(s);
  if (hint !== null && hint !== s.layer1.hintSent) {
    s.layer1.hintGiven(hint);
    context.push(hint);
  }
  if (context.length > 0) result.context = context.join('\n');
  return result;
}

/** A layer-1 summary went out with this call: its phase is in force, kept in the index, shown live. */
function phaseApplied(s: Session, staged: StagedPhase, deps: CallDeps): void {
  deps.layer1.applied(s, staged);
  const p = staged.phase;
  deps.phases?.record(phaseEntry(s, staged));
  if (deps.config.debug)
    deps.log(
      `hmc: session ${s.id}: phase ${p.id} summarised (messages ${p.from}-${p.to}, about ${p.tokensBefore} → ${p.tokensAfter} tokens${staged.updated ? ', updated' : ''})`,
    );
  deps.sink.emit(phaseEvent(s, staged));
}

/** A user turn began: its timeline point, with the context as it will be sent. */
function deferTurnStart(s: Session, time: number): void {
  const turn = s.counts.turn;
  // As of this hook: read when the job runs, the count would include tool calls made after it,
  // and the live count ran one ahead of the store's (issue 11).
  const toolCalls = s.counts.toolCalls;
  s.ledger.defer(() => s.ledger.startTurn(turn, time, s.meta.contextWindow || DEFAULT_CONTEXT_WINDOW, toolCalls));
}
