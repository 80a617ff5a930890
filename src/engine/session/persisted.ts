/**
 * The part of a session that survives the process (DESIGN §8), and the check of a session file
 * read back: what a new process needs to carry on, never contents or raw arguments.
 *
 * Invariant: anything read from disk is validated field by field; a bad field falls back to its
 * empty value, a file that is not a session gives null (the session then starts fresh).
 */
import type { LedgerSnapshot } from '../ledger/ledger.js';
import type { WorkSnapshot } from './work.js';
import { STRATEGY_OF_KIND } from '../../strategies/index.js';
import { PRUNE_KINDS, type Phase, type PruneKind, type StaleDetail, type ToolRecord } from './held.js';
import type { InputClearing } from '../../strategies/list-wide/input-clearing.js';
import { parseContextBreakdown, type ContextBreakdown } from '../../core/context-view.js';

/**
 * Kinds whose words quote the output or name a path: regenerated from the conversation, never
 * saved (the list-wide strategies that reword their placeholders: strategies/index.ts).
 */
export const WORDS_NOT_SAVED: ReadonlySet<PruneKind> = new Set(
  PRUNE_KINDS.filter((kind) => STRATEGY_OF_KIND.get(kind)?.rewords !== undefined),
);

/** The part of a session that survives the process (DESIGN §8): no contents, no raw arguments. */
export interface PersistedSession {
  version: 1;
  session_id: string;
  started_at: number;
  ended_at: number | null;
  model: string;
  platform: string;
  /** The user the host names for the session (absent: none, the machine's own). */
  user?: string;
  project_path: string;
  context_window: number;
  manual_mode: boolean;
  last_batch_turn: number;
  prune_count: number;
  cache_breaks: number;
  tool_calls: number;
  turns: number;
  records: Record<string, ToolRecord>;
  pruned: Record<string, PruneKind>;
  /** The words of each dedup or sweep placeholder in force (tool names and counts only). */
  pruned_text: Record<string, string>;
  /** The age stated by each error-purge placeholder in force (its words quote the output). */
  pruned_age: Record<string, number>;
  /** What superseded each stale read in force (its path is read again from the conversation). */
  pruned_stale: Record<string, StaleDetail>;
  /** When the last model call was made (ms), to tell whether the provider's cache went cold. */
  last_call_at: number;
  /** Layer 1's summarised ranges (their summaries are redacted and also in the session index). */
  phases: Phase[];
  /**
   * A summary back from the summariser that had not gone out when the session was saved (it
   * waits for a pass): a new process sends it instead of asking again (Hermes `-q`).
   */
  staged_phase?: { phase: Phase; updated: boolean };
  /** The layer-1 hint last sent (sent again only when it changes). */
  hint_sent: string;
  /** Messages the last model call sent: rewriting one of them in a later process breaks the cache too. */
  sent_length: number;
  /** Calls whose arguments are sent short, and why (the short words are rebuilt from the call itself). */
  inputs_cleared?: Record<string, InputClearing>;
  swept: string[];
  accounted: string[];
  context_sent: boolean;
  /** The host counts its model calls through pre_model_call (replies are then never counted). */
  calls_at_send?: boolean;
  /** What HMC keeps as the host's context engine (issue 16). */
  context_engine?: EngineState;
  ledger: LedgerSnapshot;
  /** Outputs per tool and program, recalls and re-reads (work.ts; absent in older files). */
  work?: WorkSnapshot;
  /** Where the latest request's context went (tool names and token counts only; the dashboard's context view reads it). */
  context?: ContextBreakdown;
}

/** A session's context-engine figures (issue 16), saved with it. */
export interface EngineState {
  /** Host units HMC took off the conversation at the last save (Session.hostReduction). */
  host_reduction: number;
  /** The highest phase id used (layer 1 and compactions number their phases after it). */
  last_phase_id: number;
  /** Compactions HMC made as the host's context engine. */
  compactions: number;
  /** Provider usage rows recorded (their sequence numbers). */
  usage_seq: number;
  /** Model calls HMC had counted at the last usage row (a row names its call only when a new one was counted). */
  usage_calls: number;
}

