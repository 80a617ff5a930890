/**
 * GET /api/tools[?project=&limit=] — lifetime input tokens saved per tool, largest first.
 *
 * Invariant: read-only; empty list without a database.
 */
import type { RouteHandler } from '../context.js';
import { sendJson } from '../respond.js';
import { intParam, textParam } from '../query.js';

export const apiTools: RouteHandler = async (ctx, req, res, url) => {
  const project = textParam(url.searchParams, 'project', 4096);
  const limit = intParam(url.searchParams, 'limit', 20, 1, 500);
  const store = await ctx.store.get();
  const rows = store.byTool({ limit, ...(project === undefined ? {} : { project }) });
  sendJson(req, res, { tools: [...rows].sort((a, b) => b.saved - a.saved) });
};
