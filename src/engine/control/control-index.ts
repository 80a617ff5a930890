/**
 * `hmc_control action=index`: the session index of summarised phases. Without arguments it lists
 * this session's phases (oldest first, newest last); `query=…` searches them (`scope=global`: every
 * session's); `phase=N` answers one phase with its whole summary; `session=ID` reads another
 * session's index instead of this one. `/hmc index …` gets the same answers as text.
 *
 * Invariants: read-only; a bad argument gets an error naming it, never a throw; answers carry
 * summaries, topics and numbers only (the raw range is behind `recall id=…`); another user's
 * session reads as a session with no phases, and its hits are never among a search's (owner.ts).
 */
import type { PhaseEntry, PhaseHit, PhaseIndex } from '../../store/phase-types.js';
import { mayRead, OPEN_ACCESS, type IndexAccess } from '../session/owner.js';
import { num as figure, table } from '../../core/text-table.js';

/** A search whose hits are filtered by owner asks the index for this many times the hits it answers. */
const FILTERED_SEARCH_FACTOR = 20;

export const INDEX_LIMIT_DEFAULT = 10;
export const INDEX_LIMIT_MAX = 100;
const QUERY_MAX = 500;
const SCOPES = ['session', 'global'] as const;

const HOW =
  "phase=N shows a phase's whole summary; query=words searches (scope=global: all sessions); recall id=<recall_id> gives the exact original messages back";

export interface IndexArgs {
  query?: unknown;
  scope?: unknown;
  phase?: unknown;
  session?: unknown;
  limit?: unknown;
}

function given(v: unknown): boolean {
  return v !== undefined && v !== null && v !== '';
}

function shown(v: unknown): string {
  const text = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

function wholeNumber(v: unknown, name: string, min: number, max: number): number | string {
  const n = typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max)
    return `${name} must be a whole number from ${min} to ${max}, got ${shown(v)}`;
  return n;
}

/** turns "3-7" (one turn: "3"). */
function turns(p: { turn_from: number; turn_to: number }): string {
  return p.turn_from === p.turn_to ? String(p.turn_from) : `${p.turn_from}-${p.turn_to}`;
}

function listed(p: PhaseEntry): Record<string, unknown> {
  return {
    phase_id: p.phase_id,
    turns: turns(p),
    topic: p.topic,
    tokens_before: p.tokens_before,
    tokens_after: p.tokens_after,
    recall_id: p.recall_id,
    updates: p.updates,
  };
}

function hit(h: PhaseHit): Record<string, unknown> {
  return {
    session_id: h.session_id,
    phase_id: h.phase_id,
    turns: turns(h),
    topic: h.topic,
    snippet: h.snippet,
    tokens_before: h.tokens_before,
    tokens_after: h.tokens_after,
    recall_id: h.recall_id,
  };
}

/**
 * The answer to `index` for the session `current` (null when no session has started: only a
 * search across sessions, or another named session, can be answered then).
 */
