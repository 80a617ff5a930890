/**
 * GET /api/sessions/:id/usage — the provider's usage of the session's model calls (issue 16), as
 * a context-engine host reported it (Hermes with `context.engine: hmc`): totals (prompt,
 * completion, cache read and write tokens), the models that answered, and each call beside HMC's
 * own figures for it (input as sent, and HMC's model of what the cache could read). `usage` is
 * null when the host reported none (hooks only, or another host).
 *
 * Invariant: the id is only used as a lookup key; figures are the stored ones, never estimated here.
 */
import type { RouteHandler } from '../context.js';
import { sendJson } from '../respond.js';

export const apiUsage: RouteHandler = async (ctx, req, res, _url, params) => {
  const id = params[0] ?? '';
  const store = await ctx.store.get();
  sendJson(req, res, { session_id: id, usage: store.usage(id) });
};
