/**
 * Error purge: which failed outputs are old enough to give way to a one-line placeholder
 * (the placeholder itself, which keeps why the call failed, is in `placeholders.ts`).
 *
 * `errorPurge` is the registered list-wide strategy (kind `error_purge`): it proposes the purge over
 * the held list, and words a purge in force again from the age it stated.
 *
 * Invariant: only failed outputs at least `turns` user turns old, never a protected tool's, and
 * never a future turn's (a negative age means the caller's turn numbers disagree: keep the output).
 */
import { errorPlaceholder } from './placeholders.js';
import {
  withRecall,
  type HeldResult,
  type ListWideContext,
  type ListWideStrategy,
  type SavedWords,
} from './strategy.js';

/** One tool output as the error purge sees it. */
export interface ErrorEntry {
  /** The tool call id. */
  id: string;
  tool: string;
  /** The host, the envelope's exit code or its error field said the call failed. */
  isError: boolean;
  /** The user turn the output arrived in. */
  turn: number;
}

/** Ids of failed outputs with `currentTurn - turn >= cfg.turns`, protected tools aside. */
export function findStaleErrors(
  entries: readonly ErrorEntry[],
  currentTurn: number,
  cfg: { turns: number; protected: ReadonlySet<string> },
): Set<string> {
  const stale = new Set<string>();
  // turns is validated to 1..1000 by the config; a 0 or negative value must still never purge
  // the output the agent is looking at right now.
  const minAge = Math.max(1, cfg.turns);
  for (const e of entries) {
    if (!e.isError || cfg.protected.has(e.tool)) continue;
    const age = currentTurn - e.turn;
    if (Number.isFinite(age) && age >= minAge) stale.add(e.id);
  }
  return stale;
}

/** The words of a purged failure: the age they state, and why the call failed. */
function purgedWords(m: HeldResult, age: number, ctx: ListWideContext): SavedWords {
  return {
    text: withRecall(errorPlaceholder({ tool: m.tool, age, text: m.raw as string }, ctx.style), ctx.recall(m)),
    extra: { age },
  };
}

export const errorPurge: ListWideStrategy<'error_purge'> = {
  name: 'error_purge',
  kinds: ['error_purge'],
  config: 'strategies.purge_errors',
  propose(ctx) {
    if (ctx.failedResults.length === 0) return;
    const c = ctx.config.strategies.purge_errors;
    const entries = ctx.failedResults.map(({ message: m }) => ({
      id: m.key,
      tool: m.tool.toLowerCase(),
      isError: true,
      turn: m.turn,
    }));
    for (const id of findStaleErrors(entries, ctx.turn, { turns: c.turns, protected: ctx.protection.errorPurge })) {
      const m = ctx.message(id) as HeldResult;
      // The age an earlier process already stated, so the words come out the same.
      const age = (ctx.inForce(id) === 'error_purge' ? ctx.savedDetail(id).age : undefined) ?? ctx.turn - m.turn;
      const words = purgedWords(m, age, ctx);
      ctx.propose(m, 'error_purge', words.text, words.extra);
    }
  },
  rewords(_kind, m, ctx) {
    const age = ctx.savedDetail(m.key).age;
    return age === undefined ? null : purgedWords(m, age, ctx);
  },
};
