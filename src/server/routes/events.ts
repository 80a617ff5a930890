/**
 * GET /events — the Server-Sent Events stream (`hello`, then `turn`, `tool`, `session_end`,
 * `ping`), resumable with Last-Event-ID.
 *
 * Invariant: the hub owns the connection from here on (limits, slow-client drop).
 */
import type { RouteHandler } from '../context.js';

export const events: RouteHandler = (ctx, req, res) => {
  ctx.hub.connect(req, res);
};
