/**
 * Error purge: which failed outputs are old enough to give way to a one-line placeholder
 * (the placeholder itself, which keeps why the call failed, is in `placeholders.ts`).
 *
 * Invariant: only failed outputs at least `turns` user turns old, never a protected tool's, and
 * never a future turn's (a negative age means the caller's turn numbers disagree: keep the output).
 */

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
