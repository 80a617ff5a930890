/**
 * Checking and cleaning phase entries before they are written anywhere, and the guard for
 * entries read back from disk.
 *
 * Invariants: a cleaned entry holds exactly the PhaseEntry fields (anything else the caller
 * passed, such as a raw message or a tool's arguments, is never written); numbers are whole and
 * within range; a topic is one line of at most TOPIC_MAX characters; a summary at most
 * SUMMARY_MAX. Nothing here throws: a bad entry gets a sentence naming the field.
 */
import type { PhaseEntry } from './phase-types.js';

export const TOPIC_MAX = 200;
/** A summary is a few thousand tokens at most; anything longer is cut here, with a note. */
export const SUMMARY_MAX = 64 * 1024;

const COUNTS = [
  'phase_id',
  'message_from',
  'message_to',
  'turn_from',
  'turn_to',
  'tokens_before',
  'tokens_after',
  'updates',
] as const;
const TEXTS = ['session_id', 'topic', 'summary', 'recall_id', 'model'] as const;

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** Why `entry` cannot be indexed (a sentence naming the field), or null when it can. */
export function phaseProblem(entry: unknown): string | null {
  if (!isObject(entry)) return 'the entry is not an object';
  for (const key of TEXTS) if (typeof entry[key] !== 'string') return `${key} must be a string`;
  if (entry.session_id === '') return 'session_id is empty';
  for (const key of COUNTS)
    if (!isCount(entry[key]))
      return `${key} must be a whole number of 0 or more, got ${JSON.stringify(entry[key]) ?? 'nothing'}`;
  if (entry.phase_id === 0) return 'phase_id must be 1 or more';
  if ((entry.message_from as number) > (entry.message_to as number)) return 'message_from is after message_to';
  if ((entry.turn_from as number) > (entry.turn_to as number)) return 'turn_from is after turn_to';
  if (typeof entry.created_at !== 'number' || !Number.isFinite(entry.created_at) || entry.created_at <= 0)
    return 'created_at must be a time in milliseconds';
  return null;
}

/** True when a value read back from disk is a complete entry (torn or foreign lines are skipped). */
export function isPhaseEntry(v: unknown): v is PhaseEntry {
  return phaseProblem(v) === null;
}

/** One line of text: control characters and line breaks become spaces, cut at TOPIC_MAX. */
export function oneLine(text: string, max = TOPIC_MAX): string {
  // eslint-disable-next-line no-control-regex
  const line = text
    .replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The entry with exactly the index's fields, a one-line topic and a bounded summary. */
export function cleanPhase(entry: PhaseEntry): PhaseEntry {
  const summary =
    entry.summary.length > SUMMARY_MAX
      ? `${entry.summary.slice(0, SUMMARY_MAX)}\n… (summary cut at ${SUMMARY_MAX} characters in the index)`
      : entry.summary;
  return {
    session_id: entry.session_id,
    phase_id: entry.phase_id,
    message_from: entry.message_from,
    message_to: entry.message_to,
    turn_from: entry.turn_from,
    turn_to: entry.turn_to,
    topic: oneLine(entry.topic) || 'untitled',
    summary,
    tokens_before: entry.tokens_before,
    tokens_after: entry.tokens_after,
    recall_id: entry.recall_id,
    model: oneLine(entry.model),
    created_at: Math.floor(entry.created_at),
    updates: entry.updates,
  };
}

/**
 * `next` in place of `prev` (the same phase, its range grown): the phase keeps the time it was
 * first summarised.
 */
export function replacePhase(prev: PhaseEntry | undefined, next: PhaseEntry): PhaseEntry {
  return prev ? { ...next, created_at: Math.min(prev.created_at, next.created_at) } : next;
}

/**
 * One session's phases from two sources (its index file and the analytics file): per phase the
 * more updated entry, the first source's on a tie; by phase_id.
 */
export function mergePhases(first: readonly PhaseEntry[], second: readonly PhaseEntry[]): PhaseEntry[] {
  const byId = new Map<number, PhaseEntry>();
  for (const e of second) byId.set(e.phase_id, e);
  for (const e of first) {
    const other = byId.get(e.phase_id);
    if (!other || e.updates >= other.updates) byId.set(e.phase_id, e);
  }
  return [...byId.values()].sort((a, b) => a.phase_id - b.phase_id);
}
