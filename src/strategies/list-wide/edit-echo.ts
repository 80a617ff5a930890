/**
 * Edit echoes (list-wide; issue 25): many agents' edit tools answer with a snippet of the edited
 * file: Claude Code's Edit and Write ("The file X has been updated. Here's the result of running
 * `cat -n` on a snippet of the edited file: …"), SWE-agent's edit window, an editor tool's
 * str_replace (a shell command that wrote a file is none: the engine leaves its output whole).
 * Once the edit is answered and superseded (the same file read, written or edited again later by a
 * call that did not fail) or old (older than the last `keep_calls` tool results), that snippet
 * says again what the file, a later message or the recall store holds. The output is then sent
 * with its snippet, and only its snippet, left out: the tool's own words around it (the success
 * line, the path, notes and lint warnings) stay byte for byte, and one marker line in the
 * snippet's place says which lines went and how to get them back.
 *
 * Which outputs qualify is input clearing's rule (input-clearing.ts: superseded or old), applied
 * after keeping out failed calls, the current step, protected tools and shell commands; this file
 * finds the snippet and words the result. `editEcho` is the registered list-wide strategy (kind
 * `edit_echo`), proposed after clearing, which takes an old output whole: an edit's output
 * clearing left (under its size, among the last `keep`, or clearing off) still sheds its snippet.
 *
 * Deterministic: the same output, recall id and style always give the same bytes, so a
 * placeholder once sent is sent again word for word, in this process or a later one.
 *
 * Invariant: never a failed edit (the host's flag, a failure in the tool's own words, any failure
 * word in an output not numbered like a file), never the current step, never a protected tool,
 * never a shell command's output, never a result another rewrite already took.
 */
import { toolKind } from '../../hosts/index.js';
import { parseEnvelope } from '../../hosts/outputs/envelope.js';
import { numberedBlock } from '../../hosts/outputs/file-reads.js';
import { normalizePath, type FileOp } from '../shared/file-ops.js';
import { reportsFailure } from '../shared/signals.js';
import { planInputClearing, type FileTouch, type InputCandidate } from './input-clearing.js';
import type { PlaceholderStyle } from './placeholders.js';
import type { HeldResult, ListWideContext, ListWideStrategy } from './strategy.js';

/** Where the echoed snippet is in an output's main text. */
export interface EchoedSnippet {
  /** Lines [start, end) of the main text, as the tool wrote it, are the file's lines… */
  start: number;
  end: number;
  /** …numbered first..last in the file. */
  first: number;
  last: number;
}

/**
 * The snippet an edit's output echoes: its longest run of at least 3 consecutively numbered lines
 * (`   27→…`, `    27\t…`, SWE-agent's `27:…`), or null when it echoes none.
 */
export function echoedSnippet(lines: readonly string[]): EchoedSnippet | null {
  const block = numberedBlock(lines);
  if (block === null) return null;
  return { start: block.start, end: block.end, first: block.first, last: block.first + (block.end - block.start) - 1 };
}

/** The marker standing for the snippet: its lines, and how to get them back. */
export function echoMarker(snippet: EchoedSnippet, recall: string, style: PlaceholderStyle = 'detailed'): string {
  const lines = `lines ${snippet.first}-${snippet.last}`;
  if (style === 'minimal') return `[${lines} left out (recall id=${recall})]`;
  return `[Snippet of the edited file (${lines}) left out to save context; read the file for its current text (recall id=${recall})]`;
}

/**
 * The words an edit's output is sent with: its main text with the echoed snippet replaced by the
 * marker, everything else as the tool wrote it; null when the output echoes no snippet. (The
 * engine puts these words inside the tool's envelope, as it does every placeholder's.)
 */
export function editEchoWords(
  raw: string,
  call: { tool: string; args: unknown },
  recall: string,
  style: PlaceholderStyle = 'detailed',
): string | null {
  const lines = parseEnvelope(raw, call).rawLines;
  const snippet = echoedSnippet(lines);
  if (snippet === null) return null;
  // A CRLF text's lines end in \r: the marker line gets one too unless it stands last.
  const cr = snippet.end < lines.length && (lines[snippet.end - 1] ?? '').endsWith('\r') ? '\r' : '';
  return [
    ...lines.slice(0, snippet.start),
    `${echoMarker(snippet, recall, style)}${cr}`,
    ...lines.slice(snippet.end),
  ].join('\n');
}

/**
 * The keys of the edits and writes whose echoed snippet should go: answered, not failed, not the
 * current step's, no protected tool's, not already rewritten; then superseded (a later read that
 * showed lines, write or edit of the file, not failed) or older than the last `keepCalls`
 * results. An edit whose file is unknown (SWE-agent's `edit`) can only grow old.
 */
function editEchoes(ctx: ListWideContext, keepCalls: number): string[] {
  const results = ctx.results;
  const current = ctx.currentStep();
  const ordinals = new Map<string, number>();
  const candidates: InputCandidate[] = [];
  results.forEach(({ message: m }, ordinal) => {
    ordinals.set(m.key, ordinal);
    const op = ctx.fileOp(m);
    if (
      !editsAFile(m.tool, op) ||
      ctx.proposed(m.key) !== undefined ||
      m.prune !== null ||
      current.has(m.key) ||
      ctx.protection.tool(m.tool)
    )
      return;
    if (ctx.failed(m) || m.source.is_error === true || echoFails(m, ctx)) return;
    const paths = op !== null && op.op !== 'read' ? op.paths.map((p) => normalizePath(p, ctx.projectPath)) : [];
    candidates.push({ id: m.key, ordinal, paths, locked: false });
  });
  if (candidates.length === 0) return [];
  const touches: FileTouch[] = ctx.fileEvents().map((e) => ({
    ordinal: ordinals.get(e.id) ?? -1,
    callId: e.callId,
    op: e.op.op,
    paths: e.paths,
    failed: e.failed,
    showsLines: e.showsLines,
  }));
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
 * Worked out once per result (its raw output and first compression never change).
 */
function echoFails(m: HeldResult, ctx: ListWideContext): boolean {
  return ctx.once(m, 'edit_echo.fails', '', () => {
    const words =
      typeof m.raw === 'string' ? editEchoWords(m.raw, { tool: m.tool, args: m.args }, '', 'detailed') : null;
    return words === null || reportsFailure(words) || (m.single?.kind !== 'file' && ctx.reportsFailure(m));
  });
}

/** An edit's output without the snippet it echoes (null: it echoes none), worked out once per style and recall id. */
function echoWords(m: HeldResult, ctx: ListWideContext): string | null {
  if (typeof m.raw !== 'string') return null;
  const raw = m.raw;
  const recall = ctx.recallId(m);
  return ctx.once(m, 'edit_echo.words', `${ctx.style} ${recall}`, () =>
    editEchoWords(raw, { tool: m.tool, args: m.args }, recall, ctx.style),
  );
}

export const editEcho: ListWideStrategy<'edit_echo'> = {
  name: 'edit_echo',
  kinds: ['edit_echo'],
  config: 'strategies.edit_echo',
  recallsAny: true,
  propose(ctx) {
    for (const key of editEchoes(ctx, ctx.config.strategies.edit_echo.keep_calls)) {
      const m = ctx.message(key) as HeldResult;
      const words = echoWords(m, ctx);
      if (words !== null) ctx.propose(m, 'edit_echo', words);
    }
  },
  rewords(_kind, m, ctx) {
    const text = echoWords(m, ctx);
    return text === null ? null : { text, extra: {} };
  },
};
