/**
 * Shared pieces of the code filter's line plans: the outcome type of filtering one block, the
 * options every language filter takes, the honest elision marker, and indentation helpers.
 *
 * Invariant: a marker names exactly the lines it stands for, as a count and as the inclusive
 * range of their line numbers in the file (`// … 12 lines elided (40–51)`), so the agent can read
 * them again with its own read tool (DESIGN §6); it is written in the language's own comment
 * syntax and never carries a `\r` (the engine owns line endings).
 */
import type { LinePlanItem } from '../../../core/strategy.js';
import type { Language } from './languages.js';

/** Bodies shorter than this stay: a one-line marker for a one- or two-line body gains nothing. */
export const MIN_ELIDED_LINES = 3;

/** The outcome of filtering one block of source: a plan covering every line of it, or why not. */
export type BlockResult = { ok: true; plan: LinePlanItem[] } | { ok: false; reason: string };

/** How one block is filtered. */
export interface BlockOptions {
  /** Keep docstrings and comments outside bodies. */
  preserve: boolean;
  /** JavaScript / TSX: `<Tag>` in an expression is markup, and functions holding markup are components, kept whole. */
  jsx: boolean;
  /** The text may start after the file's first line: braces closing what opened before it are not confusion. */
  openStart: boolean;
  /** The text may stop before the file's end: a body, bracket, string or comment left open at the end is not confusion. */
  openEnd: boolean;
  /** The file's line number of `lines[index]` (what markers name). */
  lineNumber(index: number): number;
}

/** `# … 12 lines elided (40–51)` (Python, Elixir) or `// … 12 lines elided (40–51)` (the others), after `indent`. */
export function elidedMarker(lang: Language, indent: string, from: number, to: number): { marker: string } {
  const comment = lang === 'python' || lang === 'elixir' ? '#' : '//';
  return { marker: `${indent}${comment} … ${to - from + 1} lines elided (${from}–${to})` };
}

/** The marker format, for readers of plans (tests, benchmarks): indent, count, first and last line. */
export const MARKER_RE = /^([ \t]*)(?:#|\/\/) … (\d+) lines elided \((\d+)–(\d+)\)$/;

/** The leading spaces and tabs of a line (never its `\r`). */
export function leadingWhitespace(line: string): string {
  let i = 0;
  while (i < line.length) {
    const c = line.charCodeAt(i);
    if (c !== 32 && c !== 9) break;
    i++;
  }
  return line.slice(0, i);
}

/** Indentation width as Python computes it: a tab advances to the next multiple of 8. */
export function indentWidth(line: string): number {
  let width = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 32) width++;
    else if (c === 9) width = width - (width % 8) + 8;
    else if (c === 12) width = 0;
    else break;
  }
  return width;
}

/**
 * The indentation for a marker standing for a body: the body's own first indentation when it is
 * deeper than the signature's, else one level (a tab when the file indents with tabs) deeper.
 */
export function markerIndent(signatureLine: string, firstBodyLine: string | undefined, lang: Language): string {
  const outer = leadingWhitespace(signatureLine);
  if (firstBodyLine !== undefined) {
    const inner = leadingWhitespace(firstBodyLine);
    if (inner.length > outer.length && inner.startsWith(outer)) return inner;
  }
  const unit =
    lang === 'go' || outer.includes('\t')
      ? '\t'
      : lang === 'javascript' || lang === 'typescript' || lang === 'elixir'
        ? '  '
        : '    ';
  return outer + unit;
}

/**
 * Appends to `plan` the lines `from..to` (absolute indices, inclusive) of a body being elided:
 * the lines `kept(index)` says stay (error text), and one marker per run of the others that is at
 * least `MIN_ELIDED_LINES` long (shorter runs stay as they are).
 */
export function elideRange(
  plan: LinePlanItem[],
  from: number,
  to: number,
  marker: (first: number, last: number) => { marker: string },
  kept: (index: number) => boolean,
): void {
  let run = from;
  const flush = (end: number): void => {
    if (end - run >= MIN_ELIDED_LINES) plan.push(marker(run, end - 1));
    else for (let k = run; k < end; k++) plan.push(k);
  };
  for (let k = from; k <= to; k++) {
    if (!kept(k)) continue;
    flush(k);
    plan.push(k);
    run = k + 1;
  }
  flush(to + 1);
}

/** The first line of `lines[from, to)` that is not blank (a body's first line, for the marker's indent). */
export function firstNonBlank(lines: readonly string[], from: number, to: number): string | undefined {
  for (let k = from; k < to; k++) {
    const line = lines[k];
    if (line !== undefined && line.trim() !== '') return line;
  }
  return undefined;
}
