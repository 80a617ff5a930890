/**
 * The provider's usage of one model call, matched to HMC's own record of that call (issue 24):
 * by the host's id for it (`call_id`, Hermes' api_request_id, the id its pre_model_call carried),
 * else, for a host that names no call (the engine's update_from_response), the latest call HMC
 * counted since the previous row. A call HMC has no record of is recorded as unseen. Then the
 * cache break the provider's own figures show: it read less of this prompt from its cache than
 * the previous request's prompt, and why (docs/glossary.md "cache break").
 *
 * Invariant: pure; a row is never matched to a call another row took, and a break is named only
 * where the provider reports a prompt cache at all (a provider that never reports a cache read
 * shows no breaks).
 */
import type { ProviderUsage } from '../../core/context-engine.js';
import type { BreakCause } from '../../store/usage.js';
import type { CallPoint } from './ledger.js';

/** A provider's cache lives this long unused (Anthropic's default 5 minutes; OpenAI keeps it 5-10). */
export const CACHE_TTL_MS = 5 * 60_000;
/**
 * Reads this far below the previous prompt are no break: providers cache in blocks (OpenAI 128
 * tokens) and may leave the newest block of a prompt out.
 */
export const BREAK_SLACK = 256;

/** What a session remembers of its previous usage row (not saved: a new process starts afresh). */
export interface UsageTrail {
  prompt: number;
  at: number;
  /** The provider has reported a cache read or write in this session. */
  caching: boolean;
  /** Call ids already matched to a row. */
  taken: Set<string>;
  /** Model calls HMC had counted at the previous row (for rows that name no call). */
  counted: number;
}

export function newTrail(counted: number): UsageTrail {
  return { prompt: 0, at: 0, caching: false, taken: new Set(), counted };
}

/** HMC's record of the call the row is about, or undefined when HMC never saw it. */
export function matchCall(
  calls: readonly CallPoint[],
  modelCalls: number,
  trail: UsageTrail,
  callId: string | undefined,
): CallPoint | undefined {
  if (callId) {
    if (trail.taken.has(callId)) return undefined;
    for (let i = calls.length - 1; i >= 0; i--) {
      const c = calls[i] as CallPoint;
      if (c.id === callId) {
        trail.taken.add(callId);
        return c;
      }
    }
    return undefined;
  }
  const fresh = modelCalls > trail.counted;
  trail.counted = modelCalls;
  return fresh ? calls[calls.length - 1] : undefined;
}

/**
 * The break this call shows, or none: the provider read `tokens` fewer of the previous prompt than
 * it sent. Its cause: the one HMC noted when it sent the call (its own pass, or the host's change:
 * a rewritten history, system prompt, tool list, model), else a pause past the cache's lifetime,
 * else unknown. Updates the trail.
 */
export function cacheBreak(
  trail: UsageTrail,
  usage: ProviderUsage,
  call: CallPoint | undefined,
  at: number,
): { tokens: number; cause: BreakCause | '' } {
  const previous = trail.prompt;
  const gap = trail.at > 0 ? (call?.at ?? at) - trail.at : 0;
  trail.caching ||= usage.cache_read_tokens > 0 || usage.cache_write_tokens > 0;
  trail.prompt = usage.prompt_tokens;
  trail.at = at;
  const missed = previous - usage.cache_read_tokens;
  if (previous === 0 || !trail.caching || missed <= BREAK_SLACK) return { tokens: 0, cause: '' };
  const cause: BreakCause = call?.cause ?? (gap > CACHE_TTL_MS ? 'ttl' : 'unknown');
  return { tokens: missed, cause };
}
