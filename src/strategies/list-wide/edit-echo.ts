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
 * Which outputs qualify is input clearing's rule (input-clearing.ts: superseded or old), which the
 * engine applies (engine/list-wide/list-wide.ts) after keeping out failed calls, the current step and
 * protected tools; this file finds the snippet and words the result.
 *
 * Pure and deterministic: the same output, recall id and style always give the same bytes, so a
 * placeholder once sent is sent again word for word, in this process or a later one.
 */
import { parseEnvelope } from '../../hosts/outputs/envelope.js';
import { numberedBlock } from '../../hosts/outputs/file-reads.js';
import type { PlaceholderStyle } from './placeholders.js';

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
export function editEchoWords(raw: string, call: { tool: string; args: unknown }, recall: string, style: PlaceholderStyle = 'detailed'): string | null {
  const lines = parseEnvelope(raw, call).rawLines;
  const snippet = echoedSnippet(lines);
  if (snippet === null) return null;
  // A CRLF text's lines end in \r: the marker line gets one too unless it stands last.
  const cr = snippet.end < lines.length && (lines[snippet.end - 1] ?? '').endsWith('\r') ? '\r' : '';
  return [...lines.slice(0, snippet.start), `${echoMarker(snippet, recall, style)}${cr}`, ...lines.slice(snippet.end)].join('\n');
}
