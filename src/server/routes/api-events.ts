/**
 * GET /api/events[?since=<event id>&limit=] — recent events from the in-memory ring, oldest
 * first; with `since`, only the ones after it (`found: false` when it has left the ring).
 *
 * Invariant: bounded by the ring and `limit` (1..2000).
 */
import type { RouteHandler } from '../context.js';
import { sendJson } from '../respond.js';
import { intParam, textParam } from '../query.js';

export const apiEvents: RouteHandler = (ctx, req, res, url) => {
  const since = textParam(url.searchParams, 'since', 300);
  const limit = intParam(url.searchParams, 'limit', 300, 1, 2000);
  sendJson(req, res, ctx.hub.recent(since, limit));
};
