/**
 * GET /api/tools[?project=&since=&until=&limit=] — input tokens saved per tool over a window of
 * sessions, largest first.
 *
 * Invariant: read-only; empty list without a database.
 */
import type { RouteHandler } from '../context.js';
import { sendJson } from '../respond.js';
import { intParam, windowParam } from '../query.js';

export const apiTools: RouteHandler = async (ctx, req, res, url) => {
  const w = windowParam(url.searchParams);
  const limit = intParam(url.searchParams, 'limit', 20, 1, 500);
  const store = await ctx.store.get();
  sendJson(req, res, { tools: [...store.byTool({ ...w, limit })].sort((a, b) => b.saved - a.saved) });
};
