/**
 * Body elision for Elixir. A `def`, `defp`, `defmacro` or `defmacrop` whose header opens a
 * `do … end` block keeps every header line (multi-line arguments, `when` guards) and its `end`;
 * the lines between become `# … N lines elided (a–b)` when there are at least
 * `MIN_ELIDED_LINES`, around any `raise` or `{:error, "…"}` carrying a written message, which
 * stay. One-line forms (`def f(x), do: x + 1`) and bodiless heads stay as they are.
 *
 * Invariants:
 * - Modules, `@doc`/`@moduledoc`/`@spec`/`@type` attributes, `use`/`import`/`alias`, structs and
 *   every DSL block that is not a function (`schema … do`, `attributes do`, `test "…" do`) are
 *   kept line for line; functions defined inside them are still reached one by one.
 * - A function whose body holds a template sigil (`~H"""…"""`) renders markup, like a JSX
 *   component, and is kept whole (docs/engine.md, TSX).
 * - Comment-only lines outside bodies are kept when `preserve` is on; when it is off a run of
 *   them becomes a marker (runs under 3 lines stay).
 */
import { errorStatements } from './error-text.js';
import type { ExLine } from './elixir-scanner.js';
import { scanElixir } from './elixir-scanner.js';
import type { LinePlanItem } from '../../../core/strategy.js';
import type { BlockOptions, BlockResult } from './plan.js';
import { elidedMarker, elideRange, firstNonBlank, leadingWhitespace, markerIndent } from './plan.js';

const DEF = /^\s*(?:defp?|defmacrop?)\s+[\w\u0080-\uffff]/;
/** A next line that continues a head: its guard or its `do`. */
const HEAD_GOES_ON = /^\s*(?:when\b|do\b)/;

/** Filters `lines[start..end)` as one Elixir text; the plan covers exactly that range. */
export function filterElixirBlock(
  lines: readonly string[],
  start: number,
  end: number,
  opts: BlockOptions,
): BlockResult {
  const scan = scanElixir(lines, start, end);
  if ((!scan.ok && !opts.openStart) || (scan.open && !opts.openEnd))
    return { ok: false, reason: 'unbalanced do/end, brackets or an unterminated string' };
  const info = scan.lines;
  const count = info.length;
  const at = (k: number): ExLine => info[k] ?? BLANK;
  const raw = (k: number): string => lines[start + k] ?? '';
  const plan: LinePlanItem[] = [];
  const keep = (k: number): void => {
    plan.push(start + k);
  };
  const marker = (indent: string) => (a: number, b: number) =>
    elidedMarker('elixir', indent, opts.lineNumber(a), opts.lineNumber(b));

  let i = 0;
  while (i < count) {
    const s = at(i);
    if (s.commentOnly && !opts.preserve) {
      let e = i;
      while (e + 1 < count && at(e + 1).commentOnly) e++;
      elideRange(plan, start + i, start + e, marker(leadingWhitespace(raw(i))), () => false);
      i = e + 1;
      continue;
    }
    if (s.startsInside || !DEF.test(s.code)) {
      keep(i++);
      continue;
    }
    // The header runs until its `do` opens a block, or ends without one (`, do:` or a bare head).
    const base = s.depthStart;
    const bracketBase = i > 0 ? at(i - 1).bracketEnd : 0;
    let j = i;
    for (;;) {
      const h = at(j);
      if (h.depthEnd > base || j + 1 >= count) break;
      if (
        h.bracketEnd > bracketBase ||
        h.code.trimEnd().endsWith(',') ||
        at(j + 1).startsInside ||
        HEAD_GOES_ON.test(at(j + 1).code)
      ) {
        j++;
        continue;
      }
      break;
    }
    for (let k = i; k <= j; k++) keep(k);
    if (at(j).depthEnd <= base || at(j).depthMin < base) {
      i = j + 1;
      continue;
    }
    let k = j + 1;
    while (k < count && at(k).depthMin > base) k++;
    if (k >= count && !opts.openEnd) return { ok: false, reason: 'a function body never closes' };
    let component = false;
    for (let b = i; b < Math.min(k + 1, count); b++) if (at(b).markup) component = true;
    if (component) {
      for (let b = j + 1; b < Math.min(k + 1, count); b++) keep(b);
      i = k + 1;
      continue;
    }
    const kept = errorStatements('elixir', info, j + 1, k, (l) => l?.bracketEnd ?? 0);
    const first = firstNonBlank(lines, start + j + 1, start + k);
    elideRange(plan, start + j + 1, start + k - 1, marker(markerIndent(raw(i), first, 'elixir')), (index) =>
      kept.has(index - start),
    );
    if (k >= count) return { ok: true, plan };
    keep(k);
    i = k + 1;
  }
  return { ok: true, plan };
}

const BLANK: ExLine = {
  code: '',
  startsInside: false,
  commentOnly: false,
  depthStart: 0,
  depthMin: 0,
  depthEnd: 0,
  bracketEnd: 0,
  markup: false,
};
