/**
 * GET /api/analytics[?project=] — lifetime totals from the analytics store, plus the estimated
 * cost saved (labelled an estimate). Zeros when there is no database.
 *
 * Invariant: read-only; the cost estimate never claims to be a bill.
 */
import type { RouteHandler } from '../context.js';
import { sendJson } from '../respond.js';
import { textParam } from '../query.js';
import { estimateCost } from '../pricing.js';

/** Sessions priced individually by model; the rest (rare) at the default price. */
const PRICED_SESSIONS = 5000;

export const apiAnalytics: RouteHandler = async (ctx, req, res, url) => {
  const project = textParam(url.searchParams, 'project', 4096);
  const store = await ctx.store.get();
  const summary = store.summary(project === undefined ? {} : { project });
  const { rows } = store.sessions({ limit: PRICED_SESSIONS, sort: 'saved', order: 'desc', ...(project === undefined ? {} : { project }) });
  sendJson(req, res, {
    ...summary,
    estimated_cost_saved: estimateCost(rows.map((r) => ({ model: r.model, saved: r.saved })), summary.total_saved, ctx.pricing),
    store: ctx.store.status(),
  });
};
