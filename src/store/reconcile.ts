/**
 * Reconcile (issue 24, part 4; docs/analytics.md "The provider's own numbers"): the provider's
 * usage of a session's (or a period's) model calls beside HMC's own figures for them. The
 * provider's prompt, cache-read, cache-write and output tokens (measured); HMC's count of what it
 * sent (o200k) and the ratio between the two tokenizers; HMC's predicted cache reads against the
 * provider's; every cache break the provider's figures show, by cause; and money: what the calls
 * cost by the provider's own figures (measured) beside what HMC's model says they would have cost
 * without HMC (modelled, in the provider's tokens through the ratio). The costliest calls, with
 * why, answer "why did this call cost so much".
 *
 * Invariant: pure; calls HMC never saw are counted apart and never in HMC's figures or the saving;
 * every figure says whether it is measured (the provider's) or modelled (HMC's).
 */
import type { HmcConfig } from '../config/keys.js';
import { priceFor, type SourcedPrice } from './pricing.js';
import type { BreakCause, StoredUsage } from './usage.js';
import type { HostPrice } from '../core/context-engine.js';

/** One call as reconcile reads it (a stored usage row, with its session when over a period). */
export type ReconcileCall = StoredUsage & { session_id?: string };

export interface Reconciled {
  calls: number;
  /** Calls HMC never saw (auxiliary, subagents', requests left raw): the provider's figures only. */
  unseen_calls: number;
  measured: { prompt_tokens: number; cache_read_tokens: number; cache_write_tokens: number; completion_tokens: number };
  /** Over the calls HMC saw: what it sent (o200k), the raw request, and its model of the cache. */
  modelled: { hmc_input: number; raw_input: number; hmc_cached: number; raw_cached: number };
  /** The provider's prompt tokens per HMC token of the same calls (its tokenizer against o200k); null without any. */
  tokenizer_ratio: number | null;
  /** Cache reads as a share of the prompt: HMC's prediction and the provider's, over the calls HMC saw. */
  cached_share: { modelled: number | null; measured: number | null };
  breaks: { count: number; tokens: number; by_cause: Record<BreakCause, number>; list: CallBreak[] };
  /** Money in the currency of the prices: measured from the provider's usage, modelled from HMC's cache model. */
  cost: {
    currency: string;
    /** The provider's figures priced (input with its cache reads and writes, and output). Every call. */
    measured_input: number;
    measured_output: number;
    /** The calls HMC saw: their input as the provider measured it, and without HMC as HMC models it (in provider tokens). */
    seen_measured_input: number;
    modelled_without_hmc: number;
    /** modelled_without_hmc - seen_measured_input: the saving with the sent side measured. */
    saved: number;
    unknown_models: string[];
  };
  /** The costliest calls by measured input, with their break (the answer to "why did this call cost so much"). */
  costliest: CostlyCall[];
}

export interface CallBreak {
  session_id?: string;
  seq: number;
  call_id: string;
  turn: number | null;
  at: number;
  tokens: number;
  cause: BreakCause;
}

export interface CostlyCall extends CallBreak {
  model: string;
  prompt_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  input_cost: number;
  /** One sentence: why it cost what it did. */
  why: string;
}

const money = (x: number): number => Math.round(x * 1e8) / 1e8;
const share = (part: number, whole: number): number | null =>
  whole > 0 ? Math.round((part / whole) * 10000) / 10000 : null;

const WHY: Record<BreakCause, string> = {
  hmc: 'an HMC pass rewrote what the previous call had sent (planned and priced: docs/glossary.md "cache break")',
  hermes:
    'Hermes changed the request: its compaction or an edit of the history, a new system prompt or tool list, or another model',
  ttl: 'the pause since the previous call was longer than the cache lives (5 minutes): the provider had dropped it',
  unknown:
    'the provider read less from its cache than the previous call had sent, and neither HMC nor Hermes changed it',
};

/** Prices by model name, asked once each. */
function pricer(pricing: HmcConfig['pricing'], host: ReadonlyMap<string, HostPrice>): (model: string) => SourcedPrice {
  const cache = new Map<string, SourcedPrice>();
  return (model) => {
    let p = cache.get(model);
    if (!p) cache.set(model, (p = priceFor(model, pricing, host.get(model))));
    return p;
  };
}

