/**
 * Body elision for the brace languages (JavaScript, TypeScript, Rust, Go). Walks the scanned
 * lines with a stack of containers (the file, class/impl/trait bodies, namespaces and modules,
 * struct/interface/enum field lists). A function or method header found at container level keeps
 * all of its lines (multi-line signatures, `where` clauses); its body becomes one marker when it
 * is at least `MIN_ELIDED_LINES` long, and its closing line stays.
 *
 * Invariants (reference §14 B7):
 * - Only lines strictly inside a function body's braces are ever elided; everything this code
 *   does not recognise (object literals, `module.exports`, Go `import (` / `var (` groups, Rust
 *   attributes and macros, statements, fields) is kept byte for byte.
 * - Methods are never lost: class/impl/trait bodies are descended into, not elided.
 * - Comment-only lines outside bodies are kept when `preserve` is on; when it is off they are
 *   dropped, except tool directives (`//go:build`, `/// <reference`, `// @ts-…`, shebangs).
 * - A scan that ends confused yields a reason, never a plan.
 */
import type { LinePlanItem } from '../../engine/types.js';
import type { BraceLanguage } from './languages.js';
import type { BlockResult } from './plan.js';
import { MIN_ELIDED_LINES, elidedMarker, indentWidth, markerIndent } from './plan.js';
import type { ScannedLine } from './scanner.js';
import { scanBraces } from './scanner.js';

/** What a header line at container level opens. */
type HeaderKind = 'function' | 'maybe-function' | 'class' | 'module' | 'fields';
/** What a container holds: top-level code, class members, or plain fields. */
type ContainerKind = 'module' | 'class' | 'fields';

interface Frame {
  depth: number;
  kind: ContainerKind;
}

