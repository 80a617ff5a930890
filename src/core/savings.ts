/**
 * The savings record, declared once: tokens saved per strategy and per tool, and the input
 * tokens they are a part of. Live events, the session files, the analytics store, the dashboard's
 * live state and `hmc replay` all carry this shape.
 *
 * Invariant: each breakdown sums to the total saved (raw minus hmc), never counted twice, and no
 * saving is above the input it was saved from (DESIGN §7).
 */

/** Tokens saved, keyed by a strategy's name (`truncation`) or a tool's name (`read_file`). */
export type Saved = Record<string, number>;

/** Where the savings came from: per strategy and per tool (each sums to the total saved). */
export interface SavingsBreakdown {
  /** Input tokens saved per strategy. */
  by_strategy: Saved;
  /** Input tokens saved per tool name. */
  by_tool: Saved;
}

/** Tokens the model was sent over all model calls of a session, with and without HMC. */
export interface InputTokens {
  /** What the model would have been sent without HMC. */
  raw: number;
  /** What it was sent with HMC. */
  hmc: number;
}
