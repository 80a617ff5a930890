/**
 * Which finished part of a conversation layer 1 may summarise (issue 10, DESIGN §6), chosen the way
 * Hermes' own compressor guards its cut points: the head (system prompt and the task) and the
 * recent tail stay; a tool call is never separated from its results; the latest user message is
 * never summarised; a range that already holds a summary is extended and updated, never
 * summarised a second time.
 *
 * The tail kept: the last `protectTurns` user turns, except that in one long tool loop the
 * current turn's model calls older than its last `protectCalls` are finished work too (most real
 * sessions are one user turn with hundreds of calls).
 *
 * Pure: a function of the message shapes it is given.
 */

/** What the chooser needs to know of each held message. */
export interface RangeMessage {
  role: string;
  /** Tokens it is sent with now (an estimate is fine). */
  tokens: number;
}

/** A range already summarised (message indices, inclusive). */
export interface PhaseSpan {
  id: number;
  from: number;
  to: number;
}

export interface RangeOptions {
  protectTurns: number;
  protectCalls: number;
  /** A new range must be at least this many tokens (a summary of less saves nothing). */
  minTokens: number;
}

export interface ChosenRange {
  from: number;
  to: number;
  /** The phase this range extends (its summary is updated), if any. */
  extends?: number;
  /** Tokens of the range as sent now. */
  tokens: number;
}

/** The range to summarise now, or null when nothing finished is worth it. */
export function chooseRange(
  messages: readonly RangeMessage[],
  phases: readonly PhaseSpan[],
  opts: RangeOptions,
): ChosenRange | null {
  const users: number[] = [];
  messages.forEach((m, i) => {
    if (m.role === 'user') users.push(i);
  });
  if (users.length === 0) return null;
  const lastUser = users[users.length - 1] as number;
  // The head: everything up to and including the first user message (system prompt, the task).
  const head = (users[0] as number) + 1;
  // Finished work lies in two places, never across the latest user message (never summarised):
  // the turns before the protected ones, and the older calls of a long current tool loop.
  const regions: [number, number][] = [];
  const protectedTurns = users[Math.max(0, users.length - opts.protectTurns)] as number;
  if (protectedTurns > head) regions.push([head, protectedTurns]);
  const loopStart = longLoopTail(messages, lastUser, opts.protectCalls);
  if (loopStart !== null) regions.push([lastUser + 1, loopStart]);
  const last = phases.length > 0 ? phases[phases.length - 1] : undefined;
  for (const [start, end] of regions) {
    // A range starts at a model call (an assistant message) and ends where one begins, so no
    // call is cut from its results.
    let from = start;
    let extend: number | undefined;
    if (last && last.from >= start && last.to < end) {
      // The latest phase lies here: extend it (its summary is updated) or, when nothing new
      // finished since, leave it.
      if (last.to + 1 >= end) continue;
      from = last.from;
      extend = last.id;
    } else if (last && last.to >= start) {
      from = Math.max(start, last.to + 1);
    }
    while (from < end && messages[from]?.role !== 'assistant') from++;
    if (from >= end) continue;
    const fresh = tokensBetween(messages, extend !== undefined && last ? last.to + 1 : from, end);
    if (fresh < opts.minTokens) continue;
    return {
      from,
      to: end - 1,
      tokens: tokensBetween(messages, from, end),
      ...(extend !== undefined ? { extends: extend } : {}),
    };
  }
  return null;
}

/**
 * In a long tool loop after the latest user message, the index where its last `protectCalls`
 * model calls begin (older calls are finished work); null when the loop is not that long.
 */
function longLoopTail(messages: readonly RangeMessage[], lastUser: number, protectCalls: number): number | null {
  let calls = 0;
  for (let i = messages.length - 1; i > lastUser; i--) {
    if (messages[i]?.role !== 'assistant') continue;
    calls++;
    if (calls === protectCalls) return i > lastUser + 1 ? i : null;
  }
  return null;
}

function tokensBetween(messages: readonly RangeMessage[], from: number, to: number): number {
  let n = 0;
  for (let i = Math.max(0, from); i < to; i++) n += (messages[i] as RangeMessage).tokens;
  return n;
}
