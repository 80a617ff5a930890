/**
 * GET /api/phases — the session index of summarised phases (layer 1):
 *   ?session=ID            the session's phases, oldest first, with their summaries
 *   ?session=ID&phase=N    one phase (404 when the session has no such phase)
 *   ?q=words[&session=ID]  phases matching every word, best first (`limit`, default 20), with a
 *                          snippet and the matched words' offsets in it
 * A session's phases come from its index file in the state dir and the analytics file, the more
 * updated entry of each phase winning; a search across sessions asks the analytics file (FTS5) and
 * scans the index files when there is none (analytics off, missing or damaged).
 *
 * Invariant: every parameter is checked (400 naming it); the query reaches SQLite only as quoted
 * words (phase-search.ts); the answer carries summaries, topics and numbers, never raw messages.
 */
import type { RouteHandler } from '../context.js';
import { sendJson, sendText } from '../respond.js';
import { intParam, QueryError, textParam } from '../query.js';
import { createPhaseIndex } from '../../store/phase-index.js';
import { mergePhases } from '../../store/phase-record.js';
import { queryTerms, rankEntries, toHit } from '../../store/phase-search.js';

export const apiPhases: RouteHandler = async (ctx, req, res, url) => {
  const q = url.searchParams;
  const session = textParam(q, 'session', 500);
  const text = textParam(q, 'q', 500);
  const phase = q.has('phase') ? intParam(q, 'phase', 0, 1, Number.MAX_SAFE_INTEGER) : undefined;
  if (phase !== undefined && text !== undefined) throw new QueryError('phase and q cannot be combined');
  if (phase !== undefined && session === undefined) throw new QueryError('phase needs session');
  if (session === undefined && text === undefined)
    throw new QueryError("session or q is required (session=ID lists a session's phases, q=words searches)");
  if (q.has('limit') && text === undefined) throw new QueryError('limit applies to a search (q)');
  const limit = intParam(q, 'limit', 20, 1, 100);

  const store = await ctx.store.get();
  const fromDb = ctx.store.status() === 'ok';
  const files = createPhaseIndex({ stateDir: ctx.stateDir, log: ctx.log });
  const phasesOf = (id: string) => mergePhases(files.list(id), fromDb ? store.phases(id) : []);

  if (text !== undefined) {
    const terms = queryTerms(text);
    if (terms.length === 0) throw new QueryError('q must hold a word (letters or digits) to search for');
    // One session: its own phases, ranked here (as hmc_control does); all: the analytics file.
    const found =
      session !== undefined
        ? { hits: rankEntries(phasesOf(session), terms, limit).map((e) => toHit(e, terms)), method: 'scan' }
        : fromDb
          ? store.searchPhases(text, { limit })
          : files.search(text, { limit });
    sendJson(req, res, {
      query: text,
      scope: session === undefined ? 'global' : 'session',
      ...(session !== undefined ? { session_id: session } : {}),
      search: found.method,
      hits: found.hits,
    });
    return;
  }
  const id = session ?? '';
  const phases = phasesOf(id);
  if (phase !== undefined) {
    const one = phases.find((p) => p.phase_id === phase);
    if (!one) {
      sendText(req, res, 404, 'No such phase.');
      return;
    }
    sendJson(req, res, { session_id: id, phase: one });
    return;
  }
  sendJson(req, res, { session_id: id, phases });
};
