/**
 * GET /api/outputs?by=tool|kind|program[&project=&since=&until=&limit=] — tool outputs grouped by
 * tool, by the kind the hosts' tool vocabulary gives it, or (shell commands) by program: outputs,
 * tokens as they arrived and as first sent, saved per output (docs/glossary.md).
 *
 * Invariant: read-only; `by` from its list, else 400 naming it.
 */
import type { RouteHandler } from '../context.js';
import { sendJson } from '../respond.js';
import { enumParam, intParam, windowParam } from '../query.js';
import { OUTPUT_BY } from '../../store/views.js';

export const apiOutputs: RouteHandler = async (ctx, req, res, url) => {
  const w = windowParam(url.searchParams);
  const by = enumParam(url.searchParams, 'by', OUTPUT_BY, 'tool');
  const limit = intParam(url.searchParams, 'limit', 50, 1, 500);
  const store = await ctx.store.get();
  sendJson(req, res, { by, outputs: store.byOutput({ ...w, by, limit }) });
};
