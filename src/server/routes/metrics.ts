/**
 * GET /metrics — Prometheus text exposition (version 0.0.4) of the lifetime savings, so teams
 * can scrape them into the monitoring they already run.
 *
 * Savings and input come from the analytics store (lifetime); without a database they come from
 * the sessions seen in events since the dashboard started. The cost and cache families (issue 27,
 * finding 6) come from the store only, per model, and their HELP says they are HMC's estimate
 * (cost-series.ts; the OTLP push sends the same figures). Label values are escaped.
 *
 * Invariant: HELP and TYPE precede every family; values are finite numbers.
 */
import type { Saved } from '../../core/savings.js';
import type { RouteHandler } from '../context.js';
import { sendBody } from '../respond.js';
import { priceModels } from '../../store/pricing.js';
import { COST_ESTIMATE_NOTE, costSeries, type CostSeries } from '../cost-series.js';

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
    const l = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',');
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
  if (fromStore) {
    costs = costSeries(priceModels(store.byModel(), ctx.pricing));
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
  x.family('hmc_tokens_saved_total', 'counter', 'Input saved (docs/glossary.md): input tokens the model was not sent, over every model call, by strategy or by tool.');
  for (const [k, v] of Object.entries(byStrategy)) x.sample('hmc_tokens_saved_total', v, { strategy: k });
  for (const [k, v] of Object.entries(byTool)) x.sample('hmc_tokens_saved_total', v, { tool: k });
  x.family('hmc_input_tokens_total', 'counter', 'Input tokens over all model calls: raw = without HMC, hmc = as sent.');
  x.sample('hmc_input_tokens_total', raw, { kind: 'raw' });
  x.sample('hmc_input_tokens_total', Math.max(0, raw - saved), { kind: 'hmc' });
  if (modelCalls !== null) {
    x.family('hmc_model_calls_total', 'counter', 'Model calls the input was sent in: the N of "input saved over N model calls" (sessions from before HMC counted them add none).');
    x.sample('hmc_model_calls_total', modelCalls);
  }
  if (costs !== null) costFamilies(x, costs);
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
  x.family('hmc_input_cost_estimate', 'gauge', `Input cost per model in the currency label: raw = without HMC, sent = as sent (raw - sent = cost saved). ${COST_ESTIMATE_NOTE}; a gauge because prices can change.`);
  for (const c of costs) {
    x.sample('hmc_input_cost_estimate', c.cost.raw, { model: c.model, kind: 'raw', currency: c.currency });
    x.sample('hmc_input_cost_estimate', c.cost.sent, { model: c.model, kind: 'sent', currency: c.currency });
  }
  x.family('hmc_cache_tokens_estimate_total', 'counter', `Input tokens per model the provider reads from its prompt cache (op=read) or writes to it (op=write), raw = without HMC, sent = as sent. ${COST_ESTIMATE_NOTE}; input recorded before the cache model was kept is in neither.`);
  for (const c of costs) {
    for (const op of ['read', 'write'] as const) {
      for (const kind of ['raw', 'sent'] as const) x.sample('hmc_cache_tokens_estimate_total', c.cache[op][kind], { model: c.model, op, kind });
    }
  }
}
