/**
 * GET /api/sessions/:id/context?days=N — where the session's latest request went (issue 24, part
 * 5; core/context-view.ts): the breakdown its session file keeps (the engine writes it at each
 * turn's end, from counts it already holds), each tool schema's calls over the last N days (default
 * 30) from the analytics store, and the advice. 404 when neither a session file nor the store
 * nor the live state knows the id; `breakdown` null (with `breakdown_note`) when the session has
 * sent no request yet or has no file here.
 *
 * Invariant: read-only; the id is only a lookup key (made a safe file name); no new wire traffic.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { safeFileName } from '../../config/paths.js';
import { contextView, DEFAULT_PERIOD_DAYS, parseContextBreakdown } from '../../core/context-view.js';
import { errorText } from '../../core/errors.js';
import type { RouteHandler } from '../context.js';
import { intParam } from '../query.js';
import { sendJson, sendText } from '../respond.js';

const DAY_MS = 86_400_000;

export const apiContext: RouteHandler = async (ctx, req, res, url, params) => {
  const id = params[0] ?? '';
  const days = intParam(url.searchParams, 'days', DEFAULT_PERIOD_DAYS, 1, 3650);
  let file: unknown;
  try {
    file = JSON.parse(await readFile(join(ctx.stateDir, 'sessions', `${safeFileName(id)}.json`), 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      sendText(req, res, 500, `The session file could not be read: ${errorText(err)}`);
      return;
    }
    // A session the store or the live state knows, with no file (yet, or kept elsewhere): no breakdown.
    const known = ctx.live.get(id) !== undefined || (await ctx.store.get()).session(id) !== null;
    if (known)
      sendJson(req, res, {
        session_id: id,
        breakdown: null,
        breakdown_note:
          'HMC has no saved breakdown of this session (its session file is written at the end of each turn, in the state dir of the HMC that ran it)',
      });
    else sendText(req, res, 404, 'No session with that id (HMC saves a session at the end of each turn).');
    return;
  }
  const saved = typeof file === 'object' && file !== null ? (file as Record<string, unknown>) : {};
  if (saved.session_id !== id) {
    sendText(req, res, 404, 'No saved session with that id (HMC saves a session at the end of each turn).');
    return;
  }
  const b = parseContextBreakdown(saved.context);
  if (!b) {
    sendJson(req, res, {
      session_id: id,
      breakdown: null,
      breakdown_note: 'no request seen in this session yet: the breakdown appears after its first turn',
    });
    return;
  }
  // UTC days, today included: the same window as `hmc_control context days=N`.
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  const status = ctx.store.status();
  let calls: Map<string, number> | null = null;
  if (status === 'ok') {
    const store = await ctx.store.get();
    calls = new Map();
    for (const r of store.byOutput({ by: 'tool', limit: 10_000, since: today - (days - 1) * DAY_MS }))
      calls.set(r.name, (calls.get(r.name) ?? 0) + r.outputs);
  }
  const note = calls ? null : `analytics store ${status}: calls are counted in this session only`;
  sendJson(req, res, { session_id: id, breakdown: contextView(b, calls, days, note) });
};
