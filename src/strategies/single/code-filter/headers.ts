/**
 * What a line of brace-language code opens, judged from its code (literals blanked, comments
 * removed) and the container it stands in: a function or method (whose body may be elided), a
 * value that may be a function (`const f = () => {`), a class-like container whose members are
 * looked at one by one, a module/namespace, or a list of fields (kept whole).
 *
 * Per language: JS/TS functions, classes, namespaces, interfaces and enums; Rust fns, impls,
 * traits, mods, structs; Go funcs and struct/interface types; Java, C# and Kotlin classes,
 * interfaces, enums, records, objects and their methods and constructors (after annotations,
 * attributes and modifiers); PHP functions, closures assigned to variables, classes, interfaces,
 * traits, enums and braced namespaces.
 *
 * Invariant: linear time on any line (no regex with competing quantifiers; the Java-like method
 * test is hand-written); unsure means null, and a null line is kept as it is.
 */
import type { BraceLanguage } from './languages.js';

/**
 * What a header line at container level opens. 'maybe-function' (a value that may be a function)
 * and 'maybe-method' (a method, if its whole header has a method's shape) are decided once the
 * header's last line is known.
 */
export type HeaderKind = 'function' | 'maybe-function' | 'maybe-method' | 'class' | 'module' | 'fields';
/**
 * What a container holds: top-level code, class members, plain fields, or, for a read starting
 * mid-file, something unseen (a class body or a function body).
 */
