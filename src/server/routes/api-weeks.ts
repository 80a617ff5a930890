/**
 * GET /api/weeks?weeks=12[&project=] or ?since=&until= — savings per week, Monday to Sunday UTC
 * (`week` is its Monday; every week of the window listed, newest first).
 *
 * Invariant: `weeks` is 1..520, a range at most 3,660 days, else 400 naming it.
 */
import type { RouteHandler } from '../context.js';
import { sendJson } from '../respond.js';
import { calendarParam } from '../query.js';

export const apiWeeks: RouteHandler = async (ctx, req, res, url) => {
  const q = calendarParam(url.searchParams, 'weeks', 12, 520);
  const store = await ctx.store.get();
  sendJson(req, res, { weeks: store.byWeek({ ...q.window, weeks: q.count }) });
};
