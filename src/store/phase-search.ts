/**
 * Phase search without SQLite's ranking: the words of a query, the FTS5 expression made of them,
 * where they occur in a text (for snippets and for the scans that stand in for FTS5), and a
 * ranking of entries by those occurrences.
 *
 * Invariants: pure functions. The three ways a search is answered (FTS5, a LIKE scan, a scan of
 * the JSONL files) match the same phases: a phase matches when every word of the query starts a
 * word of its topic or summary, case and diacritics ignored (FTS5's unicode61 tokenizer with
 * `remove_diacritics 2` and prefix queries). A query is never passed to FTS5 as syntax: only
 * letters and digits reach it, each word quoted.
 */
import type { PhaseEntry, PhaseHit } from './phase-types.js';

/** At most this many words of a query are used; each at most MAX_TERM characters. */
export const MAX_TERMS = 16;
export const MAX_TERM = 64;
/** Characters of context either side of the first match in a snippet. */
const SNIPPET_CONTEXT = 80;
/** The topic weighs this much more than the summary (also FTS5's bm25 weight). */
export const TOPIC_WEIGHT = 4;

const WORD = /[\p{L}\p{N}]+/gu;

/** Lower case without diacritics, character by character, with where each folded char came from. */
export function fold(text: string): { folded: string; origin: number[] | null } {
  // Plain ASCII folds to itself, one for one (null origin: offsets are the same).
  if (/^[\x00-\x7f]*$/.test(text)) return { folded: text.toLowerCase(), origin: null };
  let folded = '';
  const origin: number[] = [];
  let i = 0;
  for (const ch of text) {
    const f = ch.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
    for (let k = 0; k < f.length; k++) origin.push(i);
    folded += f;
    i += ch.length;
  }
  origin.push(i);
  return { folded, origin };
}

/** The query's words, folded, without repeats; [] when it has none. */
export function queryTerms(query: string): string[] {
  const out: string[] = [];
  for (const m of fold(query).folded.matchAll(WORD)) {
    const term = m[0].slice(0, MAX_TERM);
    if (!out.includes(term)) out.push(term);
    if (out.length >= MAX_TERMS) break;
  }
  return out;
}

/** The FTS5 MATCH expression: every word as a quoted prefix ("auth"* "bug"*). */
export function ftsExpression(terms: readonly string[]): string {
  return terms.map((t) => `"${t}"*`).join(' ');
}

/** Whether a folded character is part of a word (letters and digits, as unicode61 sees words). */
function isWordChar(ch: string | undefined): boolean {
  return ch !== undefined && /[\p{L}\p{N}]/u.test(ch);
}

/** Where the terms start words of `text`: [start, end) offsets into the original text, in order. */
export function matches(text: string, terms: readonly string[]): [number, number][] {
  if (terms.length === 0 || text.length === 0) return [];
  const { folded, origin } = fold(text);
  const out: [number, number][] = [];
  for (const term of terms) {
    let from = 0;
    for (;;) {
      const at = folded.indexOf(term, from);
      if (at < 0) break;
      from = at + 1;
      if (isWordChar(folded[at - 1])) continue;
      // A term ends inside the word it starts: mark the whole word.
      let end = at + term.length;
      while (isWordChar(folded[end])) end++;
      out.push(origin ? [origin[at]!, origin[end]!] : [at, end]);
      from = end;
    }
  }
  return merge(out.sort((a, b) => a[0] - b[0]));
}

