/**
 * Money (docs/glossary.md "cost"): tokens priced per model, each price saying where it came from:
 * `pricing.models` (config; unless the built-in table names the model by a longer name), else the host's own pricing data (Hermes' agent/usage_pricing.py,
 * reported with each call's usage), else HMC's built-in table (config/prices.ts); a model none
 * names is an unknown model, priced at `pricing.default_*` and named as such on every surface,
 * with the prompt cache priced apart: HMC's cache model says, of every model call's input, how
 * much the provider could read from its cache (the leading part the previous call sent unchanged)
 * and how much it writes. Cost saved is the input's cost without HMC less its cost as sent, both
 * under that model; it is negative when HMC's rewrites broke the cache for more than they removed.
 *
 * Invariant: always labelled an estimate (our tokenizer, list prices, a model of the cache); pure
 * (no I/O); a session recorded before the cache model was kept has its input priced as plain
 * input on both sides, never guessed into cache reads.
 */
import type { HmcConfig } from '../config/keys.js';
import { BUILT_IN_PRICES, type ModelPrice } from '../config/prices.js';
import type { HostPrice } from '../core/context-engine.js';
import type { ModelRow, ProviderModelRow } from './views.js';

type Pricing = HmcConfig['pricing'];

/** Where a price came from: `config` (pricing.models), `hermes` (the host's data), `built-in`, or `default` (an unknown model). */
export type PriceSource = 'config' | 'hermes' | 'built-in' | 'default';
export type SourcedPrice = ModelPrice & {
  source: PriceSource;
  matched: string;
  unknown_model?: true;
  host_source?: string;
};

/** Prices of `model` and where they came from (the host's price when it reported one). */
export function priceFor(model: string, pricing: Pricing, host?: HostPrice): SourcedPrice {
  const builtIn = longestMatch(model, Object.keys(BUILT_IN_PRICES));
  // A user's entry for a family (`gpt-4.1`) does not price a model the built-in table names more
  // precisely (`gpt-4.1-mini`, a fifth of the price): the longer name is the better match.
  const found = longestMatch(model, Object.keys(pricing.models));
  const own = found !== null && (builtIn === null || found.length >= builtIn.length) ? found : null;
  if (own !== null) {
    const e = pricing.models[own] ?? {};
    const input = e.input ?? BUILT_IN_PRICES[own]?.input ?? pricing.default_input_per_million;
    const built = BUILT_IN_PRICES[own];
    return {
      input,
      cache_read: e.cache_read ?? (e.input === undefined ? built?.cache_read : undefined) ?? input * 0.1,
      cache_write: e.cache_write ?? (e.input === undefined ? built?.cache_write : undefined) ?? input * 1.25,
      output: e.output ?? (e.input === undefined ? built?.output : undefined) ?? input * 5,
      source: 'config',
      matched: own,
    };
  }
  if (host) {
    const { source, ...price } = host;
    return { ...price, source: 'hermes', matched: model, ...(source ? { host_source: source } : {}) };
  }
  if (builtIn !== null) return { ...(BUILT_IN_PRICES[builtIn] as ModelPrice), source: 'built-in', matched: builtIn };
  return {
    input: pricing.default_input_per_million,
    cache_read: pricing.default_cache_read_per_million,
    cache_write: pricing.default_cache_write_per_million,
    output: pricing.default_output_per_million,
    source: 'default',
    matched: '',
    unknown_model: true,
  };
}

/**
 * The longest name found in `model` at word boundaries (not inside a longer name or number:
 * `gpt-4` does not match `gpt-4o`, `o3` not `gpt-4o3`), case ignored; null when none is.
 */
export function longestMatch(model: string, names: readonly string[]): string | null {
  const m = model.toLowerCase();
  let best: string | null = null;
  for (const name of names) {
    const key = name.toLowerCase();
    if (key === '' || (best !== null && key.length <= best.length)) continue;
    for (let at = m.indexOf(key); at >= 0; at = m.indexOf(key, at + 1)) {
      if (!/[a-z0-9]/.test(m[at - 1] ?? '') && !/[a-z0-9]/.test(m[at + key.length] ?? '')) {
        best = name;
        break;
      }
    }
  }
  return best;
}

/** A model's tokens with their estimated cost. */
export interface PricedModel extends ModelRow {
  price: SourcedPrice;
  /** Input cost as sent (with HMC) and as it would have been without HMC; saved = without - spent. */
  cost: { spent: number; without_hmc: number; saved: number };
  currency: string;
}

/** Cost of `tokens` of input of which `cached` were read from the cache (the rest written); `plain` of them priced as plain input. */
function inputCost(tokens: number, cached: number, plain: number, p: ModelPrice): number {
  const modelled = Math.max(0, tokens - plain);
  const read = Math.min(cached, modelled);
  return ((modelled - read) * p.cache_write + read * p.cache_read + plain * p.input) / 1e6;
}

/** Money to 1e-8 of the currency: small sessions cost fractions of a cent. */
const money = (x: number): number => Math.round(x * 1e8) / 1e8;

/** Each model's tokens priced (docs/glossary.md "cost saved"). */
export function priceModels(rows: readonly ModelRow[], pricing: Pricing): PricedModel[] {
  return rows.map((r) => {
    const price = priceFor(r.model, pricing, r.host_price);
    const spent = inputCost(r.sent, r.cached_sent, r.plain_sent, price);
    const without = inputCost(r.input, r.cached_input, r.plain_input, price);
    return {
      ...r,
      price,
      cost: { spent: money(spent), without_hmc: money(without), saved: money(without - spent) },
      currency: pricing.currency,
    };
  });
}

/** The lifetime figure the page and /api/analytics show: the sum over models, labelled. */
export interface CostEstimate {
  amount: number;
  currency: string;
  estimate: true;
  basis: string;
  /** Models no price table names, priced at pricing.default_* (never silently: every surface names them). */
  unknown_models: string[];
}

export const COST_BASIS =
  "estimate: input cost without HMC less input cost as sent, per model from the price table, cache reads and writes from HMC's cache model";

export function costSaved(priced: readonly PricedModel[], pricing: Pricing): CostEstimate {
  const amount = priced.reduce((a, m) => a + m.cost.saved, 0);
  const unknown = priced.filter((m) => m.price.unknown_model).map((m) => m.model || '(unknown)');
  return {
    amount: money(amount),
    currency: pricing.currency,
    estimate: true,
    basis: COST_BASIS,
    unknown_models: unknown,
  };
}

/** A model's provider usage priced: what its calls cost by the provider's own count (input and output apart). */
export interface PricedProviderModel extends ProviderModelRow {
  price: PricedModel['price'];
  /** Prompt tokens neither read from nor written to the cache are priced as plain input. */
  cost: { input: number; output: number };
  currency: string;
}

/** Provider usage per model priced from the same table: the bill as reported, beside HMC's estimate. */
export function priceProvider(rows: readonly ProviderModelRow[], pricing: Pricing): PricedProviderModel[] {
  return rows.map((r) => {
    const price = priceFor(r.model, pricing, r.host_price);
    const plain = Math.max(0, r.prompt_tokens - r.cache_read_tokens - r.cache_write_tokens);
    const input =
      (plain * price.input + r.cache_read_tokens * price.cache_read + r.cache_write_tokens * price.cache_write) / 1e6;
    return {
      ...r,
      price,
      cost: { input: money(input), output: money((r.completion_tokens * price.output) / 1e6) },
      currency: pricing.currency,
    };
  });
}