const ID = '[\\w$\\u0080-\\uffff]';
// Decorator arguments may not nest parentheses: `[^()]*` keeps the repetition unambiguous (a
// `.*?` there backtracks exponentially on a line of many decorators).
const DECOR = '(?:@[\\w$.]+(?:\\([^()]*\\))?\\s+)*';
const JS_FUNCTION = /^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?function\b/;
const JS_CLASS = /^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?class\b/;
const TS_FIELDS = /^\s*(?:export\s+)?(?:declare\s+)?(?:const\s+)?(?:interface|enum)\s/;
const TS_MODULE = /^\s*(?:export\s+)?(?:declare\s+)?(?:(?:namespace|module)\s+(?:[\w$.]+|"")\s*\{|global\s*\{)/;
const JS_VAR = /^\s*(?:export\s+)?(?:declare\s+)?(?:const|let|var)\s+[^\s=:{[]/;
/** `module.exports = …`, `exports.f = …`, `Foo.prototype.m = …`, `export default (…) =>`: a value that may be a function. */
const JS_MEMBER = /^\s*(?:[\w$]+(?:\.[\w$]+)+\s*=(?!=)|export\s+default\s+(?:async\s+)?\()/;
const JS_METHOD = new RegExp(
  `^\\s*${DECOR}(?:(?:public|private|protected|static|async|override|readonly|abstract|declare|get|set|accessor)\\s+)*\\*?\\s*(?:#?${ID}+|\\[.*?\\]|""|'')\\s*[?!]?\\s*(?:<.*>)?\\s*\\(`,
);
const JS_PROPERTY = new RegExp(
  `^\\s*${DECOR}(?:(?:public|private|protected|static|readonly|override|declare|accessor)\\s+)*#?${ID}+\\s*[?!]?\\s*(?::.*?)?=(?!=)`,
);
const JS_CONTROL = /^\s*(?:if|for|while|switch|catch|with|return|do|else|try|await|new|super|this|function)\b/;
/** A header opening a function expression body: `… => {` or `= function … {` (tested apart: linear time). */
const ARROW_BODY = /=>\s*\{$/;
const FUNCTION_VALUE = /=\s*(?:async\s+)?function\b/;
const JS_VAR_CONTINUES = /(?:=>|=)$/;

const RS_VIS = '(?:pub(?:\\s*\\([^)]*\\))?\\s+)?';
const RS_FN = new RegExp(`^\\s*${RS_VIS}(?:default\\s+)?(?:const\\s+)?(?:async\\s+)?(?:unsafe\\s+)?(?:extern\\s+(?:""\\s*)?)?fn\\b`);
const RS_IMPL = new RegExp(`^\\s*(?:(?:unsafe\\s+)?impl\\b|${RS_VIS}(?:unsafe\\s+)?(?:auto\\s+)?trait\\b)`);
const RS_MODULE = new RegExp(`^\\s*(?:${RS_VIS}mod\\s+${ID}+\\s*\\{|(?:unsafe\\s+)?extern\\s*(?:""\\s*)?\\{)`);
const RS_FIELDS = new RegExp(`^\\s*${RS_VIS}(?:struct|enum|union)\\b`);

const GO_FUNC = /^\s*func\s*[(\w\u0080-\uffff]/;
const GO_FIELDS = /^\s*type\s+\S.*\b(?:struct|interface)\s*\{/;

/** A next line that continues a header: a body brace, a `where` clause, a return type… */
const CONTINUATION = /^\s*(?:[{)\]:|&.,+?]|->|=>|where\b|extends\b|implements\b)/;
/** Comments that are instructions to tools, kept even when comments are dropped. */
const DIRECTIVE = /^\s*(?:\/\/(?:go:|\s*\+build|\/\s*<reference|\s*@ts-|\s*eslint|\s*prettier|#\s*sourceMappingURL)|\/\*\s*(?:eslint|prettier|@ts-)|#!)/;

function classify(code: string, lang: BraceLanguage, container: ContainerKind): HeaderKind | null {
  if (container === 'fields') return null;
  if (lang === 'go') {
    if (GO_FUNC.test(code)) return 'function';
    return GO_FIELDS.test(code) ? 'fields' : null;
  }
  if (lang === 'rust') {
    if (RS_FN.test(code)) return 'function';
    if (RS_IMPL.test(code)) return 'class';
    if (RS_MODULE.test(code)) return 'module';
    return RS_FIELDS.test(code) ? 'fields' : null;
  }
  if (container === 'class') {
    if (JS_CONTROL.test(code)) return null;
    if (JS_METHOD.test(code)) return 'function';
    return JS_PROPERTY.test(code) ? 'maybe-function' : null;
  }
  if (JS_FUNCTION.test(code)) return 'function';
  if (JS_CLASS.test(code)) return 'class';
  if (TS_MODULE.test(code)) return 'module';
  if (TS_FIELDS.test(code)) return 'fields';
  return JS_VAR.test(code) || JS_MEMBER.test(code) ? 'maybe-function' : null;
}

/** Filters `lines[start..end)` as one source text; the plan covers exactly that range. */
export function filterBraceBlock(
  lines: readonly string[],
  start: number,
  end: number,
  lang: BraceLanguage,
  preserve: boolean,
): BlockResult {
  const scan = scanBraces(lines, start, end, lang);
  if (!scan.ok) return { ok: false, reason: 'unbalanced braces or an unterminated string/comment' };
  const info = scan.lines;
  const count = info.length;
  const at = (k: number): ScannedLine => info[k] ?? EMPTY;
  const raw = (k: number): string => lines[start + k] ?? '';
  const plan: LinePlanItem[] = [];
  const keep = (k: number): void => {
    plan.push(start + k);
  };
  const frames: Frame[] = [{ depth: 0, kind: 'module' }];
  const top = (): Frame => frames[frames.length - 1] ?? ROOT;

  /** After line `k` was kept, closes containers it closed and keeps any block it opened whole. */
  const settle = (k: number): number => {
    let cur = k;
    for (;;) {
      const s = at(cur);
      while (frames.length > 1 && top().depth > s.depthMin) frames.pop();
      if (s.depthEnd <= top().depth) return cur + 1;
      let m = cur + 1;
      while (m < count && at(m).depthMin > top().depth) keep(m++);
      if (m >= count) return count;
      keep(m);
      cur = m;
    }
  };

  /** The last line of a header starting at `i` (a signature may span lines). */
  const headerEnd = (i: number, kind: HeaderKind): number => {
    const depth = top().depth;
    const parenBase = i > 0 ? at(i - 1).parenEnd : 0;
    const indent = indentWidth(raw(i));
    let sawBrace = false;
    for (let j = i; ; j++) {
      const s = at(j);
      if (s.depthMin < depth || j + 1 >= count) return j;
      const parens = s.parenEnd - parenBase;
      if (s.code.includes('{')) sawBrace = true;
      if (parens > 0) continue;
      if (s.depthEnd > depth) return j;
      const code = s.code.trimEnd();
      if (sawBrace || code.endsWith(';')) return j;
      if (kind === 'maybe-function' && !JS_VAR_CONTINUES.test(code)) return j;
      const next = at(j + 1);
      const nextRaw = raw(j + 1);
      if (nextRaw.trim() === '' || next.startsInside || next.commentOnly) return j;
      if (!CONTINUATION.test(next.code) && indentWidth(nextRaw) <= indent) return j;
    }
  };

  let i = 0;
  while (i < count) {
    const s = at(i);
    const line = raw(i);
    if (line.trim() === '') {
      keep(i++);
      continue;
    }
    if (s.commentOnly) {
      if (preserve || DIRECTIVE.test(line)) keep(i);
      i++;
      continue;
    }
    const frame = top();
    const kind = s.startsInside ? null : classify(s.code, lang, frame.kind);
    if (kind === null) {
      keep(i);
      i = settle(i);
      continue;
    }
    const j = headerEnd(i, kind);
    for (let k = i; k <= j; k++) keep(k);
    const last = at(j);
    if (last.depthMin < frame.depth || last.depthEnd <= frame.depth) {
      i = settle(j);
      continue;
    }
    let isFunction = kind === 'function';
    if (kind === 'maybe-function') {
      let header = '';
      for (let k = i; k <= j; k++) header += `${at(k).code.trim()} `;
      header = header.trimEnd();
      isFunction = ARROW_BODY.test(header) || (header.endsWith('{') && FUNCTION_VALUE.test(header));
    }
    if (isFunction) {
      let k = j + 1;
      while (k < count && at(k).depthMin > frame.depth) k++;
      if (k >= count) return { ok: false, reason: 'a function body never closes' };
      const bodyLength = k - j - 1;
      if (bodyLength >= MIN_ELIDED_LINES) {
        plan.push(elidedMarker(lang, markerIndent(raw(i), firstNonBlank(lines, start + j + 1, start + k), lang), bodyLength));
      } else {
        for (let b = j + 1; b < k; b++) keep(b);
      }
      keep(k);
      i = settle(k);
      continue;
    }
    if ((kind === 'class' || kind === 'module' || kind === 'fields') && last.depthEnd === frame.depth + 1) {
      frames.push({ depth: frame.depth + 1, kind });
      i = j + 1;
      continue;
    }
    i = settle(j);
  }
  return { ok: true, plan };
}

function firstNonBlank(lines: readonly string[], from: number, to: number): string | undefined {
  for (let k = from; k < to; k++) {
    const line = lines[k];
    if (line !== undefined && line.trim() !== '') return line;
  }
  return undefined;
}

const ROOT: Frame = { depth: 0, kind: 'module' };
const EMPTY: ScannedLine = {
  code: '',
  startsInside: false,
  commentOnly: false,
  depthStart: 0,
  depthMin: 0,
  depthEnd: 0,
  parenEnd: 0,
};
