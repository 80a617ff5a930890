/**
 * GET /api/analytics[?project=&since=&until=] — totals from the analytics store over a window of
 * sessions (docs/glossary.md: input saved over N model calls), plus the estimated cost saved,
 * priced per model with the cache model's reads and writes (labelled an estimate). Zeros when
 * there is no database.
 *
 * Invariant: read-only; the cost estimate never claims to be a bill.
 */
import type { RouteHandler } from '../context.js';
import { sendJson } from '../respond.js';
import { windowParam } from '../query.js';
import { costSaved, priceModels } from '../../store/pricing.js';

export const apiAnalytics: RouteHandler = async (ctx, req, res, url) => {
  const w = windowParam(url.searchParams);
  const store = await ctx.store.get();
  const summary = store.summary(w);
  const models = priceModels(store.byModel(w), ctx.pricing);
  sendJson(req, res, { ...summary, estimated_cost_saved: costSaved(models, ctx.pricing), store: ctx.store.status() });
};
