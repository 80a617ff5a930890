/**
 * GET /api/summary — the live view from events: the current session (the most recently active
 * one that has not ended) with its running totals and per-turn series, and the other sessions seen.
 *
 * Invariant: built from events only (no store query), so it is cheap enough to poll.
 */
import type { RouteHandler } from '../context.js';
import { sendJson } from '../respond.js';
import type { LiveSession } from '../live-state.js';

/** A session without its series (for the list). */
function brief(s: LiveSession): Omit<LiveSession, 'points'> {
  const { points: _points, ...rest } = s;
  return rest;
}

export const apiSummary: RouteHandler = (ctx, req, res) => {
  const current = ctx.live.current();
  sendJson(req, res, {
    current,
    sessions: ctx.live.list().slice(0, 50).map(brief),
    events_seen: ctx.live.counts,
    sources: ctx.live.sourceCount(),
    time: Date.now(),
  });
};
