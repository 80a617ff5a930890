/**
 * What the list-wide pass reads of each tool result, worked out once per message and kept on the
 * message itself (`MessageState.listWide`): what it did to a file and how to put a placeholder
 * inside its envelope (one parse of the envelope for both), its recall id, whether its text
 * reports a failure; and the pass's views of the held list built from them (file events, the
 * current step, the characters a message is sent with).
 *
 * Invariant: a memo holds only what follows from the message's raw output, key and arguments,
 * which never change once held; nothing here writes anything but a message's memo.
 */
import { parseEnvelope } from '../../hosts/outputs/envelope.js';
import { fileOpOf, normalizePath, type FileOp } from '../../strategies/shared/file-ops.js';
import type { FileEvent } from '../../strategies/list-wide/strategy.js';
import { STRATEGY_OF_KIND } from '../../strategies/index.js';
import type { ListWideMemo, MessageState, Prune, PruneKind } from '../session/held.js';
import type { Protection } from '../session/protection.js';
import { recallId } from '../session/recall.js';
import type { IndexedResult } from '../session/rewrite-index.js';
import type { Session } from '../session/session.js';

/** The message's memo (made on first use). */
export function memoOf(m: MessageState): ListWideMemo {
  if (!m.listWide) m.listWide = {};
  return m.listWide;
}

const NO_OP = { op: null, shows: false } as const;
const SAME = (text: string): string => text;
/** A placeholder put in a text envelope (or a JSON one without a main text) is the result itself. */
const PROBE = '\u0000';

/** Parses the envelope once: what the result did to a file, and how to put a placeholder inside it. */
function parsed(m: MessageState): ListWideMemo & Required<Pick<ListWideMemo, 'fileOp' | 'placeholder'>> {
  const memo = memoOf(m);
  if (!memo.fileOp || !memo.placeholder) {
    if (typeof m.raw !== 'string') {
      memo.fileOp = NO_OP;
      memo.placeholder = SAME;
    } else {
      const envelope = parseEnvelope(m.raw, { tool: m.tool, args: m.args });
      const output = envelope.output;
      const op = fileOpOf(output);
      memo.fileOp = {
        op,
        shows:
          op?.op === 'read' &&
          (output.fileLines !== undefined
            ? output.fileLines.end > output.fileLines.start
            : output.text.trim().length > 0),
      };
      // Kept as the identity when the envelope puts a placeholder as it is: the envelope's lines
      // are then not held on (a long conversation holds many outputs).
      memo.placeholder = envelope.withPlaceholder(PROBE) === PROBE ? SAME : envelope.withPlaceholder;
    }
  }
  return memo as ListWideMemo & Required<Pick<ListWideMemo, 'fileOp' | 'placeholder'>>;
}

/** What the result did to a file (null: nothing known), and whether a read showed lines. */
export function fileOpFor(m: MessageState): { op: FileOp | null; shows: boolean } {
  return parsed(m).fileOp;
}

/** The result with `text` as its placeholder, inside its envelope (exit codes survive). */
export function placeholderOf(m: MessageState, text: string): string {
  return parsed(m).placeholder(text);
}

export function recallIdOf(s: Session, m: MessageState): string {
  const memo = memoOf(m);
  if (memo.recallId === undefined) memo.recallId = recallId(s.id, m.key);
  return memo.recallId;
}

/** A failure word anywhere in the output (one answer per message, shared with input clearing: `m.memo`). */
export function outputReportsFailure(m: MessageState): boolean {
  return m.memo.failed;
}

/** The call of this result failed (the host said so, or its output reports it). */
export function isFailed(s: Session, m: MessageState): boolean {
  return s.held.records.get(m.key)?.isError === true || m.single?.isError === true;
}

/** The read this tool result is, if it is one. */
export function readOf(m: MessageState): { path: string; span: { first: number; last: number } } | undefined {
  const op = fileOpFor(m).op;
  return op?.op === 'read' ? { path: op.path, span: op.span } : undefined;
}

/**
 * A placeholder of this result names a recall id: anything but a file read, which is read again.
 * An output numbered like a read (an edit's that echoes the file) is kept when `kind`'s marker
 * names a recall id whatever the output (the strategies that say `recallsAny`: clearing's, edit echo's).
 */
export function keptForRecall(m: MessageState, kind?: PruneKind): boolean {
  return (
    readOf(m) === undefined &&
    (m.single?.kind !== 'file' || (kind !== undefined && STRATEGY_OF_KIND.get(kind)?.recallsAny === true))
  );
}

/** The file events of the conversation, in order, for stale reads, edit echoes and input clearing. */
export function fileEvents(
  s: Session,
  results: readonly IndexedResult[],
  protection: Protection,
  wanted: ReadonlyMap<string, Prune>,
): FileEvent[] {
  const events: FileEvent[] = [];
  for (const { message: m } of results) {
    const parsedOp = fileOpFor(m);
    if (!parsedOp.op) continue;
    if (parsedOp.op.op === 'read' && protection.file(parsedOp.op.path)) continue;
    const prune = wanted.get(m.key) ?? m.prune;
    events.push({
      id: m.key,
      callId: m.key.startsWith('#') ? '' : m.key,
      tool: m.tool,
      op: parsedOp.op,
      paths: normalizedPaths(m, parsedOp.op, s.meta.projectPath),
      failed: isFailed(s, m),
      // A read now sent as a placeholder (a repeat, a dedup) shows no lines to supersede others with.
      showsLines: parsedOp.shows && (prune === undefined || prune === null),
    });
  }
  return events;
}

/** The paths `op` names, normalised against `project` (worked out once per message and project). */
function normalizedPaths(m: MessageState, op: FileOp, project: string): string[] {
  const memo = memoOf(m);
  if (memo.paths?.project !== project) {
    const paths = op.op === 'read' ? [op.path] : op.paths;
    memo.paths = { project, paths: paths.map((p) => normalizePath(p, project)) };
  }
  return memo.paths.paths;
}

/** The characters a message is sent with after `wanted` (an estimate's input: chars / 4 ≈ tokens). */
export function sentChars(m: MessageState, wanted: ReadonlyMap<string, Prune>): number {
  const planned = m.role === 'tool' ? wanted.get(m.key) : undefined;
  const view = planned ? planned.content : m.prune ? m.prune.content : m.single ? m.single.content : m.raw;
  const extra = m.inputs ? m.inputs.extra : m.extra;
  return typeof view === 'string' ? view.length + extra.length : extra.length + 200;
}

/** The ids of the calls of the latest assistant message that made any (the current step). */
export function currentStepCalls(s: Session): Set<string> {
  for (let i = s.held.messages.length - 1; i >= 0; i--) {
    const m = s.held.messages[i] as MessageState;
    const calls = m.role === 'assistant' ? m.source.tool_calls : undefined;
    if (Array.isArray(calls) && calls.length > 0)
      return new Set(calls.map((c) => (typeof c?.id === 'string' ? c.id : '')).filter((id) => id !== ''));
  }
  return new Set();
}
