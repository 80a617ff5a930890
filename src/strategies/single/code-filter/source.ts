/**
 * Filters one block of source in a known language (a whole file read, or one fenced block's
 * body), and finds fenced blocks in any other text.
 *
 * Invariants:
 * - JavaScript and TSX (`.jsx`, `.tsx`, fences tagged so) are scanned with their markup; plain
 *   TypeScript that looks like markup is left whole (brace.ts).
 * - Fences follow CommonMark: up to 3 spaces of indent, 3+ backticks or tildes, an info string
 *   whose first word is the tag (```` ```python title=x ```` works, CRLF works); the closing fence
 *   uses the same character, is at least as long, and stays on its own line. An unclosed fence
 *   and everything after it are kept as they are.
 */
import type { LinePlanItem } from '../../../core/strategy.js';
import { filterBraceBlock } from './brace.js';
import { filterElixirBlock } from './elixir.js';
import type { Language } from './languages.js';
import { isJsxFenceTag, languageForFenceTag } from './languages.js';
import type { BlockOptions, BlockResult } from './plan.js';
import { MIN_ELIDED_LINES } from './plan.js';
import { filterPythonBlock } from './python.js';

/** Filters `lines[start..end)` as source in `lang`; the plan covers exactly that range. */
export function filterSource(
  lines: readonly string[],
  start: number,
  end: number,
  lang: Language,
  opts: BlockOptions,
): BlockResult {
  if (lang === 'python') return filterPythonBlock(lines, start, end, opts);
  if (lang === 'elixir') return filterElixirBlock(lines, start, end, opts);
  return filterBraceBlock(lines, start, end, lang, opts);
}

// The tag is followed by the end or by whitespace, so no two quantifiers compete for the same
// characters (a long fence line must not backtrack quadratically).
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})[ \t]*([^\s`]*)(?:\s[^`]*)?$/;
const FENCE_CLOSE = /^ {0,3}(`{3,}|~{3,})\s*$/;

/**
 * Keeps every line of `text` but the bodies of fences tagged with an enabled language, which are
 * filtered; markers name lines by `lineNumber` (the file's numbers in a file read, else the
 * output's own line numbers).
 */
export function filterFences(
  lines: readonly string[],
  enabled: ReadonlySet<Language>,
  preserve: boolean,
  lineNumber: (index: number) => number,
): { plan: LinePlanItem[]; blocks: number } {
  const plan: LinePlanItem[] = [];
  let blocks = 0;
  let i = 0;
  while (i < lines.length) {
    const open = FENCE_OPEN.exec(lines[i] ?? '');
    if (open === null) {
      plan.push(i++);
      continue;
    }
    const fence = open[1] ?? '```';
    const close = findClose(lines, i + 1, fence);
    if (close < 0) {
      while (i < lines.length) plan.push(i++);
      break;
    }
    plan.push(i);
    const lang = languageForFenceTag(open[2] ?? '');
    const body =
      lang !== null && enabled.has(lang) && close - i - 1 >= MIN_ELIDED_LINES
        ? filterSource(lines, i + 1, close, lang, {
            preserve,
            jsx: lang === 'javascript' || isJsxFenceTag(open[2] ?? ''),
            openStart: false,
            openEnd: false,
            lineNumber,
          })
        : null;
    if (body?.ok) {
      for (const item of body.plan) plan.push(item);
      blocks++;
    } else {
      for (let k = i + 1; k < close; k++) plan.push(k);
    }
    plan.push(close);
    i = close + 1;
  }
  return { plan, blocks };
}

function findClose(lines: readonly string[], from: number, fence: string): number {
  for (let k = from; k < lines.length; k++) {
    const m = FENCE_CLOSE.exec(lines[k] ?? '');
    const run = m?.[1];
    if (run !== undefined && run[0] === fence[0] && run.length >= fence.length) return k;
  }
  return -1;
}