/** Validates a persisted session read from disk; null when it is not one. */
export function parsePersisted(value: unknown): PersistedSession | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Partial<PersistedSession>;
  if (v.version !== 1 || typeof v.session_id !== 'string' || typeof v.started_at !== 'number') return null;
  const records: Record<string, ToolRecord> = {};
  if (typeof v.records === 'object' && v.records !== null) {
    for (const [k, r] of Object.entries(v.records)) {
      if (typeof r === 'object' && r !== null && typeof r.tool === 'string' && typeof r.turn === 'number') {
        records[k] = {
          tool: r.tool,
          fingerprint: String(r.fingerprint ?? ''),
          turn: r.turn,
          isError: r.isError === true,
          ...(r.shortened === true ? { shortened: true } : {}),
        };
      }
    }
  }
  const pruned: Record<string, PruneKind> = {};
  if (typeof v.pruned === 'object' && v.pruned !== null) {
    for (const [k, p] of Object.entries(v.pruned))
      if ((PRUNE_KINDS as readonly unknown[]).includes(p)) pruned[k] = p as PruneKind;
  }
  const prunedText: Record<string, string> = {};
  if (typeof v.pruned_text === 'object' && v.pruned_text !== null) {
    for (const [k, t] of Object.entries(v.pruned_text))
      if (typeof t === 'string' && k in pruned && !WORDS_NOT_SAVED.has(pruned[k] as PruneKind)) prunedText[k] = t;
  }
  const prunedAge: Record<string, number> = {};
  if (typeof v.pruned_age === 'object' && v.pruned_age !== null) {
    for (const [k, a] of Object.entries(v.pruned_age))
      if (typeof a === 'number' && Number.isInteger(a) && a >= 0 && pruned[k] === 'error_purge') prunedAge[k] = a;
  }
  const prunedStale: Record<string, StaleDetail> = {};
  if (typeof v.pruned_stale === 'object' && v.pruned_stale !== null) {
    for (const [k, d] of Object.entries(v.pruned_stale)) {
      if (pruned[k] !== 'stale_reads' || typeof d !== 'object' || d === null) continue;
      const by = (d as Partial<StaleDetail>).by;
      const byCall = (d as Partial<StaleDetail>).byCall;
      if ((by === 'read' || by === 'write' || by === 'patch') && typeof byCall === 'string')
        prunedStale[k] = { by, byCall };
    }
  }
  const strings = (x: unknown): string[] =>
    Array.isArray(x) ? x.filter((s): s is string => typeof s === 'string') : [];
  const n = (x: unknown): number => (typeof x === 'number' && Number.isFinite(x) && x >= 0 ? x : 0);
  return {
    version: 1,
    session_id: v.session_id,
    started_at: v.started_at,
    ended_at: typeof v.ended_at === 'number' ? v.ended_at : null,
    model: typeof v.model === 'string' ? v.model : '',
    platform: typeof v.platform === 'string' ? v.platform : '',
    ...(typeof v.user === 'string' && v.user ? { user: v.user } : {}),
    project_path: typeof v.project_path === 'string' ? v.project_path : '',
    context_window: n(v.context_window),
    manual_mode: v.manual_mode === true,
    last_batch_turn: n(v.last_batch_turn),
    prune_count: n(v.prune_count),
    cache_breaks: n(v.cache_breaks),
    tool_calls: n(v.tool_calls),
    turns: n(v.turns),
    records,
    pruned,
    pruned_text: prunedText,
    pruned_age: prunedAge,
    pruned_stale: prunedStale,
    last_call_at: n(v.last_call_at),
    phases: Array.isArray(v.phases) ? v.phases.filter(isPhase) : [],
    ...(stagedPhase(v.staged_phase) ?? {}),
    hint_sent: typeof v.hint_sent === 'string' ? v.hint_sent : '',
    sent_length: n(v.sent_length),
    inputs_cleared: inputsCleared(v.inputs_cleared),
    swept: strings(v.swept),
    accounted: strings(v.accounted),
    context_sent: v.context_sent === true,
    calls_at_send: v.calls_at_send === true,
    ...(typeof v.context_engine === 'object' && v.context_engine !== null
      ? { context_engine: engineState(v.context_engine, n) }
      : {}),
    ledger: (typeof v.ledger === 'object' && v.ledger !== null ? v.ledger : {}) as LedgerSnapshot,
    // Checked field by field when the tally is rebuilt (WorkTally.from).
    ...(typeof v.work === 'object' && v.work !== null ? { work: v.work } : {}),
    ...contextOf(v.context),
  };
}

function contextOf(value: unknown): { context?: ContextBreakdown } {
  const context = parseContextBreakdown(value);
  return context ? { context } : {};
}

function inputsCleared(value: unknown): Record<string, InputClearing> {
  const out: Record<string, InputClearing> = {};
  if (typeof value !== 'object' || value === null) return out;
  for (const [id, c] of Object.entries(value)) {
    if (typeof c !== 'object' || c === null) continue;
    const v = c as Record<string, unknown>;
    if (v.reason === 'old') out[id] = { reason: 'old' };
    else if (v.reason === 'superseded' && typeof v.by === 'string') out[id] = { reason: 'superseded', by: v.by };
  }
  return out;
}

function engineState(v: Partial<EngineState>, n: (x: unknown) => number): EngineState {
  const whole = (x: unknown): number => Math.floor(n(x));
  return {
    host_reduction: whole(v.host_reduction),
    last_phase_id: whole(v.last_phase_id),
    compactions: whole(v.compactions),
    usage_seq: whole(v.usage_seq),
    usage_calls: whole(v.usage_calls),
  };
}

function stagedPhase(value: unknown): { staged_phase: { phase: Phase; updated: boolean } } | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  return isPhase(v.phase) ? { staged_phase: { phase: v.phase, updated: v.updated === true } } : null;
}

function isPhase(value: unknown): value is Phase {
  if (typeof value !== 'object' || value === null) return false;
  const p = value as Record<string, unknown>;
  const ints = ['id', 'from', 'to', 'tokensBefore', 'tokensAfter', 'updates', 'createdAt', 'turnFrom', 'turnTo'];
  const strings = ['digest', 'recallId', 'topic', 'summary', 'model'];
  return (
    ints.every((k) => typeof p[k] === 'number' && Number.isFinite(p[k])) &&
    strings.every((k) => typeof p[k] === 'string') &&
    (p.from as number) <= (p.to as number)
  );
}