export function reconcile(
  calls: readonly ReconcileCall[],
  pricing: HmcConfig['pricing'],
  host: ReadonlyMap<string, HostPrice> = new Map(),
): Reconciled {
  const price = pricer(pricing, host);
  const measured = { prompt_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, completion_tokens: 0 };
  const modelled = { hmc_input: 0, raw_input: 0, hmc_cached: 0, raw_cached: 0 };
  const seenMeasured = { prompt: 0, read: 0 };
  const byCause: Record<BreakCause, number> = { hmc: 0, hermes: 0, ttl: 0, unknown: 0 };
  const list: CallBreak[] = [];
  const costly: CostlyCall[] = [];
  let unseen = 0;
  let breakTokens = 0;
  let measuredInput = 0;
  let measuredOutput = 0;
  let seenInput = 0;
  let without = 0;
  const unknown = new Set<string>();
  for (const c of calls) {
    const p = price(c.model);
    if (p.unknown_model) unknown.add(c.model || '(unknown)');
    measured.prompt_tokens += c.prompt_tokens;
    measured.cache_read_tokens += c.cache_read_tokens;
    measured.cache_write_tokens += c.cache_write_tokens;
    measured.completion_tokens += c.completion_tokens;
    const plain = Math.max(0, c.prompt_tokens - c.cache_read_tokens - c.cache_write_tokens);
    const input = (plain * p.input + c.cache_read_tokens * p.cache_read + c.cache_write_tokens * p.cache_write) / 1e6;
    measuredInput += input;
    measuredOutput += (c.completion_tokens * p.output) / 1e6;
    const where = {
      ...(c.session_id ? { session_id: c.session_id } : {}),
      seq: c.seq,
      call_id: c.call_id,
      turn: c.turn,
      at: c.at,
    };
    if (c.break_cause) {
      byCause[c.break_cause]++;
      breakTokens += c.break_tokens;
      list.push({ ...where, tokens: c.break_tokens, cause: c.break_cause });
    }
    costly.push({
      ...where,
      tokens: c.break_tokens,
      cause: c.break_cause || 'unknown',
      model: c.model,
      prompt_tokens: c.prompt_tokens,
      cache_read_tokens: c.cache_read_tokens,
      cache_write_tokens: c.cache_write_tokens,
      input_cost: money(input),
      why: c.break_cause
        ? `cache break of ${c.break_tokens} tokens: ${WHY[c.break_cause]}`
        : c.cache_read_tokens === 0 && c.prompt_tokens > 0
          ? 'nothing was read from the cache: the first call, or a provider that caches nothing'
          : `${c.prompt_tokens - c.cache_read_tokens} of ${c.prompt_tokens} prompt tokens were new (written or plain), the rest read from the cache`,
    });
    if (!c.seen || c.hmc_input === null || c.raw_input === null) {
      unseen += c.seen ? 0 : 1;
      continue;
    }
    modelled.hmc_input += c.hmc_input;
    modelled.raw_input += c.raw_input;
    modelled.hmc_cached += c.hmc_cached ?? 0;
    modelled.raw_cached += c.raw_cached ?? 0;
    seenMeasured.prompt += c.prompt_tokens;
    seenMeasured.read += c.cache_read_tokens;
    seenInput += input;
    // The raw request in the provider's tokens (this call's ratio), priced with HMC's model of its cache.
    const ratio = c.hmc_input > 0 ? c.prompt_tokens / c.hmc_input : 1;
    const rawCached = (c.raw_cached ?? 0) * ratio;
    without += ((c.raw_input * ratio - rawCached) * p.cache_write + rawCached * p.cache_read) / 1e6;
  }
  costly.sort((a, b) => b.input_cost - a.input_cost || a.seq - b.seq);
  return {
    calls: calls.length,
    unseen_calls: unseen,
    measured,
    modelled,
    tokenizer_ratio:
      modelled.hmc_input > 0 ? Math.round((seenMeasured.prompt / modelled.hmc_input) * 1000) / 1000 : null,
    cached_share: {
      modelled: share(modelled.hmc_cached, modelled.hmc_input),
      measured: share(seenMeasured.read, seenMeasured.prompt),
    },
    breaks: { count: list.length, tokens: breakTokens, by_cause: byCause, list: list.slice(-200) },
    cost: {
      currency: pricing.currency,
      measured_input: money(measuredInput),
      measured_output: money(measuredOutput),
      seen_measured_input: money(seenInput),
      modelled_without_hmc: money(without),
      saved: money(without - seenInput),
      unknown_models: [...unknown],
    },
    costliest: costly.slice(0, 5),
  };
}
