/**
 * Shared pieces of the code filter's line plans: the outcome type of filtering one block, the
 * honest elision marker, and indentation helpers.
 *
 * Invariant: a marker says exactly how many input lines it stands for, in the language's own
 * comment syntax, and never carries a `\r` (the engine owns line endings).
 */
import type { LinePlanItem } from '../../engine/types.js';
import type { Language } from './languages.js';

/** Bodies shorter than this stay: a one-line marker for a one- or two-line body gains nothing. */
export const MIN_ELIDED_LINES = 3;

/** The outcome of filtering one block of source: a plan covering every line of it, or why not. */
export type BlockResult = { ok: true; plan: LinePlanItem[] } | { ok: false; reason: string };

/** `# ... 12 lines elided` (Python) or `// ... 12 lines elided` (brace languages), after `indent`. */
export function elidedMarker(lang: Language, indent: string, count: number): { marker: string } {
  const comment = lang === 'python' ? '#' : '//';
  return { marker: `${indent}${comment} ... ${count} lines elided` };
}

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
  const unit = lang === 'go' || outer.includes('\t') ? '\t' : lang === 'javascript' || lang === 'typescript' ? '  ' : '    ';
  return outer + unit;
}
