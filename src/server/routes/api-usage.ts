/**
 * GET /api/sessions/:id/usage — the provider's usage of the session's model calls (issue 16), as
 * a context-engine host reported it (Hermes with `context.engine: hmc`): totals (prompt,
 * completion, cache read and write tokens), the models that answered, and each call beside HMC's
 * own figures for it (input as sent, and HMC's model of what the cache could read), and `reconcile`
 * (store/reconcile.ts: measured beside modelled, the cache breaks by cause, the costliest calls).
 * `usage` and `reconcile` are null when the host reported none.
 *
 * Invariant: the id is only used as a lookup key; figures are the stored ones, never estimated here.
 */
import type { RouteHandler } from '../context.js';
import { sendJson } from '../respond.js';
import { reconcile } from '../../store/reconcile.js';

export const apiUsage: RouteHandler = async (ctx, req, res, _url, params) => {
  const id = params[0] ?? '';
  const store = await ctx.store.get();
  const usage = store.usage(id);
  // Reconcile (issue 24): the provider's figures (measured) beside HMC's (modelled), breaks by cause.
  sendJson(req, res, {
    session_id: id,
    usage,
    reconcile: usage ? reconcile(usage.calls, ctx.pricing, store.hostPrices()) : null,
  });
};
