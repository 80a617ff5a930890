/**
 * GET /api/models[?project=&since=&until=] — per model: sessions, model calls, input without HMC
 * and as sent, the cache model's reads, and the estimated input cost with and without HMC from
 * the price table (docs/glossary.md "cost"), largest saving first; and, where a host passed the
 * provider's usage (HMC as Hermes' context engine), that usage per model priced the same way
 * (`provider`: the bill's own count of what was sent, never mixed into HMC's figures).
 *
 * Invariant: read-only; every cost is labelled an estimate (`basis`).
 */
import type { RouteHandler } from '../context.js';
import { sendJson } from '../respond.js';
import { windowParam } from '../query.js';
import { COST_BASIS, costSaved, priceModels, priceProvider } from '../../store/pricing.js';

export const apiModels: RouteHandler = async (ctx, req, res, url) => {
  const w = windowParam(url.searchParams);
  const store = await ctx.store.get();
  const models = priceModels(store.byModel(w), ctx.pricing);
  const provider = priceProvider(store.providerByModel(w), ctx.pricing);
  sendJson(req, res, {
    models,
    provider,
    total: costSaved(models, ctx.pricing),
    currency: ctx.pricing.currency,
    basis: COST_BASIS,
  });
};
