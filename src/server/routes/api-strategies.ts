/**
 * GET /api/strategies[?project=&since=&until=] — input tokens saved per strategy over a window of
 * sessions, largest first.
 *
 * Invariant: read-only; empty list without a database.
 */
import type { RouteHandler } from '../context.js';
import { sendJson } from '../respond.js';
import { windowParam } from '../query.js';

export const apiStrategies: RouteHandler = async (ctx, req, res, url) => {
  const w = windowParam(url.searchParams);
  const store = await ctx.store.get();
  sendJson(req, res, { strategies: [...store.byStrategy(w)].sort((a, b) => b.saved - a.saved) });
};
