/**
 * GET /api/work[?project=&since=&until=] — did compression cost the agent work: the outputs HMC
 * shortened, the agent's recalls and re-reads of them (per 100 shortened), and the sessions with
 * the most (docs/glossary.md "recall", "re-read").
 *
 * Invariant: read-only; zeros without a database.
 */
import type { RouteHandler } from '../context.js';
import { sendJson } from '../respond.js';
import { windowParam } from '../query.js';

export const apiWork: RouteHandler = async (ctx, req, res, url) => {
  const w = windowParam(url.searchParams);
  const store = await ctx.store.get();
  sendJson(req, res, store.work(w));
};
