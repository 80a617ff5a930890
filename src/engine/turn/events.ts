/**
 * What the engine tells the world about a session, built from its state: the live events (a tool
 * output compressed, a turn's figures, a summarised phase, the session's end), the inspector's
 * before/after record, the phase's entry in the session index, and the session's analytics record.
 *
 * Invariant: builders only read the session (the turn event's de-duplication key aside); the
 * engine decides when each is due and hands it on. Figures come from the ledger, never recounted.
 */
import type { HmcConfig } from '../../config/keys.js';
import { countTokens } from '../../core/tokens.js';
import type {
  EventPayload,
  InspectRecord,
  PhaseEvent,
  SessionEndEvent,
  SessionIdleEvent,
  ToolEvent,
  TurnEvent,
} from '../../events/types.js';
import type { PhaseEntry } from '../../store/phase-types.js';
import type { SessionRecord } from '../../store/types.js';
import { DEFAULT_CONTEXT_WINDOW } from '../list-wide/batch.js';
import type { StagedPhase } from '../layer1/layer1.js';
import { summariseShare } from '../layer1/layer1-threshold.js';
import { ownerKey } from '../session/owner.js';
import type { Session } from '../session/session.js';

/** The inspector keeps at most this much of each side of an output. */
const INSPECT_CAP = 256 * 1024;

/** The turn, its tool calls and cache breaks as of the hook that ended it. */
export interface TurnAt {
  turn: number;
  toolCalls: number;
  cacheBreaks: number;
}

export function turnAt(s: Session): TurnAt {
  return { turn: s.counts.turn, toolCalls: s.counts.toolCalls, cacheBreaks: s.counts.cacheBreaks };
}

/**
 * The turn's figures once its model calls are counted (at its end), or null when there is
 * nothing new to say: `delta_saved` is what this turn's calls saved, read from its timeline
 * point, so it is right in a new process too.
 */
export function turnEvent(s: Session, config: HmcConfig, at: TurnAt): EventPayload<TurnEvent> | null {
  const { turn, toolCalls, cacheBreaks } = at;
  if (!config.enabled || turn === 0) return null;
  const t = s.ledger.totals();
  const key = `${turn}:${t.inputRaw}:${t.inputHmc}:${toolCalls}:${s.ledger.timeline.find((p) => p.turn === turn)?.context_tokens ?? t.contextTokens}`;
  if (key === s.counts.lastTurnEvent) return null;
  s.counts.turnEventSent(key);
  const window = s.meta.contextWindow || DEFAULT_CONTEXT_WINDOW;
  // The turn's stored point (ledger.endTurn) holds the same context, so live and stored agree.
  const point = s.ledger.timeline.find((p) => p.turn === turn);
  const context = point ? point.context_tokens : t.contextTokens;
  const contextRaw = Math.max(point ? (point.context_raw_tokens ?? context) : t.contextRawTokens, context);
  const turnSaved = s.ledger.turnSaved(turn);
  return {
    type: 'turn',
    session_id: s.id,
    turn,
    model: s.meta.model,
    platform: s.meta.platform,
    project_path: s.meta.projectPath,
    context_tokens: context,
    context_raw_tokens: contextRaw,
    context_saved: contextRaw - context,
    context_window: window,
    context_percent: Math.min(1, context / window),
    turn_model_calls: point?.model_calls ?? 0,
    turn_input_saved: turnSaved,
    model_calls: t.modelCalls,
    input_saved: t.inputRaw - t.inputHmc,
    delta_saved: turnSaved,
    cumulative_saved: t.inputRaw - t.inputHmc,
    by_strategy: t.byStrategy,
    by_tool: t.byTool,
    input_tokens: { raw: t.inputRaw, hmc: t.inputHmc },
    tool_calls: toolCalls,
    cache_breaks: cacheBreaks,
    // Where this session's layer 1 summarises (the context chart draws it); absent when it never does.
    ...(config.background_compression.enabled && !s.meta.manual
      ? { summarise_at: summariseShare(config, s.meta.hostThreshold) }
      : {}),
    ...(s.meta.hostThreshold !== undefined ? { host_compress_at: s.meta.hostThreshold } : {}),
  };
}

/** One tool output as it was compressed (`before` raw, `after` as the model is sent it). */
export interface ToolOutputSeen {
  id: string;
  tool: string;
  turn: number;
  before: string;
  after: string;
  strategies: string[];
  isError: boolean;
}

/**
 * The tool event of one output, and its inspector record when the inspector is on and the output
 * changed (each side cut at INSPECT_CAP). Tokens are counted here, so call it off the hook path.
 */
