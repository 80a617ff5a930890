/**
 * GET /api/sessions/:id — one session: its stored record (timeline, by strategy, by tool), its
 * live view from events, either of which may be null (404 when both are), and its `state`.
 *
 * Invariant: the id is only used as a lookup key.
 */
import type { RouteHandler } from '../context.js';
import { sendJson, sendText } from '../respond.js';
import { sessionState } from '../session-state.js';

export const apiSession: RouteHandler = async (ctx, req, res, _url, params) => {
  const id = params[0] ?? '';
  const store = await ctx.store.get();
  const stored = store.session(id);
  const live = ctx.live.get(id) ?? null;
  if (!stored && !live) {
    sendText(req, res, 404, 'No such session.');
    return;
  }
  sendJson(req, res, { session: stored, live, state: sessionState(stored, live ?? undefined) });
};