export function indexAction(
  index: PhaseIndex,
  current: string | null,
  args: IndexArgs,
  access: IndexAccess = OPEN_ACCESS,
): Record<string, unknown> {
  const named = given(args.session) ? String(args.session).trim() : '';
  const sessionId = named || current;
  const scope = given(args.scope) ? String(args.scope).trim().toLowerCase() : 'session';
  if (!(SCOPES as readonly string[]).includes(scope))
    return { error: `scope must be session or global, got ${shown(args.scope)}` };
  if (given(args.query) && given(args.phase))
    return { error: 'give query=… to search or phase=N to read one phase, not both' };

  if (given(args.query)) {
    const query = String(args.query);
    if (query.length > QUERY_MAX)
      return { error: `query must be at most ${QUERY_MAX} characters, got ${query.length}` };
    if (!/[\p{L}\p{N}]/u.test(query)) return { error: `query has no word to search for, got ${shown(query)}` };
    const limit = given(args.limit) ? wholeNumber(args.limit, 'limit', 1, INDEX_LIMIT_MAX) : INDEX_LIMIT_DEFAULT;
    if (typeof limit === 'string') return { error: limit };
    if (scope === 'session' && !sessionId)
      return { error: 'no session has started in this process yet: search all sessions with scope=global' };
    const readable = (id: string): boolean => id === current || mayRead(access, id);
    const filtered = !access.acrossUsers && scope === 'global';
    const found =
      scope === 'session' && sessionId && !readable(sessionId)
        ? { hits: [], method: 'scan' as const }
        : index.search(query, {
            limit: filtered
              ? Math.min(INDEX_LIMIT_MAX * FILTERED_SEARCH_FACTOR, limit * FILTERED_SEARCH_FACTOR)
              : limit,
            ...(scope === 'session' && sessionId ? { sessionId } : {}),
          });
    const hits = (filtered ? found.hits.filter((h) => readable(h.session_id)) : found.hits).slice(0, limit);
    return {
      query,
      scope,
      ...(scope === 'session' ? { session_id: sessionId } : {}),
      search: found.method,
      count: hits.length,
      hits: hits.map(hit),
      ...(hits.length > 0 ? { how: HOW } : {}),
    };
  }
  if (given(args.limit)) return { error: 'limit applies to a search (query=…)' };
  if (scope === 'global') return { error: 'scope=global applies to a search: give query=…' };
  if (!sessionId)
    return { error: 'Could not determine session for hmc_control (no session has started in this process yet).' };
  // Another user's session answers as one with no phases: nothing of it, not even that it has some.
  const phases = sessionId === current || mayRead(access, sessionId) ? index.list(sessionId) : [];

  if (given(args.phase)) {
    const id = wholeNumber(args.phase, 'phase', 1, Number.MAX_SAFE_INTEGER);
    if (typeof id === 'string') return { error: id };
    const p = phases.find((e) => e.phase_id === id);
    if (!p) {
      const known =
        phases.length === 0 ? 'it has none yet' : `its phases are ${phases.map((e) => e.phase_id).join(', ')}`;
      return { error: `no phase ${id} in session ${shown(sessionId)}: ${known}` };
    }
    return { session_id: sessionId, phase: { ...p, turns: turns(p) }, how: HOW };
  }
  return {
    session_id: sessionId,
    count: phases.length,
    entries: phases.map(listed),
    ...(phases.length > 0
      ? { how: HOW }
      : { note: 'no phase summarised yet (layer 1 summarises finished work when the context fills)' }),
  };
}

function k(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(2)}M`;
  if (n >= 1000) return `${(n / 1000).toFixed(1)}K`;
  return String(Math.round(n));
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

/** Phases as an aligned table: number, turns, tokens before and after, the recall id, the topic last. */
function phaseTable(rows: Record<string, unknown>[], withSession: boolean): string {
  return table(
    [...(withSession ? ['session'] : []), 'phase', 'turns', 'tokens before', 'after', 'recall id', 'topic'],
    rows.map((p) => [
      ...(withSession ? [String(p.session_id)] : []),
      String(num(p.phase_id)),
      String(p.turns),
      figure(num(p.tokens_before)),
      figure(num(p.tokens_after)),
      String(p.recall_id),
      String(p.topic),
    ]),
  );
}

/** `/hmc index …` as text for a person; `how` starts the commands its hints name (`/hmc`, `hermes hmc control`). */
export function indexText(result: Record<string, unknown>, how = '/hmc'): string {
  if (typeof result.error === 'string') return `hmc: ${result.error}`;
  const p = result.phase;
  if (isRecord(p)) {
    const updated = num(p.updates) > 0 ? `, updated ${num(p.updates)}×` : '';
    return [
      `Phase ${num(p.phase_id)} of session ${String(result.session_id)}: turns ${String(p.turns)}, ${k(num(p.tokens_before))} → ${k(num(p.tokens_after))} tokens${updated}, recall id=${String(p.recall_id)}`,
      `Topic: ${String(p.topic)}`,
      '',
      String(p.summary),
    ].join('\n');
  }
  if (Array.isArray(result.hits)) {
    const where = result.scope === 'global' ? 'all sessions' : 'this session';
    const rows = result.hits.filter(isRecord);
    if (rows.length === 0) return `HMC index: no phase matches ${JSON.stringify(result.query)} in ${where}`;
    const global = result.scope === 'global';
    const out = [
      `HMC index: ${rows.length} ${rows.length === 1 ? 'phase matches' : 'phases match'} ${JSON.stringify(result.query)} in ${where}`,
      '',
      phaseTable(rows, global),
      '',
    ];
    for (const h of rows)
      out.push(`${global ? `${String(h.session_id)} ` : ''}#${num(h.phase_id)}: ${String(h.snippet)}`);
    out.push('', `${how} index phase=N shows a summary (session=ID for another session)`);
    return out.join('\n');
  }
  const rows = Array.isArray(result.entries) ? result.entries.filter(isRecord) : [];
  if (rows.length === 0) return 'HMC index: no phase summarised in this session yet';
  return [
    `HMC index: ${rows.length} ${rows.length === 1 ? 'phase' : 'phases'} summarised in this session`,
    '',
    phaseTable(rows, false),
    '',
    `${how} index phase=N shows a summary; ${how} index <words> searches; ${how} recall id=… gives the original back`,
  ].join('\n');
}
