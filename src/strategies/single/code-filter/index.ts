/**
 * The code filter (layer 0): in source code the agent reads, function and method bodies become
 * one honest marker line naming the lines it stands for (`// … 12 lines elided (40–51)`, in the
 * file's own line numbers, so the agent can read them again with its own tool) while everything
 * else — imports, constants, types, signatures, class/impl/trait members, fields, doc comments,
 * docstrings, statements raising an error with a written message, and every line it does not
 * understand — is kept byte for byte.
 *
 * Invariants (DESIGN §4.1, §6; reference §14 B5, the original's output-erasing detection):
 * - Whole-output mode only for a file read (`kind === 'file'`) whose extension names an enabled
 *   language; never for search results, logs, web pages, YAML, Markdown or JSON, whatever they
 *   mention. Only the file's own lines are filtered: a tool's header and trailer around them
 *   (`[File: …]`, a `<system-reminder>` block) stay as they are.
 * - A read whose line numbers are unknown, or a short window that starts after line 1 (the agent
 *   asked for those very lines), is left whole.
 * - In any other output, only the bodies of fences tagged with an enabled language are filtered;
 *   prose and other fences are kept line for line.
 * - Errors, short outputs, binary-looking text and scans that end confused are skipped, as are
 *   plans that would save nothing. The answer is a plan of kept line indices (strictly increasing)
 *   and markers; the engine puts gutters and line endings back.
 */
import type { HmcConfig } from '../../../config/keys.js';
import type { FileLines, LinePlanItem, StrategyResult, ToolOutput } from '../../../core/strategy.js';
import { keptLines, skipped } from '../../../core/strategy.js';
import type { Language } from './languages.js';
import { isJsxPath, isLanguage, languageForPath } from './languages.js';
import { filterFences, filterSource } from './source.js';

/**
 * A read starting after line 1 that shows fewer lines than this is a look at chosen lines (a
 * `sed -n '120,140p'`, a Read with offset and limit) and stays whole; a longer one is a page of a
 * file read through (SWE-agent's 100-line window, Codex's `sed -n '200,400p'`) and is filtered.
 */
export const MIN_WINDOW_LINES = 100;

export type { Language } from './languages.js';
export { languageForPath } from './languages.js';

/** Elides function bodies in a source file read, or in fenced source blocks of any other output. */
export function codeFilter(output: ToolOutput, cfg: HmcConfig['code_filter']): StrategyResult {
  if (!cfg.enabled) return skipped('code filter disabled');
  if (output.isError) return skipped('error output');
  const lines = output.lines;
  if (lines.length < cfg.min_lines) return skipped(`fewer than ${cfg.min_lines} lines`);
  // NUL never occurs in source text; it means a binary file was read as text.
  if (output.text.includes('\u0000')) return skipped('binary content');
  const enabled = new Set<Language>(cfg.languages.filter(isLanguage));
  if (enabled.size === 0) return skipped('no language enabled');

  if (output.kind === 'file' && output.path !== undefined) {
    const lang = languageForPath(output.path);
    if (lang !== null) {
      if (!enabled.has(lang)) return skipped(`${lang} is not in code_filter.languages`);
      return filterRead(lines, output.fileLines, lang, lang === 'javascript' || isJsxPath(output.path), cfg);
    }
  }

  const span = output.fileLines;
  const lineNumber = span ? (i: number) => span.first + i - span.start : (i: number) => i + 1;
  const fenced = filterFences(lines, enabled, cfg.preserve_docstrings, lineNumber);
  if (fenced.blocks === 0) return skipped('not a source file and no fenced source block');
  return worthIt(lines, fenced.plan);
}

/** A source file read: its own lines filtered, the tool's header and trailer kept. */
function filterRead(
  lines: readonly string[],
  span: FileLines | undefined,
  lang: Language,
  jsx: boolean,
  cfg: HmcConfig['code_filter'],
): StrategyResult {
  if (span === undefined) return skipped('the line numbers of this read are unknown');
  const shown = span.end - span.start;
  if (span.first > 1 && shown < MIN_WINDOW_LINES)
    return skipped(`a window of fewer than ${MIN_WINDOW_LINES} lines is left whole: the agent asked for those lines`);
  if (shown < cfg.min_lines) return skipped(`fewer than ${cfg.min_lines} lines`);
  const result = filterSource(lines, span.start, span.end, lang, {
    preserve: cfg.preserve_docstrings,
    jsx,
    openStart: span.first > 1,
    openEnd: span.openEnd,
    lineNumber: (i) => span.first + i - span.start,
  });
  if (!result.ok) return skipped(`${lang} source left whole: ${result.reason}`);
  const plan: LinePlanItem[] = [];
  for (let i = 0; i < span.start; i++) plan.push(i);
  for (const item of result.plan) plan.push(item);
  for (let i = span.end; i < lines.length; i++) plan.push(i);
  return worthIt(lines, plan);
}

/** The plan, if it makes the text shorter; otherwise skipped (invariant: never grow an output). */
function worthIt(lines: readonly string[], plan: LinePlanItem[]): StrategyResult {
  let saved = 0;
  let next = 0;
  for (const item of plan) {
    if (typeof item === 'number') {
      for (; next < item; next++) saved += (lines[next]?.length ?? 0) + 1;
      next = item + 1;
    } else {
      saved -= item.marker.length + 1;
    }
  }
  for (; next < lines.length; next++) saved += (lines[next]?.length ?? 0) + 1;
  return saved > 0 ? keptLines(plan) : skipped('nothing to elide');
}
