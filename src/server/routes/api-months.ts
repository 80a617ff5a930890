/**
 * GET /api/months?months=12[&project=] or ?since=&until= — savings per UTC calendar month
 * (every month of the window listed, newest first).
 *
 * Invariant: `months` is 1..120, a range at most 3,660 days, else 400 naming it.
 */
import type { RouteHandler } from '../context.js';
import { sendJson } from '../respond.js';
import { calendarParam } from '../query.js';

export const apiMonths: RouteHandler = async (ctx, req, res, url) => {
  const q = calendarParam(url.searchParams, 'months', 12, 120);
  const store = await ctx.store.get();
  sendJson(req, res, { months: store.byMonth({ ...q.window, months: q.count }) });
};
