/**
 * Is this output a document (a web page, docs, a manual, help text, a report, a data file)
 * rather than a log? A document's answer is an ordinary sentence with no keyword, anywhere in
 * it, so truncation never cuts one below a generous size (docs/engine.md, "What may be cut").
 *
 * Signals, any of which suffices: a web/fetch/browser tool or a subagent's report; a shell command that prints a page,
 * a manual or a prose/data file; or the text itself (HTML, one JSON document, or mostly
 * sentences and few log-shaped lines).
 *
 * Invariant: a guess towards "document" only costs savings; logs with a few sentences in them
 * (build output, test runs, server logs) stay logs.
 */
import { LOG_SHAPED } from '../../hosts/outputs/log-text.js';
import { commandOf, isDocumentCommand } from '../../hosts/outputs/shell-command.js';
import type { ToolOutput } from '../../core/strategy.js';

/** Web, docs and browser tools, and subagents (Claude Code's `Task`: its report is prose). */
const DOC_TOOL =
  /web|fetch|brows|scrap|crawl|extract|url|http|wiki|docs?(?:_|\b)|page|snapshot|tavily|exa_|perplexity|firecrawl|context7|^(?:task|agent|dispatch_agent|subagent|delegate_task)$/i;
const SAMPLE_LINES = 200;
/** After this many lines, a sample already clearly a log stops being read. */
const EARLY_VERDICT = 30;
/** A token that is a plain word (any script), perhaps quoted, bracketed or followed by punctuation. */
const WORD_TOKEN = /^[("'«“¿¡]?\p{L}[\p{L}\p{M}'’-]*[)"'»”.,;:!?]*$/u;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;
const HEADING = /^#{1,6}\s+\S/;

/** Six or more plain words making at least half the line's tokens (or a dozen CJK characters). */
function isSentence(line: string): boolean {
  if (line.length < 12) return false;
  const cjk = line.match(CJK)?.length ?? 0;
  if (cjk >= 12) return true;
  const tokens = line.trim().split(/\s+/);
  let words = 0;
  for (const t of tokens) if (WORD_TOKEN.test(t)) words++;
  return words >= 6 && words * 2 >= tokens.length;
}

/** One JSON document (an API response, `cat package.json`), not a code excerpt that happens to start with `{`. */
function isJson(body: string): boolean {
  if (body.length > MAX_JSON_CHARS) return false;
  try {
    JSON.parse(body);
    return true;
  } catch {
    return false;
  }
}
const MAX_JSON_CHARS = 1_000_000;

/** True when the text reads as a document: HTML, one JSON value, or prose/markdown/help text. */
export function looksLikeDocument(text: string, lines: readonly string[]): boolean {
  const body = text.trim();
  if (/^<(?:!doctype|html|\?xml)/i.test(body)) return true;
  if (lines.length >= 10 && /^[[{]/.test(body) && isJson(body)) return true;
  let nonBlank = 0;
  let sentences = 0;
  let logShaped = 0;
  let headings = 0;
  let templated = 0;
  let previousOpening = '';
  let fenced = false;
  for (let i = 0; i < lines.length && i < SAMPLE_LINES; i++) {
    const line = lines[i] ?? '';
    // Code blocks inside a markdown report are neither prose nor log: not counted.
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced || line.trim() === '') continue;
    nonBlank++;
    // A tool prints the same opening line after line ("Requirement already satisfied: …"); prose does not.
    const opening = line.trim().split(/\s+/, 2).join(' ');
    if (opening === previousOpening) templated++;
    previousOpening = opening;
    if (LOG_SHAPED.test(line)) logShaped++;
    else if (isSentence(line)) sentences++;
    if (HEADING.test(line)) headings++;
    if (nonBlank === EARLY_VERDICT && (logShaped > nonBlank * 0.5 || templated > nonBlank * 0.6)) return false;
  }
  if (nonBlank === 0) return false;
  if (logShaped > nonBlank * 0.2 || templated > nonBlank * 0.3) return false;
  return sentences >= nonBlank * 0.4 || (headings >= 2 && sentences >= nonBlank * 0.25);
}

/** True when the output is a document; see the header. */
export function isDocument(output: ToolOutput): boolean {
  if (output.kind === 'file' || output.kind === 'search') return false;
  if (output.kind === 'text' && DOC_TOOL.test(output.tool)) return true;
  if (isDocumentCommand(commandOf(output.args))) return true;
  return looksLikeDocument(output.text, output.lines);
}
