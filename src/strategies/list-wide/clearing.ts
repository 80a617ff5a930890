/**
 * Clearing old tool outputs (list-wide), as Anthropic's context editing (`clear_tool_uses`:
 * trigger, keep, clear_at_least, exclude_tools) and Hermes' own compressor (phase 1) do: once the
 * context passes a threshold, tool outputs older than the last `keep` are replaced by a short
 * marker, oldest first, until the context is down to the target. Whether the pass is worth the
 * prompt-cache break it causes is the engine's call (the price rule), not this function's.
 *
 * Keeps: the last `keep` tool results, protected and excluded tools, and outputs too small to be
 * worth a marker (the engine filters protected ones out before asking).
 *
 * Pure: a function of the sizes it is given.
 */

/** One tool result, in conversation order, as clearing sees it. */
export interface ClearCandidate {
  id: string;
  /** Tokens it is sent with now (an estimate is fine: the engine prices with the same one). */
  tokens: number;
  /** Never cleared (protected, excluded, already a placeholder). */
  locked: boolean;
}

export interface ClearingOptions {
  /** The context (tokens) above which clearing starts. */
  trigger: number;
  /** The context (tokens) clearing brings it down to, oldest first. */
  target: number;
  /** The most recent tool results that are never cleared. */
  keep: number;
  /** Outputs smaller than this are left (a marker would save too little). */
  minTokens: number;
}

/** The ids to clear, oldest first; empty while the context is at or below the trigger. */
export function planClearing(results: readonly ClearCandidate[], contextTokens: number, opts: ClearingOptions): string[] {
  if (contextTokens <= opts.trigger) return [];
  const eligible = results.slice(0, Math.max(0, results.length - opts.keep));
  const out: string[] = [];
  let context = contextTokens;
  for (const r of eligible) {
    if (context <= opts.target) break;
    if (r.locked || r.tokens < opts.minTokens) continue;
    out.push(r.id);
    context -= r.tokens;
  }
  return out;
}
