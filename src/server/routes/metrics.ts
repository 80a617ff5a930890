/**
 * GET /metrics — Prometheus text exposition (version 0.0.4) of the lifetime savings, so teams
 * can scrape them into the monitoring they already run.
 *
 * Savings and input come from the analytics store (lifetime); without a database they come from
 * the sessions seen in events since the dashboard started. The cost and cache families (issue 27,
 * finding 6) come from the store only, per model, and their HELP says they are HMC's estimate
 * (cost-series.ts; the OTLP push sends the same figures). Beside them (issue 24, part 6) the
 * measured series: the provider's own tokens and calls per model from provider_usage, calls HMC
 * counted apart from those it never saw, and money by kind and basis (`hmc_cost_<currency>`, a
 * gauge) with the sent side the provider's figures where it reported the call; a model no price
 * names is named (`hmc_model_unpriced`) and not priced. Label values are escaped.
 *
 * Invariant: HELP and TYPE precede every family; values are finite numbers.
 */
import type { Saved } from '../../core/savings.js';
import type { RouteHandler } from '../context.js';
import { sendBody } from '../respond.js';
import { priceModels } from '../../store/pricing.js';
import {
  COST_ESTIMATE_NOTE,
  costFamily,
  costSeries,
  MEASURED_NOTE,
  measuredSeries,
  TOKEN_TYPES,
  type CostSeries,
  type MeasuredSeries,
} from '../cost-series.js';

export function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

class Exposition {
  private out = '';
  family(name: string, type: 'counter' | 'gauge', help: string): this {
    this.out += `# HELP ${name} ${help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}\n# TYPE ${name} ${type}\n`;
    return this;
  }
  sample(name: string, value: number, labels: Record<string, string> = {}): this {
    const l = Object.entries(labels)
      .map(([k, v]) => `${k}="${escapeLabel(v)}"`)
      .join(',');
    this.out += `${name}${l ? `{${l}}` : ''} ${Number.isFinite(value) ? value : 0}\n`;
    return this;
  }
  text(): string {
    return this.out;
  }
}

export const metrics: RouteHandler = async (ctx, req, res) => {
  const store = await ctx.store.get();
  const fromStore = ctx.store.status() === 'ok';
  let byStrategy: Saved;
  let byTool: Saved;
  let raw: number;
  let saved: number;
  let sessions: number;
  let modelCalls: number | null = null;
  let costs: CostSeries[] | null = null;
  let measured: MeasuredSeries | null = null;
  if (fromStore) {
    costs = costSeries(priceModels(store.byModel(), ctx.pricing));
    measured = measuredSeries(store.measured(), ctx.pricing);
    const s = store.summary();
    byStrategy = s.by_strategy;
    byTool = s.by_tool;
    raw = s.total_input;
    saved = s.total_saved;
    sessions = s.total_sessions;
    modelCalls = s.model_calls;
  } else {
    byStrategy = {};
    byTool = {};
    raw = 0;
    saved = 0;
    const list = ctx.live.list();
    sessions = list.length;
    for (const l of list) {
      for (const [k, v] of Object.entries(l.by_strategy)) byStrategy[k] = (byStrategy[k] ?? 0) + v;
      for (const [k, v] of Object.entries(l.by_tool)) byTool[k] = (byTool[k] ?? 0) + v;
      raw += l.input_tokens.raw;
      saved += Math.max(0, l.input_tokens.raw - l.input_tokens.hmc);
    }
  }
  const x = new Exposition();
  x.family(
    'hmc_tokens_saved_total',
    'counter',
    'Input saved (docs/glossary.md): input tokens the model was not sent, over every model call, by strategy or by tool.',
  );
  for (const [k, v] of Object.entries(byStrategy)) x.sample('hmc_tokens_saved_total', v, { strategy: k });
  for (const [k, v] of Object.entries(byTool)) x.sample('hmc_tokens_saved_total', v, { tool: k });
  x.family(
    'hmc_input_tokens_total',
    'counter',
    'Modelled: input tokens over all model calls by HMC\'s own count (o200k), not the provider\'s (hmc_provider_tokens_total): raw = without HMC, sent = as sent. kind="hmc" is the same figure as sent, kept for scrapers of before (deprecated: select one kind, never sum them).',
  );
  x.sample('hmc_input_tokens_total', raw, { kind: 'raw' });
  x.sample('hmc_input_tokens_total', Math.max(0, raw - saved), { kind: 'sent' });
  x.sample('hmc_input_tokens_total', Math.max(0, raw - saved), { kind: 'hmc' });
  if (modelCalls !== null) {
    x.family(
      'hmc_model_calls_total',
      'counter',
      'Model calls the input was sent in: the N of "input saved over N model calls" (sessions from before HMC counted them add none).',
    );
    x.sample('hmc_model_calls_total', modelCalls);
  }
  if (costs !== null) costFamilies(x, costs);
  if (measured !== null) measuredFamilies(x, measured);
  x.family('hmc_sessions_total', 'counter', 'Sessions recorded.');
  x.sample('hmc_sessions_total', sessions);
  x.family('hmc_sse_clients', 'gauge', 'Dashboard pages connected to the event stream.');
  x.sample('hmc_sse_clients', ctx.hub.size());
  x.family('hmc_events_total', 'counter', 'Events seen by this dashboard since it started, by type.');
  for (const [k, v] of Object.entries(ctx.live.counts)) x.sample('hmc_events_total', v, { type: k });
  sendBody(req, res, 200, 'text/plain; version=0.0.4; charset=utf-8', x.text());
};

