/**
 * The cost figures /metrics and the OTLP push both export (issue 27, finding 6): per model, the
 * input's estimated cost without HMC (raw) and as sent, and the tokens HMC's cache model says the
 * provider read from its cache and wrote to it, on both sides. One function, so the scrape and
 * the push can never disagree.
 *
 * Invariant: every figure here is HMC's estimate (our tokenizer, the price table, HMC's model of
 * the prompt cache; docs/glossary.md "cost"), never the provider's bill; input recorded before the
 * cache model was kept is neither read nor written (priced as plain input), so it is in no cache
 * figure. Pure.
 */
import type { PricedModel } from '../store/pricing.js';

export interface CostSeries {
  model: string;
  currency: string;
  /** Estimated input cost without HMC (raw) and as sent: pricing.ts's cost.without_hmc and cost.spent. */
  cost: { raw: number; sent: number };
  /** Tokens read from / written to the prompt cache under HMC's cache model, without HMC (raw) and as sent. */
  cache: { read: { raw: number; sent: number }; write: { raw: number; sent: number } };
}

export function costSeries(models: readonly PricedModel[]): CostSeries[] {
  return models.map((m) => ({
    model: m.model,
    currency: m.currency,
    cost: { raw: m.cost.without_hmc, sent: m.cost.spent },
    cache: {
      read: { raw: m.cached_input, sent: m.cached_sent },
      write: { raw: Math.max(0, m.input - m.plain_input - m.cached_input), sent: Math.max(0, m.sent - m.plain_sent - m.cached_sent) },
    },
  }));
}

/** What the HELP text and the OTLP description say of these figures. */
export const COST_ESTIMATE_NOTE = 'HMC\'s estimate (its tokenizer, the price table, its model of the prompt cache), not the provider\'s bill';
