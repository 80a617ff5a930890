/**
 * A string- and comment-aware scanner for the brace languages (JS/TS, Rust, Go). It walks the
 * lines once, carrying state across them, and reports for each line its code with literals and
 * comments blanked out, the brace depth before / lowest within / after it, and the bracket depth.
 *
 * Understood (reference §14 B7 lists what the original got wrong): "…" and '…' with escapes;
 * JS/TS template literals with nested `${ … { } … }`; Go raw strings in backticks and Go runes;
 * Rust raw strings `r"…"`, `r#"…"#` (multi-line), multi-line "…" strings, char literals versus
 * lifetimes (`'a`, `&'static str`, `'\n'`, `'{'`) and nested block comments; JS/TS regex literals
 * (`/[{}]/g` after `=`, `(`, `,`, `return`…) versus division; `//` and `/* … *\/` comments.
 *
 * Invariant: the scan is linear and never throws. `ok` is false when it ends confused (a brace
 * depth that goes negative or does not return to 0, or an unterminated comment, template or raw
 * string); callers then leave the text whole rather than guess.
 */
import type { BraceLanguage } from './languages.js';

/** What the scanner learnt about one line. */
export interface ScannedLine {
  /** The line's code: literals become `""`, regexes `/r/`, comments vanish. */
  code: string;
  /** The line begins inside a string, template or block comment. */
  startsInside: boolean;
  /** Everything on the line that is not whitespace is comment. */
  commentOnly: boolean;
  /** Brace depth before the line. */
  depthStart: number;
  /** Lowest brace depth reached on the line. */
  depthMin: number;
  /** Brace depth after the line. */
  depthEnd: number;
  /** Depth of `(` and `[` after the line, counted from the start of the scan. */
  parenEnd: number;
}

export interface ScanResult {
  lines: ScannedLine[];
  ok: boolean;
}

const CODE = 0;
const BLOCK = 1;
const DQ = 2;
const SQ = 3;
const TEMPLATE = 4;
const GO_RAW = 5;
const RUST_RAW = 6;
const REGEX = 7;

const C_SLASH = 47;
const C_STAR = 42;
const C_DQ = 34;
const C_SQ = 39;
const C_BACKTICK = 96;
const C_BACKSLASH = 92;
const C_LBRACE = 123;
const C_RBRACE = 125;
const C_LPAREN = 40;
const C_RPAREN = 41;
const C_LBRACKET = 91;
const C_RBRACKET = 93;
const C_DOLLAR = 36;
const C_HASH = 35;

/** Words after which a `/` starts a regex literal rather than a division. */
const REGEX_AFTER_WORDS: ReadonlySet<string> = new Set([
  'return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do',
  'else', 'yield', 'await',
]);

function isIdentStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === C_DOLLAR || c >= 128;
}

function isIdentPart(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57);
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 13 || c === 12 || c === 11;
}

/** The visible code of the line being scanned: `from` is where the current code run began (-1: none). */
interface CodeRun {
  line: string;
  code: string;
  from: number;
}

/** Closes the visible code run at `at`, appending `placeholder` for the literal or comment that follows. */
function cut(run: CodeRun, at: number, placeholder: string): void {
  if (run.from >= 0) {
    run.code += run.line.slice(run.from, at) + placeholder;
    run.from = -1;
  }
}