/** The estimated input cost per model (raw, sent) and the cache model's read and written tokens. */
function costFamilies(x: Exposition, costs: readonly CostSeries[]): void {
  x.family(
    'hmc_input_cost_estimate',
    'gauge',
    `Input cost per model in the currency label: raw = without HMC, sent = as sent (raw - sent = cost saved). ${COST_ESTIMATE_NOTE}; a gauge because prices can change.`,
  );
  for (const c of costs) {
    x.sample('hmc_input_cost_estimate', c.cost.raw, { model: c.model, kind: 'raw', currency: c.currency });
    x.sample('hmc_input_cost_estimate', c.cost.sent, { model: c.model, kind: 'sent', currency: c.currency });
  }
  x.family(
    'hmc_cache_tokens_estimate_total',
    'counter',
    `Input tokens per model the provider reads from its prompt cache (op=read) or writes to it (op=write), raw = without HMC, sent = as sent. ${COST_ESTIMATE_NOTE}; input recorded before the cache model was kept is in neither.`,
  );
  for (const c of costs) {
    for (const op of ['read', 'write'] as const) {
      for (const kind of ['raw', 'sent'] as const)
        x.sample('hmc_cache_tokens_estimate_total', c.cache[op][kind], { model: c.model, op, kind });
    }
  }
}

/** The provider's own tokens and calls per model (measured), money by kind and basis, and the models no price names. */
function measuredFamilies(x: Exposition, m: MeasuredSeries): void {
  x.family(
    'hmc_provider_tokens_total',
    'counter',
    "Measured: the provider's own token counts per model, as it reported them for each model call (Hermes' post_api_request usage): type = prompt (all input, cache reads and writes included), cache_read, cache_write, output, reasoning (as the provider counts it, usually within output); calls = seen (calls HMC saw and counted: its savings are over them) or unseen (every other: auxiliary calls, subagents', requests left raw; never in a saving).",
  );
  for (const t of m.tokens)
    for (const type of TOKEN_TYPES)
      x.sample('hmc_provider_tokens_total', t.tokens[type], { model: t.model, type, calls: t.calls });
  x.family(
    'hmc_provider_calls_total',
    'counter',
    'Measured: model calls whose usage the provider reported, per model; calls = seen (HMC counted them) or unseen (HMC never saw them).',
  );
  for (const t of m.tokens) x.sample('hmc_provider_calls_total', t.count, { model: t.model, calls: t.calls });
  const name = costFamily(m.currency);
  x.family(
    name,
    'gauge',
    `Money per model in the currency label: kind = raw (the input without HMC), sent (the input as sent), output; basis = ${MEASURED_NOTE}. calls = seen: HMC's calls, sent measured where the provider reported the call and modelled for sessions it reported none of, raw always modelled, so raw - sent summed over seen = cost saved; calls = unseen: calls HMC never saw (no raw, in no saving). A gauge, not a counter: every scrape prices the whole history at today's prices, so a changed price moves it either way (and retention removes old calls). A model no price table names has no sample (hmc_model_unpriced).`,
  );
  for (const c of m.cost)
    x.sample(name, c.value, { model: c.model, kind: c.kind, basis: c.basis, calls: c.calls, currency: m.currency });
  x.family(
    'hmc_model_unpriced',
    'gauge',
    `Models no price names (not pricing.models, not Hermes' pricing data, not HMC's built-in table): 1 each. They are in the token series and in no ${name} sample, never priced at pricing.default_* there (hmc_input_cost_estimate still prices them at the default, as the page's estimate does, marked unknown).`,
  );
  for (const model of m.unpriced) x.sample('hmc_model_unpriced', 1, { model });
}
