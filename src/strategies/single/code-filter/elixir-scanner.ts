/**
 * A tokenising pass over Elixir source that finds its block structure: `do … end` and
 * `fn … end` (never the keyword forms `do:`, `:end`, `x.end`), bracket depth for multi-line
 * headers, and which lines hold template sigils (`~H"""…"""`). It understands "…" strings and
 * '…' charlists (both multi-line), heredocs (`"""`, `'''`), `#{…}` interpolation to any depth,
 * sigils with every delimiter (`~r/…/`, `~s(…)`, `~H"""…"""`), quoted atoms, `?x` char literals
 * and `#` comments.
 *
 * Invariant: linear, never throws; `ok` is false when a block or bracket closes that never
 * opened, `open` when the text ends inside a literal, block or bracket; callers leave such text
 * whole unless it is known to start or stop mid-file.
 */

/** What the scanner learnt about one line. */
export interface ExLine {
  /** The line's code: literals become `""`, comments vanish. */
  code: string;
  /** The line begins inside a string, heredoc or sigil. */
  startsInside: boolean;
  /** Everything on the line that is not whitespace is comment. */
  commentOnly: boolean;
  /** Block depth (`do`/`fn` … `end`) before the line, lowest on it, and after it. */
  depthStart: number;
  depthMin: number;
  depthEnd: number;
  /** Bracket depth (`(`, `[`, `{`) after the line, counted from the start of the scan. */
  bracketEnd: number;
  /** The line holds a template sigil (HEEx and the like): markup, as in a component. */
  markup: boolean;
}

export interface ExScan {
  lines: ExLine[];
  ok: boolean;
  open: boolean;
}

/** A literal being scanned: where it ends, whether `\` escapes and `#{` interpolates. */
interface Lit {
  close: string;
  /** The closer must start its line (after indentation): heredocs. */
  heredoc: boolean;
  escapes: boolean;
  interpolates: boolean;
}

const PAIRS: Readonly<Record<string, string>> = { '(': ')', '[': ']', '{': '}', '<': '>' };
const SIGIL_DELIMS = new Set(['/', '|', '"', "'", '(', '[', '{', '<']);
/** Sigils holding markup: `~H` (HEEx), `~E`/`~L` (EEx, old LiveView), `~F` (Surface), `~V` (Svelte). */
const TEMPLATE_SIGILS = new Set(['H', 'E', 'L', 'F', 'V', 'HTML']);

function isWordChar(c: string | undefined): boolean {
  if (c === undefined) return false;
  const k = c.charCodeAt(0);
  return (k >= 97 && k <= 122) || (k >= 65 && k <= 90) || (k >= 48 && k <= 57) || k === 95 || k >= 128;
}

function isLetter(c: string | undefined): boolean {
  if (c === undefined) return false;
  const k = c.charCodeAt(0);
  return (k >= 97 && k <= 122) || (k >= 65 && k <= 90);
}

