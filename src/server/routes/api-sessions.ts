/**
 * GET /api/sessions?limit&offset&sort&order&search&project&since&until — one page of the sessions table,
 * sorted and filtered by the store; each row says where the session is in its life (`state`:
 * live, idle or ended; `live` is `state === 'live'`).
 *
 * Invariant: every parameter is checked (400 naming it); sort/order come from fixed lists.
 */
import type { RouteHandler } from '../context.js';
import { sendJson } from '../respond.js';
import { enumParam, intParam, textParam, windowParam } from '../query.js';
import { SESSION_SORTS } from '../store-reader.js';
import { sessionState } from '../session-state.js';

export const apiSessions: RouteHandler = async (ctx, req, res, url) => {
  const q = url.searchParams;
  const limit = intParam(q, 'limit', 20, 1, 500);
  const offset = intParam(q, 'offset', 0, 0, 1_000_000);
  const sort = enumParam(q, 'sort', SESSION_SORTS, 'started_at');
  const order = enumParam(q, 'order', ['asc', 'desc'] as const, 'desc');
  const search = textParam(q, 'search', 200);
  const w = windowParam(q);
  const store = await ctx.store.get();
  const page = store.sessions({ limit, offset, sort, order, ...(search === undefined ? {} : { search }), ...w });
  sendJson(req, res, {
    total: page.total,
    limit,
    offset,
    rows: page.rows.map((r) => {
      const state = sessionState(r, ctx.live.get(r.session_id));
      return { ...r, live: state === 'live', state };
    }),
  });
};
