/**
 * Whether the host should compact now (issue 16): HMC as the host's context engine answers on the
 * context as HMC sends it, in the host's own units, so the host compacts only when the compressed
 * context nears its threshold (DESIGN §2).
 *
 * The host asks with one of two measures (core/context-engine.ts): the provider's prompt tokens of
 * the last request, which HMC's per-call view already shrank, taken as they are; or the host's own
 * rough measure of its history (Hermes: characters / 4), which sees none of the per-call view, so
 * what HMC takes off the held conversation in those units comes off it (less what the turn's
 * in-place edits already took off the history the host measured).
 *
 * Invariant: pure; a session HMC does not hold (or HMC off) takes nothing off; never above the
 * figure the host gave, never below 0.
 */
import type { ShouldCompressParams, ShouldCompressResult } from '../../core/context-engine.js';
import type { Session } from '../session/session.js';

export function pressure(s: Session | null, p: ShouldCompressParams, enabled: boolean): ShouldCompressResult {
  if (p.measure === 'host' && p.awaiting_usage) {
    // The host just compacted; its rough measure over-counts until the provider has spoken (Hermes defers too).
    return { compress: false, tokens: p.tokens, reason: "waiting for the provider's figure after a compaction" };
  }
  let tokens = p.tokens;
  if (p.measure === 'host' && s && enabled) {
    const taken = Math.max(0, s.hostReduction() - (p.in_place_tokens ?? 0));
    tokens = Math.max(0, p.tokens - taken);
  }
  const over = p.threshold_tokens > 0 && tokens >= p.threshold_tokens;
  const what =
    p.measure === 'provider'
      ? 'the provider counted'
      : p.tokens === tokens
        ? 'the host measures'
        : `the host measures ${p.tokens}, HMC sends`;
  return { compress: over, tokens, reason: `${what} ${tokens} of ${p.threshold_tokens} tokens` };
}
