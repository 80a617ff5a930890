/**
 * GET /api/days?days=30[&project=] — savings per day (UTC days, as the store groups them).
 *
 * Invariant: `days` is 1..3650, else 400 naming it.
 */
import type { RouteHandler } from '../context.js';
import { sendJson } from '../respond.js';
import { intParam, textParam } from '../query.js';

export const apiDays: RouteHandler = async (ctx, req, res, url) => {
  const days = intParam(url.searchParams, 'days', 30, 1, 3650);
  const project = textParam(url.searchParams, 'project', 4096);
  const store = await ctx.store.get();
  sendJson(req, res, { days: store.byDay({ days, ...(project === undefined ? {} : { project }) }) });
};
