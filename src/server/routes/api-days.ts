/**
 * GET /api/days?days=30[&project=] or ?since=&until= — savings per UTC day (every day of the
 * window listed, empty ones too, newest first).
 *
 * Invariant: `days` is 1..3650, a range at most 3,660 days, else 400 naming it.
 */
import type { RouteHandler } from '../context.js';
import { sendJson } from '../respond.js';
import { calendarParam } from '../query.js';

export const apiDays: RouteHandler = async (ctx, req, res, url) => {
  const q = calendarParam(url.searchParams, 'days', 30, 3650);
  const store = await ctx.store.get();
  sendJson(req, res, { days: store.byDay({ ...q.window, days: q.count }) });
};
