/**
 * The ledger's small readers (ledger.ts): what a session file restores (numbers, saved parts,
 * timeline points and call points from an earlier process), made whole.
 *
 * Invariant: pure; anything not a finite positive number reads as 0, never as a guess.
 */
import type { Saved } from '../../core/savings.js';
import type { TurnPoint } from '../../store/types.js';

/** One model call as counted: its turn and its input without and with HMC. */
export interface CallPoint {
  turn: number;
  raw: number;
  hmc: number;
  /**
   * HMC's model of the provider's prompt cache for this call (DESIGN §6): the tokens of the request
   * that the previous request already sent unchanged (its system prompt and tool schemas, and the
   * leading messages no rewrite touched since), which a provider can read from its cache; the rest
   * of `hmc` is written. Absent for calls counted before this was kept.
   */
  cached?: number;
  /** The same model for the raw request (what the host gave HMC): its leading part the previous raw request had too. */
  cached_raw?: number;
  /** The host's id of the call (Hermes' api_request_id), '' or absent when it gave none. */
  id?: string;
  /** When it was sent (ms since the epoch). */
  at?: number;
  /** Why HMC's model breaks the cache at this call: an HMC rewrite, or the host's own change (its history, system prompt, tools, model). */
  cause?: BreakCause;
}

/** Who changed a request the previous one had sent (docs/glossary.md "cache break"). */
export type BreakCause = 'hmc' | 'hermes';

/** What `accountSend` knows of a call besides its turn: HMC's cache model for both requests and the call's ids. */
export interface SendInfo {
  /** Leading messages sent as the previous call sent them (-1: unknown), and the same for the raw request. */
  stable: number;
  rawStable: number;
  /** The system prompt or tool schemas changed since the previous call: nothing is read from the cache. */
  fixedChanged?: boolean;
  id?: string;
  at?: number;
  cause?: BreakCause;
}

export function positive(record: Saved): Saved {
  const out: Saved = {};
  for (const [k, v] of Object.entries(record)) if (v > 0) out[k] = v;
  return out;
}

export function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

export function numbers(value: unknown): Saved {
  const out: Saved = {};
  if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value)) if (num(v) > 0) out[k] = num(v);
  return out;
}

export function isCallPoint(value: unknown): value is CallPoint {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<CallPoint>;
  return typeof v.turn === 'number' && typeof v.raw === 'number' && typeof v.hmc === 'number';
}

/** A point saved before a field existed gets it as 0 (its context raw: as sent, nothing known saved or cached). */
export function fullPoint(p: TurnPoint): TurnPoint {
  const n = num;
  const sent = n(p.context_tokens);
  return {
    turn: p.turn,
    time: n(p.time),
    context_tokens: sent,
    context_raw_tokens: Math.max(n(p.context_raw_tokens), sent),
    context_percent: n(p.context_percent),
    input_raw: n(p.input_raw),
    input_hmc: n(p.input_hmc),
    model_calls: n(p.model_calls),
    tool_calls: n(p.tool_calls),
    cached_raw: n(p.cached_raw),
    cached_hmc: n(p.cached_hmc),
  };
}

export function isTurnPoint(value: unknown): value is TurnPoint {
  return typeof value === 'object' && value !== null && typeof (value as { turn?: unknown }).turn === 'number';
}
