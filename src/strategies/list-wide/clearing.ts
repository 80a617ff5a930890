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
 * Pure: a function of the sizes it is given. `clearing` is the registered list-wide strategy (kind
 * `clearing`): it locks what must stay (placeholders, a kept repeat's source, the current step,
 * protected and excluded tools, protected files) and proposes a marker for what the plan clears.
 */
import { clearedPlaceholder } from './placeholders.js';
import type { HeldResult, ListWideContext, ListWideStrategy } from './strategy.js';

/**
 * Outputs below this many estimated tokens are not worth clearing: a marker is ~30 tokens, so a
 * cleared output saves at least two thirds of itself. (150 before: mini-swe-agent's many short
 * shell outputs stayed; at 100 its input saved rose 0.8 points, claude-code's and codex's 0.1.)
 */
export const MIN_CLEAR_TOKENS = 100;

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
export function planClearing(
  results: readonly ClearCandidate[],
  contextTokens: number,
  opts: ClearingOptions,
): string[] {
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

/**
 * A cleared output's marker: how to read a file again, else its recall id (a failure keeps its
 * reason). Worked out once per style and failure flag: a result waits call after call for a pass,
 * and finding a failure's reason reads its whole output.
 */
function clearedWords(m: HeldResult, ctx: ListWideContext): string {
  const read = ctx.readOf(m);
  if (read) return clearedPlaceholder({ tool: m.tool, read: { path: read.path, span: read.span } }, ctx.style);
  // An output that reports a failure keeps why, even when the call itself succeeded ("3 failed").
  const failed = ctx.failed(m) || ctx.reportsFailure(m);
  return ctx.once(m, 'clearing.words', `${ctx.style} ${failed}`, () =>
    clearedPlaceholder(
      { tool: m.tool, recall: ctx.recallId(m), ...(failed ? { failedText: m.raw as string } : {}) },
      ctx.style,
    ),
  );
}

export const clearing: ListWideStrategy<'clearing'> = {
  name: 'clearing',
  kinds: ['clearing'],
  config: 'strategies.clearing',
  recallsAny: true,
  propose(ctx) {
    const c = ctx.config.strategies.clearing;
    const excluded = new Set([...c.exclude_tools, 'hmc_control'].map((t) => t.toLowerCase()));
    // A pointer that is kept (a repeat) points at its source: the source stays while the pointer does.
    const sources = new Set<string>();
    for (const [key, { source, kind }] of ctx.pointers) {
      const taken = ctx.proposed(key);
      if (taken === undefined || taken === kind) sources.add(source);
    }
    // The current step's results (the latest assistant message's calls) are what the model reads
    // next: never cleared, however many calls that message made.
    const current = ctx.currentStep();
    const candidates: ClearCandidate[] = ctx.results.map(({ message: m }) => ({
      id: m.key,
      tokens: ctx.sentTokens(m),
      locked:
        ctx.proposed(m.key) !== undefined ||
        m.prune !== null ||
        sources.has(m.key) ||
        current.has(m.key) ||
        ctx.protection.tool(m.tool) ||
        excluded.has(m.tool.toLowerCase()) ||
        ctx.protection.file(ctx.readOf(m)?.path),
    }));
    const cleared = planClearing(candidates, ctx.contextTokens(), {
      trigger: c.trigger_percent * ctx.window,
      target: c.target_percent * ctx.window,
      keep: c.keep,
      minTokens: MIN_CLEAR_TOKENS,
    });
    for (const id of cleared) {
      const m = ctx.message(id) as HeldResult;
      ctx.propose(m, 'clearing', clearedWords(m, ctx));
    }
  },
  rewords: (_kind, m, ctx) => ({ text: clearedWords(m, ctx), extra: {} }),
};
