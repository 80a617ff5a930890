/**
 * Input clearing (list-wide; issue 15): the counterpart of `clear_tool_inputs` in Anthropic's
 * context editing. The bulky arguments of an answered call that wrote a file (a write, an edit or
 * patch, a shell here-document) are sent short once they are no longer needed whole:
 *
 * - **superseded**: the same file was written, edited or read again later, by a call that did
 *   not fail (a read must have shown lines): the newer state is in the context or the file;
 * - **old**: the call is older than the last `keepCalls` tool calls, so the model always sees its
 *   own recent calls whole.
 *
 * Never: a failed call (its arguments explain the failure), a call of the current step (the
 * latest assistant message's calls, whose results the model is about to read), a call not
 * answered yet, a locked one (a protected tool the user named, or excluded). Whether a change to a
 * message already sent is worth its cache break is the engine's call (the price rule), not this
 * function's.
 *
 * Pure: a function of the calls and file events it is given.
 */
import { fileName, samePath } from '../shared/file-ops.js';

/** One call whose arguments could be cleared, in conversation order. */
export interface InputCandidate {
  /** The call id. */
  id: string;
  /** Its place among all the conversation's tool calls (0 = the first call). */
  ordinal: number;
  /** The files it writes (normalised); none known: only the age rule applies. */
  paths: readonly string[];
  /** Never cleared: failed, unanswered, the current step, a protected or excluded tool. */
  locked: boolean;
}

/** A later call that touched a file (from its result), for the superseded rule. */
export interface FileTouch {
  /** The call's place among all tool calls. */
  ordinal: number;
  callId: string;
  op: 'read' | 'write' | 'patch';
  paths: readonly string[];
  failed: boolean;
  /** A read that showed the file's lines (not a stub or an error). */
  showsLines: boolean;
}

/** Why a call's arguments are cleared: superseded by a later call (its id), or old. */
export type InputClearing = { reason: 'superseded'; by: string } | { reason: 'old' };

export interface InputClearingOptions {
  /** Every tool call of the conversation so far. */
  totalCalls: number;
  /** The most recent calls whose arguments stay whole (the superseded rule may clear them). */
  keepCalls: number;
}

/** The candidates to clear, by id, with their reason (superseded is named when both apply). */
export function planInputClearing(
  candidates: readonly InputCandidate[],
  touches: readonly FileTouch[],
  opts: InputClearingOptions,
): Map<string, InputClearing> {
  const out = new Map<string, InputClearing>();
  const byName = touchesByName(touches);
  const oldBefore = opts.totalCalls - opts.keepCalls;
  for (const c of candidates) {
    if (c.locked) continue;
    const by = supersededBy(c, byName);
    if (by !== null) out.set(c.id, { reason: 'superseded', by });
    else if (c.ordinal < oldBefore) out.set(c.id, { reason: 'old' });
  }
  return out;
}

/** The id of the first later call that touched one of the candidate's files and did not fail, or null. */
function supersededBy(c: InputCandidate, byName: ReadonlyMap<string, readonly FileTouch[]>): string | null {
  for (const path of c.paths) {
    for (const t of byName.get(fileName(path)) ?? []) {
      if (t.ordinal <= c.ordinal || t.failed || (t.op === 'read' && !t.showsLines)) continue;
      if (t.paths.some((p) => samePath(p, path))) return t.callId;
    }
  }
  return null;
}

/** Touches grouped by file name, in order (only events on the same name can match). */
function touchesByName(touches: readonly FileTouch[]): Map<string, FileTouch[]> {
  const out = new Map<string, FileTouch[]>();
  for (const t of touches) {
    for (const name of new Set(t.paths.map(fileName))) {
      const list = out.get(name);
      if (list) list.push(t);
      else out.set(name, [t]);
    }
  }
  for (const list of out.values()) list.sort((a, b) => a.ordinal - b.ordinal);
  return out;
}
