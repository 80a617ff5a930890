/**
 * GET /api/strategies[?project=] — lifetime input tokens saved per strategy, largest first.
 *
 * Invariant: read-only; empty list without a database.
 */
import type { RouteHandler } from '../context.js';
import { sendJson } from '../respond.js';
import { textParam } from '../query.js';

export const apiStrategies: RouteHandler = async (ctx, req, res, url) => {
  const project = textParam(url.searchParams, 'project', 4096);
  const store = await ctx.store.get();
  const rows = store.byStrategy(project === undefined ? {} : { project });
  sendJson(req, res, { strategies: [...rows].sort((a, b) => b.saved - a.saved) });
};
