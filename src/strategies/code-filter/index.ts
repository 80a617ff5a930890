/**
 * The code filter (layer 0): in source code the agent reads, function and method bodies become
 * one honest marker line (`# ... 12 lines elided` / `// ... 12 lines elided`) while everything
 * else — imports, constants, types, signatures, class/impl/trait members, fields, doc comments,
 * docstrings and every line it does not understand — is kept byte for byte.
 *
 * Invariants (DESIGN §4.1; reference §14 B5, the original's output-erasing detection):
 * - Whole-output mode only for a file read (`kind === 'file'`) whose extension names an enabled
 *   language; never for search results, logs, web pages, YAML, Markdown or JSON, whatever they
 *   mention. `.jsx`/`.tsx` and JS/TS holding markup are left whole.
 * - In any other output, only the bodies of fences tagged with an enabled language are filtered;
 *   prose and other fences are kept line for line.
 * - Errors, short outputs, binary-looking text and scans that end confused are skipped, as are
 *   plans that would save nothing. The answer is a plan of kept line indices (strictly increasing)
 *   and markers; the engine puts gutters and line endings back.
 */
import type { HmcConfig } from '../../config/keys.js';
import type { LinePlanItem, StrategyResult, ToolOutput } from '../../engine/types.js';
import { keptLines, skipped } from '../../engine/types.js';
import type { Language } from './languages.js';
import { isJsxPath, isLanguage, languageForPath } from './languages.js';
import { filterFences, filterSource } from './source.js';

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
    if (isJsxPath(output.path)) return skipped('JSX source is not filtered');
    const lang = languageForPath(output.path);
    if (lang !== null) {
      if (!enabled.has(lang)) return skipped(`${lang} is not in code_filter.languages`);
      const result = filterSource(lines, 0, lines.length, lang, cfg.preserve_docstrings);
      if (!result.ok) return skipped(`${lang} source left whole: ${result.reason}`);
      return worthIt(lines, result.plan);
    }
  }

  const fenced = filterFences(lines, enabled, cfg.preserve_docstrings);
  if (fenced.blocks === 0) return skipped('not a source file and no fenced source block');
  return worthIt(lines, fenced.plan);
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
