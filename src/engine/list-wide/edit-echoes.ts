/**
 * Edit echoes, the engine's side (issue 25; the words are strategies/list-wide/edit-echo.ts, the
 * rule, superseded or old, is input clearing's): which answered edits' outputs should go out
 * without the snippet of the file they echo. list-wide.ts proposes them after clearing, at the
 * passes the price rule allows, like every rewrite of a message already sent.
 *
 * Invariant: never a failed edit (the host's flag, a failure in the tool's own words, any failure
 * word in an output not numbered like a file), never the current step, never a protected tool,
 * never a shell command's output, never a result another rewrite already took.
 */
import { toolKind } from '../../hosts/index.js';
import { editEchoWords } from '../../strategies/list-wide/edit-echo.js';
import { planInputClearing, type FileTouch, type InputCandidate } from '../../strategies/list-wide/input-clearing.js';
import { normalizePath, type FileOp } from '../../strategies/shared/file-ops.js';
import type { PlaceholderStyle } from '../../strategies/list-wide/placeholders.js';
import { reportsFailure } from '../../strategies/shared/signals.js';
import type { FileEvent } from '../../strategies/list-wide/stale-reads.js';
import type { MessageState, Prune } from '../session/held.js';
import type { Protection } from '../session/protection.js';
import type { Session } from '../session/session.js';

/** What list-wide.ts knows of each result (worked out once per message there). */
export interface ResultFacts {
  fileOp(m: MessageState): FileOp | null;
  /** The host, or the engine's judgement, says the call failed. */
  failed(m: MessageState): boolean;
  /** A failure word anywhere in the output. */
  reportsFailure(m: MessageState): boolean;
  /** The ids of the current step's calls. */
  current: ReadonlySet<string>;
  /** The conversation's file events, in order (asked only when some edit qualifies). */
  events(): FileEvent[];
}

/**
 * The keys of the edits and writes whose echoed snippet should go: answered, not failed, not the
 * current step's, no protected tool's, not already rewritten; then superseded (a later read that
 * showed lines, write or edit of the file, not failed) or older than the last `keepCalls`
 * results. An edit whose file is unknown (SWE-agent's `edit`) can only grow old.
 */
export function editEchoes(s: Session, keepCalls: number, protection: Protection, wanted: ReadonlyMap<string, Prune>, facts: ResultFacts): string[] {
  const results = s.rewriteIndex.results;
  const ordinals = new Map<string, number>();
  const candidates: InputCandidate[] = [];
  results.forEach(({ message: m }, ordinal) => {
    ordinals.set(m.key, ordinal);
    const op = facts.fileOp(m);
    if (!editsAFile(m.tool, op) || wanted.has(m.key) || m.prune !== null || facts.current.has(m.key) || protection.tool(m.tool)) return;
    if (facts.failed(m) || m.source.is_error === true || echoFails(m, facts)) return;
    const paths = op !== null && op.op !== 'read' ? op.paths.map((p) => normalizePath(p, s.meta.projectPath)) : [];
    candidates.push({ id: m.key, ordinal, paths, locked: false });
  });
  if (candidates.length === 0) return [];
  const touches: FileTouch[] = facts.events().map((e) => ({ ordinal: ordinals.get(e.id) ?? -1, callId: e.callId, op: e.op.op, paths: e.paths, failed: e.failed, showsLines: e.showsLines }));
  return [...planInputClearing(candidates, touches, { totalCalls: results.length, keepCalls }).keys()];
}

/**
 * An edit tool's or a write tool's result (an editor's create, str_replace, insert). A shell
 * command that wrote a file is not one: numbered lines in its output may be its program's own,
 * not the file's (unsure: left whole).
 */
function editsAFile(tool: string, op: FileOp | null): boolean {
  const kind = toolKind(tool);
  if (kind === 'editor') return op !== null && op.op !== 'read';
  return (kind === 'edit' || kind === 'write') && op?.op !== 'read';
}

/**
 * The output echoes no snippet, or reports a failure: in the tool's own words (what stays when
 * the snippet goes), or anywhere in an output not numbered like a file (the snippet's own
 * `throw new Error` is the file's text, not a report: the invariant checker reads it so too).
 */
function echoFails(m: MessageState, facts: ResultFacts): boolean {
  // Worked out once per result (its raw output and first compression never change): m.memo.
  return m.memo.echoFails(() => {
    const words = typeof m.raw === 'string' ? editEchoWords(m.raw, { tool: m.tool, args: m.args }, '', 'detailed') : null;
    return words === null || reportsFailure(words) || (m.single?.kind !== 'file' && facts.reportsFailure(m));
  });
}

/** An edit's output without the snippet it echoes (null: it echoes none). */
export function echoWords(m: MessageState, recall: string, style: PlaceholderStyle): string | null {
  if (typeof m.raw !== 'string') return null;
  // By style and recall id, worked out once on the message (a pass asks call after call): m.memo.
  const raw = m.raw;
  return m.memo.echoWords(`${style} ${recall}`, () => editEchoWords(raw, { tool: m.tool, args: m.args }, recall, style));
}
