/**
 * GET /api/inspect/:id — a compressed tool output before and after (the inspector).
 *
 * Answers the record plus `before_view` and `after_view` (src/server/inspect-view.ts): the text
 * inside each side's JSON envelope and the envelope's other fields, for a line-by-line diff.
 *
 * Invariant: read-only; 404 when the record is unknown or the inspector is off. A lookup reads the
 * index and one record (events/inspect-index.ts), never every inspector file.
 */
import type { RouteHandler } from '../context.js';
import { sendJson, sendText } from '../respond.js';
import { findInspectRecord } from '../../events/inspect-lookup.js';
import { outputView } from '../inspect-view.js';

export const apiInspect: RouteHandler = async (ctx, req, res, _url, params) => {
  const id = params[0] ?? '';
  const record = await findInspectRecord(ctx.stateDir, id, {
    index: ctx.inspectIndex,
    ...(ctx.inspectMemory ? { memory: ctx.inspectMemory } : {}),
  });
  if (!record) {
    sendText(req, res, 404, 'No inspector record with that id (the inspector may be off, or the record expired).');
    return;
  }
  sendJson(req, res, {
    ...record,
    before_view: outputView(record.before, record.before_truncated),
    after_view: outputView(record.after, false),
  });
};