export type ContainerKind = 'module' | 'class' | 'fields' | 'unknown';

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
export const ARROW_BODY = /=>\s*\{$/;
export const FUNCTION_VALUE = /=\s*(?:async\s+|static\s+)?function\b/;
export const VAR_CONTINUES = /(?:=>|=)$/;
/** A whole method header: parameters, an optional return type, then the body's brace (never `=> {`). */
export const METHOD_SHAPE = /\)\s*(?::[^=]*)?\{$/;

const RS_VIS = '(?:pub(?:\\s*\\([^)]*\\))?\\s+)?';
const RS_FN = new RegExp(
  `^\\s*${RS_VIS}(?:default\\s+)?(?:const\\s+)?(?:async\\s+)?(?:unsafe\\s+)?(?:extern\\s+(?:""\\s*)?)?fn\\b`,
);
const RS_IMPL = new RegExp(`^\\s*(?:(?:unsafe\\s+)?impl\\b|${RS_VIS}(?:unsafe\\s+)?(?:auto\\s+)?trait\\b)`);
const RS_MODULE = new RegExp(`^\\s*(?:${RS_VIS}mod\\s+${ID}+\\s*\\{|(?:unsafe\\s+)?extern\\s*(?:""\\s*)?\\{)`);
const RS_FIELDS = new RegExp(`^\\s*${RS_VIS}(?:struct|enum|union)\\b`);

const GO_FUNC = /^\s*func\s*[(\w\u0080-\uffff]/;
const GO_FIELDS = /^\s*type\s+\S.*\b(?:struct|interface)\s*\{/;

/** Modifiers that may precede a declaration, per JVM / .NET / PHP language. */
const MODIFIERS: Record<'java' | 'csharp' | 'kotlin' | 'php', ReadonlySet<string>> = {
  java: new Set([
    'public',
    'protected',
    'private',
    'static',
    'final',
    'abstract',
    'synchronized',
    'native',
    'default',
    'strictfp',
    'transient',
    'volatile',
    'sealed',
    'non-sealed',
  ]),
  csharp: new Set([
    'public',
    'protected',
    'private',
    'internal',
    'static',
    'virtual',
    'override',
    'abstract',
    'sealed',
    'async',
    'extern',
    'unsafe',
    'partial',
    'new',
    'readonly',
    'ref',
    'file',
    'required',
  ]),
  kotlin: new Set([
    'public',
    'protected',
    'private',
    'internal',
    'open',
    'final',
    'abstract',
    'override',
    'sealed',
    'data',
    'inner',
    'enum',
    'annotation',
    'companion',
    'value',
    'inline',
    'suspend',
    'operator',
    'infix',
    'tailrec',
    'external',
    'expect',
    'actual',
    'lateinit',
    'const',
    'crossinline',
    'noinline',
    'reified',
  ]),
  php: new Set(['public', 'protected', 'private', 'static', 'abstract', 'final', 'readonly']),
};

/** Declarations whose body holds members (looked at one by one), per language. */
const CONTAINERS: Record<'java' | 'csharp' | 'kotlin' | 'php', ReadonlySet<string>> = {
  java: new Set(['class', 'interface', 'enum', 'record', '@interface']),
  csharp: new Set(['class', 'interface', 'struct', 'record', 'enum']),
  kotlin: new Set(['class', 'interface', 'object']),
  php: new Set(['class', 'interface', 'trait', 'enum']),
};

/** Words that start statements or expressions, never a method's name or type. */
const NOT_A_DECLARATION = new Set([
  'if',
  'for',
  'foreach',
  'while',
  'switch',
  'catch',
  'try',
  'do',
  'else',
  'return',
  'throw',
  'new',
  'synchronized',
  'using',
  'lock',
  'fixed',
  'when',
  'yield',
  'await',
  'super',
  'this',
  'base',
  'assert',
  'case',
  'goto',
  'checked',
  'unchecked',
  'typeof',
  'sizeof',
  'nameof',
  'default',
  'var',
  'val',
  'let',
  'in',
  'is',
  'as',
  'echo',
  'print',
  'require',
  'include',
  'match',
]);

/**
 * The code after any leading annotations (`@Override`, `@Get("/x")`), C# attributes
 * (`[HttpGet]`) and PHP attributes (`#[Route('/x')]`) and the modifiers of `lang`.
 */
function declarationRest(code: string, lang: 'java' | 'csharp' | 'kotlin' | 'php'): string {
  let s = code.trimStart();
  for (;;) {
    const c = s[0];
    if (c === '@' && s[1] !== undefined && /[A-Za-z_]/.test(s[1]) && !s.startsWith('@interface')) {
      let k = 1;
      while (k < s.length && /[\w$.:]/.test(s[k] as string)) k++;
      if (s[k] === '(') k = skipBalanced(s, k, '(', ')');
      s = s.slice(k).trimStart();
      continue;
    }
    if ((c === '[' && lang === 'csharp') || (c === '#' && s[1] === '[' && lang === 'php')) {
      const k = skipBalanced(s, c === '#' ? 1 : 0, '[', ']');
      if (k < 0) return s;
      s = s.slice(k).trimStart();
      continue;
    }
    const word = /^[\w-]+/.exec(s)?.[0];
    if (word !== undefined && MODIFIERS[lang].has(word) && /^\s/.test(s.slice(word.length))) {
      s = s.slice(word.length).trimStart();
      continue;
    }
    return s;
  }
}

/** The index just past the bracket closing the one at `open` (-1 when it does not close on the line). */
function skipBalanced(s: string, open: number, left: string, right: string): number {
  let depth = 0;
  for (let k = open; k < s.length; k++) {
    if (s[k] === left) depth++;
    else if (s[k] === right && --depth === 0) return k + 1;
  }
  return -1;
}

/**
 * A Java / C# / Kotlin method or constructor header: `[Type] name(`, where the type is made of
 * names, generics, arrays and nullables only (so `x = f(`, `return f(` and calls never match).
 */
function isMethodHeader(rest: string, lang: 'java' | 'csharp' | 'kotlin'): boolean {
  if (lang === 'kotlin') return /^fun\b/.test(rest);
  const paren = rest.indexOf('(');
  if (paren <= 0) return false;
  let before = rest.slice(0, paren).trimEnd();
  // A C# generic method's type parameters follow its name: `Filter<T>(`.
  if (before.endsWith('>')) {
    const open = before.lastIndexOf('<');
    if (open <= 0) return false;
    before = before.slice(0, open).trimEnd();
  }
  // The trailing name, scanned backwards (a regex anchored only at the end is quadratic).
  let k = before.length;
  while (k > 0 && /[\w$]/.test(before[k - 1] as string)) k--;
  const name = before.slice(k);
  if (name === '' || NOT_A_DECLARATION.has(name)) return false;
  const type = before.slice(0, before.length - name.length).trim();
  if (type === '') return /^[A-Z]/.test(name) || lang === 'csharp';
  if (!/^[\w$.<>[\],?\s]+$/.test(type)) return false;
  const first = /^[\w$]+/.exec(type)?.[0];
  return first === undefined || !NOT_A_DECLARATION.has(first);
}

/** The first word of a declaration (`class`, `interface`…), `enum class` read as `class`. */
function containerWord(rest: string, lang: 'java' | 'csharp' | 'kotlin' | 'php'): string | null {
  const m = /^(@interface|[a-z]+)\b/.exec(rest);
  const word = m?.[1];
  if (word === undefined) return null;
  if (lang === 'kotlin' && word === 'fun' && /^fun\s+interface\b/.test(rest)) return 'interface';
  return CONTAINERS[lang].has(word) ? word : null;
}

function classifyJvm(code: string, lang: 'java' | 'csharp' | 'kotlin', container: ContainerKind): HeaderKind | null {
  const rest = declarationRest(code, lang);
  const word = containerWord(rest, lang);
  if (word !== null) return word === 'enum' && lang === 'csharp' ? 'fields' : 'class';
  if (lang === 'csharp' && /^namespace\s+[\w.]+\s*(?:\{|$)/.test(rest)) return 'module';
  if (lang === 'kotlin') return isMethodHeader(rest, lang) ? 'function' : null;
  // Java and C# methods live in types only (a top-level `f(` is a statement or a call).
  if (container !== 'class' && container !== 'unknown') return null;
  return isMethodHeader(rest, lang) ? 'function' : null;
}

const PHP_FUNCTION = /^function\s+&?[\w\u0080-\uffff]+\s*\(/;
const PHP_VAR = /^\s*\$[\w\u0080-\uffff]+\s*=(?!=)/;

function classifyPhp(code: string, container: ContainerKind): HeaderKind | null {
  const rest = declarationRest(code, 'php');
  if (PHP_FUNCTION.test(rest)) return 'function';
  if (containerWord(rest, 'php') !== null) return 'class';
  if (/^namespace\s+[\w\\]*\s*\{/.test(rest)) return 'module';
  return container === 'module' && PHP_VAR.test(code) ? 'maybe-function' : null;
}

/** What `code` (one line, literals blanked) opens inside a container of kind `container`, or null. */
export function classifyHeader(code: string, lang: BraceLanguage, container: ContainerKind): HeaderKind | null {
  if (container === 'fields') return null;
  switch (lang) {
    case 'go':
      if (GO_FUNC.test(code)) return 'function';
      return GO_FIELDS.test(code) ? 'fields' : null;
    case 'rust':
      if (RS_FN.test(code)) return 'function';
      if (RS_IMPL.test(code)) return 'class';
      if (RS_MODULE.test(code)) return 'module';
      return RS_FIELDS.test(code) ? 'fields' : null;
    case 'java':
    case 'csharp':
    case 'kotlin':
      return classifyJvm(code, lang, container);
    case 'php':
      return classifyPhp(code, container);
    case 'javascript':
    case 'typescript':
      break;
  }
  if (container === 'class') {
    if (JS_CONTROL.test(code)) return null;
    if (JS_METHOD.test(code)) return 'function';
    return JS_PROPERTY.test(code) ? 'maybe-function' : null;
  }
  if (container === 'unknown') {
    // A class body or a function body: declarations of either kind, and methods only when the
    // whole header has a method's shape (a call with a callback, `it('x', () => {`, has not).
    if (JS_CONTROL.test(code)) return null;
    if (JS_FUNCTION.test(code)) return 'function';
    if (JS_CLASS.test(code)) return 'class';
    if (JS_VAR.test(code) || JS_PROPERTY.test(code)) return 'maybe-function';
    return JS_METHOD.test(code) ? 'maybe-method' : null;
  }
  if (JS_FUNCTION.test(code)) return 'function';
  if (JS_CLASS.test(code)) return 'class';
  if (TS_MODULE.test(code)) return 'module';
  if (TS_FIELDS.test(code)) return 'fields';
  return JS_VAR.test(code) || JS_MEMBER.test(code) ? 'maybe-function' : null;
}

/** A next line that continues a header: a body brace, a `where` clause, a return type, `throws`… */
export const CONTINUATION = /^\s*(?:[{)\]:|&.,+?]|->|=>|where\b|extends\b|implements\b|throws\b|use\b)/;
/** Comments that are instructions to tools, kept even when comments are dropped. */
export const DIRECTIVE =
  /^\s*(?:\/\/(?:go:|\s*\+build|\/\s*<reference|\s*@ts-|\s*eslint|\s*prettier|#\s*sourceMappingURL)|\/\*\s*(?:eslint|prettier|@ts-)|#!)/;
