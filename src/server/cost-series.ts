/**
 * The money and token figures /metrics and the OTLP push both export, from one place so the
 * scrape and the push can never disagree.
 *
 * Modelled (issue 27, finding 6; `costSeries`): per model, the input's estimated cost without
 * HMC (raw) and as sent, and the tokens HMC's cache model says the provider read from its cache
 * and wrote to it, on both sides: HMC's estimate (our tokenizer, the price table, HMC's model of
 * the prompt cache; docs/glossary.md "cost"), never the provider's bill; input recorded before the
 * cache model was kept is neither read nor written (priced as plain input).
 *
 * Measured (issue 24, part 6; `measuredSeries`): the provider's own tokens per model as it
 * reported them for each call, calls HMC counted apart from those it never saw, and money by kind
 * (raw, sent, output) and basis (measured, modelled), the sent side the provider's figures wherever
 * it reported the call.
 *
 * Invariant: pure; every money sample says its basis; within one kind no call is in two samples
 * (a sum over labels counts each once); calls HMC never saw are in no raw figure, so in no saving;
 * a model no price names is listed in `unpriced` and in no money sample (never a default price).
 */
import type { HmcConfig } from '../config/keys.js';
import { priceFor, priceModels, type PricedModel, type SourcedPrice } from '../store/pricing.js';
import type { MeasuredFigures } from '../store/views.js';

type Pricing = HmcConfig['pricing'];

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
      write: {
        raw: Math.max(0, m.input - m.plain_input - m.cached_input),
        sent: Math.max(0, m.sent - m.plain_sent - m.cached_sent),
      },
    },
  }));
}

/** What the HELP text and the OTLP description say of these figures. */
export const COST_ESTIMATE_NOTE =
  "Modelled: HMC's estimate (its tokenizer, the price table, its model of the prompt cache), not the provider's bill (the measured figures: hmc_provider_tokens_total, and hmc_cost_<currency> with basis=measured)";

/** The calls a measured figure covers: those HMC counted (its savings are over them) or the rest it never saw. */
export type Calls = 'seen' | 'unseen';
export type TokenType = 'prompt' | 'cache_read' | 'cache_write' | 'output' | 'reasoning';
export const TOKEN_TYPES: readonly TokenType[] = ['prompt', 'cache_read', 'cache_write', 'output', 'reasoning'];

/** One money sample: a model's cost of one kind over one set of calls, measured or modelled. */
export interface CostSample {
  model: string;
  /** raw = the input without HMC, sent = the input as sent, output = the model's output. */
  kind: 'raw' | 'sent' | 'output';
  /** measured = the provider's usage priced; modelled = HMC's count and cache model priced. */
  basis: 'measured' | 'modelled';
  calls: Calls;
  value: number;
}

/** The measured series (issue 24, part 6): the provider's own tokens per model, money by kind, and the models no price names. */
export interface MeasuredSeries {
  currency: string;
  tokens: { model: string; calls: Calls; count: number; tokens: Record<TokenType, number> }[];
  /** No sample for an unpriced model: never priced at pricing.default_*. */
  cost: CostSample[];
  /** Models with tokens here and no price in any table (config, Hermes', built-in), named. */
  unpriced: string[];
}

const money = (x: number): number => Math.round(x * 1e8) / 1e8;
/** A call whose host named no model, as every other surface shows it (an empty label value reads as no label). */
const named = (model: string): string => model || '(unknown)';

/**
 * The measured series from the store's lifetime figures. Money, per model, over two disjoint sets
 * of HMC's calls, so a sum over every label of one kind counts each call once: the calls the
 * provider measured (sent and output measured, raw modelled in the provider's tokens: reconcile's
 * saving), and the sessions it measured none of (raw and sent modelled, as hmc_input_cost_estimate);
 * and the calls HMC never saw, apart (`calls="unseen"`: sent and output measured, no raw: HMC had
 * no part in them, so they are in no saving).
 */
export function measuredSeries(m: MeasuredFigures, pricing: Pricing): MeasuredSeries {
  const cost = new Map<string, CostSample>();
  const unpriced = new Set<string>();
  const add = (
    model: string,
    kind: CostSample['kind'],
    basis: CostSample['basis'],
    calls: Calls,
    value: number,
  ): void => {
    const key = JSON.stringify([model, kind, basis, calls]);
    const s = cost.get(key) ?? { model, kind, basis, calls, value: 0 };
    s.value += value;
    cost.set(key, s);
  };
  const priced = (model: string, p: SourcedPrice): boolean => {
    if (p.unknown_model) unpriced.add(named(model));
    return !p.unknown_model;
  };
  for (const r of m.calls) {
    const p = priceFor(r.model, pricing, r.host_price);
    if (!priced(r.model, p)) continue;
    const calls: Calls = r.counted ? 'seen' : 'unseen';
    const plain = Math.max(0, r.prompt_tokens - r.cache_read_tokens - r.cache_write_tokens);
    add(
      named(r.model),
      'sent',
      'measured',
      calls,
      (plain * p.input + r.cache_read_tokens * p.cache_read + r.cache_write_tokens * p.cache_write) / 1e6,
    );
    add(named(r.model), 'output', 'measured', calls, (r.completion_tokens * p.output) / 1e6);
    if (r.counted)
      add(
        named(r.model),
        'raw',
        'modelled',
        'seen',
        ((r.raw_input - r.raw_cached) * p.cache_write + r.raw_cached * p.cache_read) / 1e6,
      );
  }
  for (const r of priceModels(m.unmeasured, pricing)) {
    if (!priced(r.model, r.price)) continue;
    add(named(r.model), 'raw', 'modelled', 'seen', r.cost.without_hmc);
    add(named(r.model), 'sent', 'modelled', 'seen', r.cost.spent);
  }
  return {
    currency: pricing.currency,
    tokens: m.calls.map((r) => ({
      model: named(r.model),
      calls: r.counted ? 'seen' : 'unseen',
      count: r.calls,
      tokens: {
        prompt: r.prompt_tokens,
        cache_read: r.cache_read_tokens,
        cache_write: r.cache_write_tokens,
        output: r.completion_tokens,
        reasoning: r.reasoning_tokens,
      },
    })),
    cost: [...cost.values()].map((s) => ({ ...s, value: money(s.value) })),
    unpriced: [...unpriced].sort(),
  };
}

/**
 * The money family's name: `hmc_cost_<currency>` for an ISO 4217 code (`hmc_cost_usd` with the
 * default `pricing.currency`), so the name always states the unit the values are in; plain
 * `hmc_cost` for any other label (the `currency` label says it). No `_total`: it is a gauge.
 */
export function costFamily(currency: string): string {
  return /^[A-Za-z]{3}$/.test(currency) ? `hmc_cost_${currency.toLowerCase()}` : 'hmc_cost';
}

/** What the HELP text and the OTLP descriptions say of the measured figures. */
export const MEASURED_NOTE =
  "measured = the provider's own usage as it reported it for each model call (Hermes' post_api_request), priced; modelled = HMC's count and its model of the prompt cache, priced";