function merge(spans: [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  for (const s of spans) {
    const last = out[out.length - 1];
    if (last && s[0] <= last[1]) last[1] = Math.max(last[1], s[1]);
    else out.push([s[0], s[1]]);
  }
  return out;
}

/** Every term starts a word of the topic or the summary (a query without words matches nothing). */
export function entryMatches(topic: string, summary: string, terms: readonly string[]): boolean {
  return terms.length > 0 && terms.every((t) => matches(topic, [t]).length > 0 || matches(summary, [t]).length > 0);
}

/** How well an entry matches: occurrences, the topic weighted TOPIC_WEIGHT times. */
export function score(topic: string, summary: string, terms: readonly string[]): number {
  return TOPIC_WEIGHT * matches(topic, terms).length + matches(summary, terms).length;
}

/**
 * A plain-text excerpt around the first match (of the summary, else the topic), on one line, with
 * the matched words' offsets within it.
 */
export function snippet(
  topic: string,
  summary: string,
  terms: readonly string[],
): { snippet: string; marks: [number, number][] } {
  const inSummary = matches(summary, terms);
  const text = inSummary.length > 0 || matches(topic, terms).length === 0 ? summary : topic;
  const spans = text === summary ? inSummary : matches(topic, terms);
  const first = spans[0]?.[0] ?? 0;
  let start = Math.max(0, first - SNIPPET_CONTEXT);
  let end = Math.min(text.length, first + SNIPPET_CONTEXT * 2);
  // Start and end at word breaks when one is near; never cut a marked word or a surrogate pair.
  if (start > 0) {
    const space = text.slice(start, first).search(/\s/);
    if (space >= 0 && space < 24) start += space + 1;
  }
  if (end < text.length) {
    const back = text.slice(first, end).search(/\s\S*$/);
    if (back >= 0 && end - (first + back) < 24) end = first + back;
  }
  for (const [a, b] of spans) if (a < end && b > end) end = b;
  if (start > 0 && /[\udc00-\udfff]/.test(text[start] ?? '')) start--;
  if (end < text.length && /[\udc00-\udfff]/.test(text[end] ?? '')) end++;
  const prefix = start > 0 ? '…' : '';
  const suffix = end < text.length ? '…' : '';
  // Line breaks and control characters become spaces, one for one, so the offsets still hold.
  // eslint-disable-next-line no-control-regex
  const body = text.slice(start, end).replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, ' ');
  const marks: [number, number][] = [];
  for (const [a, b] of spans) {
    if (a >= end || b <= start) continue;
    marks.push([a - start + prefix.length, b - start + prefix.length]);
  }
  return { snippet: prefix + body + suffix, marks };
}

/** A hit for an entry (no summary: `phase=N` gives the whole of it). */
export function toHit(
  e: Pick<
    PhaseEntry,
    | 'session_id'
    | 'phase_id'
    | 'turn_from'
    | 'turn_to'
    | 'topic'
    | 'summary'
    | 'tokens_before'
    | 'tokens_after'
    | 'recall_id'
    | 'created_at'
  >,
  terms: readonly string[],
): PhaseHit {
  return {
    session_id: e.session_id,
    phase_id: e.phase_id,
    turn_from: e.turn_from,
    turn_to: e.turn_to,
    topic: e.topic,
    tokens_before: e.tokens_before,
    tokens_after: e.tokens_after,
    recall_id: e.recall_id,
    created_at: e.created_at,
    ...snippet(e.topic, e.summary, terms),
  };
}

/** The entries that match every term, best first (ties: newest first), at most `limit`. */
export function rankEntries<E extends Pick<PhaseEntry, 'topic' | 'summary' | 'created_at' | 'session_id' | 'phase_id'>>(
  entries: Iterable<E>,
  terms: readonly string[],
  limit: number,
): E[] {
  const scored: { e: E; s: number }[] = [];
  for (const e of entries) {
    if (!entryMatches(e.topic, e.summary, terms)) continue;
    scored.push({ e, s: score(e.topic, e.summary, terms) });
  }
  scored.sort(
    (a, b) =>
      b.s - a.s ||
      b.e.created_at - a.e.created_at ||
      a.e.session_id.localeCompare(b.e.session_id) ||
      a.e.phase_id - b.e.phase_id,
  );
  return scored.slice(0, Math.max(0, limit)).map((x) => x.e);
}
