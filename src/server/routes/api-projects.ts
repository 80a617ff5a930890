/**
 * GET /api/projects[?limit=] — per-project totals, most saved first.
 *
 * Invariant: `limit` is 1..500, else 400 naming it.
 */
import type { RouteHandler } from '../context.js';
import { sendJson } from '../respond.js';
import { intParam, windowParam } from '../query.js';

export const apiProjects: RouteHandler = async (ctx, req, res, url) => {
  const limit = intParam(url.searchParams, 'limit', 50, 1, 500);
  const { since, until } = windowParam(url.searchParams);
  const store = await ctx.store.get();
  sendJson(req, res, {
    projects: store.byProject({
      limit,
      ...(since !== undefined ? { since } : {}),
      ...(until !== undefined ? { until } : {}),
    }),
  });
};
