/**
 * GET /events — the Server-Sent Events stream (`hello`, then `turn`, `tool`, `session_end`,
 * `ping`), resumable with the Last-Event-ID header or `?last_event_id=`.
 *
 * Invariant: the hub owns the connection from here on (limits, slow-client drop).
 */
import type { RouteHandler } from '../context.js';

export const events: RouteHandler = (ctx, req, res, url) => {
  ctx.hub.connect(req, res, url.searchParams.get('last_event_id'));
};
