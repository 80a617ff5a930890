/**
 * GET /api/months?months=12[&project=] — savings per calendar month.
 *
 * Invariant: `months` is 1..120, else 400 naming it.
 */
import type { RouteHandler } from '../context.js';
import { sendJson } from '../respond.js';
import { intParam, textParam } from '../query.js';

export const apiMonths: RouteHandler = async (ctx, req, res, url) => {
  const months = intParam(url.searchParams, 'months', 12, 1, 120);
  const project = textParam(url.searchParams, 'project', 4096);
  const store = await ctx.store.get();
  sendJson(req, res, { months: store.byMonth({ months, ...(project === undefined ? {} : { project }) }) });
};