export function toolEvent(
  s: Session,
  o: ToolOutputSeen,
  config: HmcConfig,
  time: number,
): { event: EventPayload<ToolEvent>; inspect: InspectRecord | null } {
  const tokensBefore = countTokens(o.before);
  const tokensAfter = o.after === o.before ? tokensBefore : countTokens(o.after);
  const t = s.ledger.totals();
  const window = s.meta.contextWindow || DEFAULT_CONTEXT_WINDOW;
  const inspectId = `${s.id}:${o.id}`;
  const kept = config.dashboard.inspector && o.after !== o.before;
  const inspect: InspectRecord | null = kept
    ? {
        id: inspectId,
        session_id: s.id,
        tool_call_id: o.id,
        tool_name: o.tool,
        time,
        strategies: o.strategies,
        tokens_before: tokensBefore,
        tokens_after: tokensAfter,
        before: o.before.length > INSPECT_CAP ? o.before.slice(0, INSPECT_CAP) : o.before,
        after: o.after.length > INSPECT_CAP ? o.after.slice(0, INSPECT_CAP) : o.after,
        before_truncated: o.before.length > INSPECT_CAP,
      }
    : null;
  const event: EventPayload<ToolEvent> = {
    type: 'tool',
    session_id: s.id,
    turn: o.turn,
    tool_name: o.tool,
    tool_call_id: o.id,
    is_error: o.isError,
    tokens_before: tokensBefore,
    tokens_after: tokensAfter,
    strategies: o.strategies,
    delta_saved: Math.max(0, tokensBefore - tokensAfter),
    cumulative_saved: t.inputRaw - t.inputHmc,
    by_strategy: t.byStrategy,
    context_tokens: t.contextTokens,
    context_raw_tokens: Math.max(t.contextRawTokens, t.contextTokens),
    context_saved: Math.max(0, t.contextRawTokens - t.contextTokens),
    context_percent: Math.min(1, t.contextTokens / window),
    ...(kept ? { inspect_id: inspectId } : {}),
  };
  return { event, inspect };
}

/**
 * The session stops being live: `session_end` when it is finished, `session_idle` when only the
 * process that held it went away (null for a session with no tool or model call).
 */
export function sessionEndEvent(
  s: Session,
  config: HmcConfig,
  type: 'session_end' | 'session_idle' = 'session_end',
): EventPayload<SessionEndEvent | SessionIdleEvent> | null {
  const t = s.ledger.totals();
  if (!config.enabled || (s.counts.toolCalls === 0 && t.modelCalls === 0)) return null;
  const totals = {
    session_id: s.id,
    turns: s.counts.turn,
    tool_calls: s.counts.toolCalls,
    total_saved: t.inputRaw - t.inputHmc,
    by_strategy: t.byStrategy,
    by_tool: t.byTool,
    input_tokens: { raw: t.inputRaw, hmc: t.inputHmc },
  };
  return type === 'session_end' ? { type, ...totals } : { type, ...totals };
}

/** A summarised phase as the session index keeps it. */
export function phaseEntry(s: Session, staged: StagedPhase): PhaseEntry {
  const p = staged.phase;
  return {
    session_id: s.id,
    phase_id: p.id,
    message_from: p.from,
    message_to: p.to,
    turn_from: p.turnFrom,
    turn_to: p.turnTo,
    topic: p.topic,
    summary: p.summary,
    tokens_before: p.tokensBefore,
    tokens_after: p.tokensAfter,
    recall_id: p.recallId,
    model: p.model,
    created_at: p.createdAt,
    updates: p.updates,
  };
}

/** A summarised phase, shown live. */
export function phaseEvent(s: Session, staged: StagedPhase): EventPayload<PhaseEvent> {
  const p = staged.phase;
  return {
    type: 'phase',
    session_id: s.id,
    phase_id: p.id,
    topic: p.topic,
    turn_from: p.turnFrom,
    turn_to: p.turnTo,
    tokens_before: p.tokensBefore,
    tokens_after: p.tokensAfter,
    recall_id: p.recallId,
    updated: staged.updated,
  };
}

/** The session's whole picture for analytics (an upsert: re-recording never double counts). */
export function sessionRecord(s: Session): SessionRecord {
  const t = s.ledger.totals();
  return {
    session_id: s.id,
    project_path: s.meta.projectPath,
    platform: s.meta.platform,
    owner: ownerKey(s.meta.platform, s.meta.user),
    model: s.meta.model,
    started_at: s.meta.startedAt,
    ended_at: s.meta.endedAt,
    turns: s.counts.turn,
    tool_calls: s.counts.toolCalls,
    input_tokens_raw: t.inputRaw,
    input_tokens_hmc: t.inputHmc,
    model_calls: t.modelCalls,
    context_tokens: t.contextTokens,
    context_raw_tokens: Math.max(t.contextRawTokens, t.contextTokens),
    context_peak: t.contextPeak,
    cached_raw: t.cachedRaw,
    cached_hmc: t.cachedHmc,
    plain_raw: t.plainRaw,
    plain_hmc: t.plainHmc,
    by_strategy: t.byStrategy,
    by_tool: t.byTool,
    timeline: s.ledger.snapshot().timeline,
    work: s.work.figures(s.elidedCount()),
  };
}