/** Scans `lines[start..end)` as one Elixir text. */
export function scanElixir(lines: readonly string[], start: number, end: number): ExScan {
  const out: ExLine[] = [];
  let lit: Lit | null = null;
  /** Open interpolations: braces inside each, and the literal to resume. */
  const holes: { braces: number; resume: Lit }[] = [];
  let depth = 0;
  let brackets = 0;
  let ok = true;

  for (let li = start; li < end; li++) {
    const line = lines[li] ?? '';
    const n = line.length;
    const startsInside = lit !== null || holes.length > 0;
    let nonComment = lit !== null;
    let markup = false;
    let code = '';
    let from = lit === null && holes.length === 0 ? 0 : -1;
    const depthStart = depth;
    let depthMin = depth;
    let i = 0;
    const cut = (at: number, placeholder: string): void => {
      if (from >= 0) code += line.slice(from, at) + placeholder;
      from = -1;
    };
    const resume = (at: number): void => {
      if (holes.length === 0) from = at;
    };

    if (lit?.heredoc) {
      const t = line.trimStart();
      if (t.startsWith(lit.close)) {
        i = n - t.length + lit.close.length;
        lit = null;
        resume(i);
      }
    }
    while (i < n) {
      const c = line[i] as string;
      if (lit !== null) {
        nonComment = true;
        if (c === '\\' && lit.escapes) {
          i += 2;
          continue;
        }
        if (lit.interpolates && c === '#' && line[i + 1] === '{') {
          holes.push({ braces: 0, resume: lit });
          lit = null;
          i += 2;
          continue;
        }
        if (!lit.heredoc && line.startsWith(lit.close, i)) {
          i += lit.close.length;
          // Sigil modifiers (`~r/x/iu`) belong to the literal.
          while (i < n && isLetter(line[i]) && lit.close !== '"' && lit.close !== "'") i++;
          lit = null;
          resume(i);
          continue;
        }
        i++;
        continue;
      }
      if (c === ' ' || c === '\t' || c === '\r') {
        i++;
        continue;
      }
      if (c === '#') {
        cut(i, '');
        break;
      }
      nonComment = true;
      if (c === '"' || c === "'") {
        const triple = line.startsWith(c.repeat(3), i);
        cut(i, '""');
        lit = { close: triple ? c.repeat(3) : c, heredoc: triple, escapes: true, interpolates: true };
        i = triple ? n : i + 1;
        continue;
      }
      if (c === '~' && isLetter(line[i + 1])) {
        let k = i + 1;
        const upper = /[A-Z]/.test(line[k] as string);
        if (upper) while (/[A-Z0-9]/.test(line[k] ?? '')) k++;
        else k++;
        const name = line.slice(i + 1, k);
        const d = line[k];
        if (d !== undefined && SIGIL_DELIMS.has(d)) {
          if (TEMPLATE_SIGILS.has(name)) markup = true;
          const triple = (d === '"' || d === "'") && line.startsWith(d.repeat(3), k);
          cut(i, '""');
          lit = { close: triple ? d.repeat(3) : (PAIRS[d] ?? d), heredoc: triple, escapes: true, interpolates: !upper };
          i = triple ? n : k + 1;
          continue;
        }
      }
      if (c === '?' && line[i + 1] !== undefined && line[i + 1] !== ' ' && !isWordChar(line[i - 1])) {
        // A char literal: ?a, ?", ?#, ?\n.
        i += line[i + 1] === '\\' ? 3 : 2;
        continue;
      }
      if (c === ':' && line[i + 1] === '"') {
        cut(i, '""');
        lit = { close: '"', heredoc: false, escapes: true, interpolates: true };
        i += 2;
        continue;
      }
      if (c === ':' && isWordChar(line[i + 1]) && line[i - 1] !== ':') {
        // An atom (:end, :do): never a keyword.
        i++;
        while (i < n && isWordChar(line[i])) i++;
        continue;
      }
      if (c === '(' || c === '[') {
        brackets++;
        i++;
        continue;
      }
      if (c === ')' || c === ']') {
        brackets--;
        i++;
        continue;
      }
      if (c === '{') {
        const hole = holes[holes.length - 1];
        if (hole !== undefined) hole.braces++;
        else brackets++;
        i++;
        continue;
      }
      if (c === '}') {
        const hole = holes[holes.length - 1];
        i++;
        if (hole === undefined) brackets--;
        else if (hole.braces > 0) hole.braces--;
        else {
          holes.pop();
          lit = hole.resume;
        }
        continue;
      }
      if (isLetter(c) || c === '_') {
        let k = i + 1;
        while (k < n && isWordChar(line[k])) k++;
        if (line[k] === '?' || line[k] === '!') k++;
        const word = line.slice(i, k);
        const keyword = line[i - 1] !== '.' && !(line[k] === ':' && line[k + 1] !== ':');
        if (keyword && (word === 'do' || word === 'fn')) depth++;
        else if (keyword && word === 'end') {
          depth--;
          if (depth < depthMin) depthMin = depth;
          if (depth < 0) ok = false;
        }
        i = k;
        continue;
      }
      i++;
    }
    if (lit === null && holes.length === 0 && from >= 0) code += line.slice(from);
    out.push({
      code,
      startsInside,
      commentOnly: !nonComment && line.trim() !== '',
      depthStart,
      depthMin,
      depthEnd: depth,
      bracketEnd: brackets,
      markup,
    });
  }
  return { lines: out, ok, open: lit !== null || holes.length > 0 || depth !== 0 || brackets !== 0 };
}
