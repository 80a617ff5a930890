/**
 * Estimated cost saved: tokens saved × the input price of the session's model (per million),
 * from the `pricing` config. Always labelled an estimate: providers bill cached input at other
 * rates, and the tokens are counted by our tokenizer, not theirs.
 *
 * Invariant: a model missing from the table is priced at the default; the result is never negative.
 */
import type { HmcConfig } from '../config/keys.js';

type Pricing = HmcConfig['pricing'];

/** Price per million input tokens for `model`: the longest matching table key wins. */
export function priceFor(model: string, pricing: Pricing): number {
  const m = model.toLowerCase();
  let best: { len: number; price: number } | null = null;
  for (const [key, price] of Object.entries(pricing.models)) {
    if (key && m.includes(key.toLowerCase()) && (!best || key.length > best.len)) best = { len: key.length, price };
  }
  return best ? best.price : pricing.default_input_per_million;
}

export interface CostEstimate {
  amount: number;
  currency: string;
  estimate: true;
  basis: string;
}

/** `rows` are (model, saved) pairs covering part of `totalSaved`; the rest is priced at the default. */
export function estimateCost(rows: { model: string; saved: number }[], totalSaved: number, pricing: Pricing): CostEstimate {
  let covered = 0;
  let amount = 0;
  for (const r of rows) {
    const saved = Math.max(0, r.saved);
    covered += saved;
    amount += (saved / 1e6) * priceFor(r.model, pricing);
  }
  amount += (Math.max(0, totalSaved - covered) / 1e6) * pricing.default_input_per_million;
  return {
    amount: Math.max(0, Math.round(amount * 100) / 100),
    currency: pricing.currency,
    estimate: true,
    basis: `estimate: input tokens saved × input price per million (default ${pricing.default_input_per_million} ${pricing.currency})`,
  };
}