/** Scans `lines[start..end)` as one source text in `lang`. */
export function scanBraces(lines: readonly string[], start: number, end: number, lang: BraceLanguage): ScanResult {
  const js = lang === 'javascript' || lang === 'typescript';
  const rust = lang === 'rust';
  const go = lang === 'go';
  const out: ScannedLine[] = [];
  let mode = CODE;
  let blockNest = 0;
  let rawHashes = 0;
  let inClass = false;
  /** Brace count inside each open `${`; non-empty means we are inside a template literal. */
  const subs: number[] = [];
  /** Whether the last significant token lets a `/` start a regex. */
  let regexOk = true;
  let depth = 0;
  let parens = 0;
  let ok = true;
  const run: CodeRun = { line: '', code: '', from: -1 };

  for (let li = start; li < end; li++) {
    const line = lines[li] ?? '';
    const n = line.length;
    const startsInside = mode !== CODE || subs.length > 0;
    let nonComment = mode === DQ || mode === SQ || mode === TEMPLATE || mode === GO_RAW || mode === RUST_RAW || subs.length > 0;
    const depthStart = depth;
    let depthMin = depth;
    run.line = line;
    run.code = '';
    run.from = mode === CODE && subs.length === 0 ? 0 : -1;
    let escapedAtEnd = false;
    let i = 0;

    while (i < n) {
      const c = line.charCodeAt(i);
      if (mode === CODE) {
        if (isSpace(c)) {
          i++;
          continue;
        }
        if (c === C_SLASH) {
          const next = line.charCodeAt(i + 1);
          if (next === C_SLASH) {
            cut(run, i, '');
            i = n;
            break;
          }
          if (next === C_STAR) {
            cut(run, i, ' ');
            mode = BLOCK;
            blockNest = 1;
            i += 2;
            continue;
          }
          nonComment = true;
          if (js && regexOk) {
            cut(run, i, '/r/');
            mode = REGEX;
            inClass = false;
            i++;
            continue;
          }
          regexOk = true;
          i++;
          continue;
        }
        nonComment = true;
        if (c === C_DQ) {
          cut(run, i, '""');
          mode = DQ;
          i++;
          continue;
        }
        if (c === C_SQ) {
          if (rust) {
            // A char literal ('x', '\n', '{', '😀') or a lifetime / label ('a, 'static).
            if (line.charCodeAt(i + 1) === C_BACKSLASH) {
              const close = line.indexOf("'", i + 3);
              if (close >= 0) {
                cut(run, i, "''");
                i = close + 1;
                if (subs.length === 0) run.from = i;
                regexOk = false;
                continue;
              }
            } else {
              const cp = line.codePointAt(i + 1);
              const width = cp !== undefined && cp > 0xffff ? 2 : 1;
              if (cp !== undefined && line.charCodeAt(i + 1 + width) === C_SQ) {
                cut(run, i, "''");
                i += 2 + width;
                if (subs.length === 0) run.from = i;
                regexOk = false;
                continue;
              }
            }
            i++;
            continue;
          }
          cut(run, i, "''");
          mode = SQ;
          i++;
          continue;
        }
        if (c === C_BACKTICK) {
          if (js) {
            cut(run, i, '``');
            mode = TEMPLATE;
            i++;
            continue;
          }
          if (go) {
            cut(run, i, '``');
            mode = GO_RAW;
            i++;
            continue;
          }
          i++;
          continue;
        }
        if (c === C_LBRACE) {
          const top = subs.length - 1;
          if (top >= 0) subs[top] = (subs[top] ?? 0) + 1;
          else depth++;
          regexOk = true;
          i++;
          continue;
        }
        if (c === C_RBRACE) {
          const top = subs.length - 1;
          if (top >= 0) {
            const count = subs[top] ?? 0;
            if (count === 0) {
              subs.pop();
              mode = TEMPLATE;
              i++;
              continue;
            }
            subs[top] = count - 1;
          } else {
            depth--;
            if (depth < depthMin) depthMin = depth;
            if (depth < 0) ok = false;
          }
          regexOk = false;
          i++;
          continue;
        }
        if (c === C_LPAREN || c === C_LBRACKET) {
          if (subs.length === 0) parens++;
          regexOk = true;
          i++;
          continue;
        }
        if (c === C_RPAREN || c === C_RBRACKET) {
          if (subs.length === 0) parens--;
          regexOk = false;
          i++;
          continue;
        }
        if (isIdentStart(c)) {
          let j = i + 1;
          while (j < n && isIdentPart(line.charCodeAt(j))) j++;
          if (rust && j - i <= 2) {
            const word = line.slice(i, j);
            if (word === 'r' || word === 'br' || word === 'cr') {
              let k = j;
              while (line.charCodeAt(k) === C_HASH) k++;
              if (line.charCodeAt(k) === C_DQ) {
                cut(run, i, '""');
                mode = RUST_RAW;
                rawHashes = k - j;
                i = k + 1;
                continue;
              }
            }
          }
          regexOk = js && REGEX_AFTER_WORDS.has(line.slice(i, j));
          i = j;
          continue;
        }
        if (c >= 48 && c <= 57) {
          let j = i + 1;
          while (j < n && (isIdentPart(line.charCodeAt(j)) || line.charCodeAt(j) === 46)) j++;
          regexOk = false;
          i = j;
          continue;
        }
        regexOk = true;
        i++;
        continue;
      }

      if (mode === BLOCK) {
        if (!rust) {
          const close = line.indexOf('*/', i);
          if (close < 0) {
            i = n;
            break;
          }
          mode = CODE;
          i = close + 2;
          if (subs.length === 0) run.from = i;
          continue;
        }
        // Rust block comments nest.
        if (c === C_SLASH && line.charCodeAt(i + 1) === C_STAR) {
          blockNest++;
          i += 2;
        } else if (c === C_STAR && line.charCodeAt(i + 1) === C_SLASH) {
          blockNest--;
          i += 2;
          if (blockNest === 0) {
            mode = CODE;
            if (subs.length === 0) run.from = i;
          }
        } else i++;
        continue;
      }

      nonComment = true;
      if (mode === DQ || mode === SQ) {
        if (c === C_BACKSLASH) {
          if (i + 1 >= n || (i + 2 === n && line.charCodeAt(i + 1) === 13)) escapedAtEnd = true;
          i += 2;
          continue;
        }
        if (c === (mode === DQ ? C_DQ : C_SQ)) {
          mode = CODE;
          regexOk = false;
          i++;
          if (subs.length === 0) run.from = i;
          continue;
        }
        i++;
        continue;
      }

      if (mode === TEMPLATE) {
        if (c === C_BACKSLASH) {
          i += 2;
          continue;
        }
        if (c === C_BACKTICK) {
          mode = CODE;
          regexOk = false;
          i++;
          if (subs.length === 0) run.from = i;
          continue;
        }
        if (c === C_DOLLAR && line.charCodeAt(i + 1) === C_LBRACE) {
          subs.push(0);
          mode = CODE;
          regexOk = true;
          i += 2;
          continue;
        }
        i++;
        continue;
      }

      if (mode === GO_RAW) {
        const close = line.indexOf('`', i);
        if (close < 0) {
          i = n;
          break;
        }
        mode = CODE;
        regexOk = false;
        i = close + 1;
        if (subs.length === 0) run.from = i;
        continue;
      }

      if (mode === RUST_RAW) {
        const close = line.indexOf('"', i);
        if (close < 0) {
          i = n;
          break;
        }
        let k = close + 1;
        let hashes = 0;
        while (hashes < rawHashes && line.charCodeAt(k) === C_HASH) {
          hashes++;
          k++;
        }
        i = hashes === rawHashes ? k : close + 1;
        if (hashes === rawHashes) {
          mode = CODE;
          regexOk = false;
          if (subs.length === 0) run.from = i;
        }
        continue;
      }

      // REGEX: ends at an unescaped `/` outside a character class.
      if (c === C_BACKSLASH) {
        i += 2;
        continue;
      }
      if (c === C_LBRACKET) inClass = true;
      else if (c === C_RBRACKET) inClass = false;
      else if (c === C_SLASH && !inClass) {
        i++;
        while (i < n && isIdentPart(line.charCodeAt(i))) i++;
        mode = CODE;
        regexOk = false;
        if (subs.length === 0) run.from = i;
        continue;
      }
      i++;
    }

    // End of line: line-local literals end here. An unterminated regex means `/` was a
    // division after all; a JS/Go string without a trailing `\` is a syntax error. Rust "…"
    // strings may span lines.
    if (mode === REGEX) mode = CODE;
    if ((mode === DQ && !rust && !escapedAtEnd) || (mode === SQ && !escapedAtEnd)) mode = CODE;
    if (run.from >= 0) run.code += line.slice(run.from);
    out.push({
      code: run.code,
      startsInside,
      commentOnly: !nonComment && line.trim() !== '',
      depthStart,
      depthMin,
      depthEnd: depth,
      parenEnd: parens,
    });
  }
  if (depth !== 0 || mode !== CODE || subs.length > 0) ok = false;
  return { lines: out, ok };
}
