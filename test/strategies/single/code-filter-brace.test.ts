/**
 * Code filter, brace languages (JS, TS; Rust and Go are in code-filter-rust-go.test.ts, under the
 * same describe): raw source in, exact text out. Rows named
 * after the original's bugs (reference §14 B7) prove each one fixed; the scanner rows prove that
 * braces inside literals, comments and regexes never move a body boundary.
 */
import { describe, expect, it } from 'vitest';
import { codeFilter } from '../../../src/strategies/single/code-filter/index.js';
import { CFG, fileRead, render } from './code-filter-helpers.js';

interface Row {
  name: string;
  path: string;
  input: string[];
  /** Expected output lines, or null when the filter must skip. */
  expected: string[] | null;
  preserve?: boolean;
}

const BODY3 = ['  const a = 1;', '  const b = 2;', '  return a + b;'];

const rows: Row[] = [
  {
    name: 'a JS function body becomes one marker; imports, constants and the closing brace stay',
    path: 'a.js',
    input: ["import fs from 'node:fs';", 'const LIMIT = 3;', 'function f(x) {', ...BODY3, '}', 'f(LIMIT);'],
    expected: [
      "import fs from 'node:fs';",
      'const LIMIT = 3;',
      'function f(x) {',
      '  // … 3 lines elided (4–6)',
      '}',
      'f(LIMIT);',
    ],
  },
  {
    name: 'B7: a TS class keeps its fields and every method signature; only method bodies go',
    path: 'a.ts',
    input: [
      'export class Store<T extends Base> extends Map<string, T> {',
      '  private readonly items: T[] = [];',
      '  static count = 0;',
      '  constructor(private readonly name: string) {',
      '    super();',
      '    this.name = name;',
      '    Store.count++;',
      '  }',
      '  async load(id: string): Promise<Response> {',
      ...BODY3.map((l) => `  ${l}`),
      '  }',
      '  get size(): number { return this.items.length; }',
      '  handle = async (e: Event): Promise<void> => {',
      ...BODY3.map((l) => `  ${l}`),
      '  };',
      '  abstract close(): void;',
      '}',
    ],
    expected: [
      'export class Store<T extends Base> extends Map<string, T> {',
      '  private readonly items: T[] = [];',
      '  static count = 0;',
      '  constructor(private readonly name: string) {',
      '    // … 3 lines elided (5–7)',
      '  }',
      '  async load(id: string): Promise<Response> {',
      '    // … 3 lines elided (10–12)',
      '  }',
      '  get size(): number { return this.items.length; }',
      '  handle = async (e: Event): Promise<void> => {',
      '    // … 3 lines elided (16–18)',
      '  };',
      '  abstract close(): void;',
      '}',
    ],
  },
  {
    name: 'B7: interface fields, type literals and enums are kept whole',
    path: 'a.ts',
    input: [
      'export interface User {',
      '  id: string;',
      '  meta: {',
      '    tags: string[];',
      '  };',
      '  greet(): void;',
      '}',
      'type P = {',
      '  a: number;',
      '};',
      'enum E {',
      '  A,',
      '  B,',
      '}',
    ],
    expected: null,
  },
  {
    name: 'B7: object literals, module.exports and top-level statements are kept (never dropped as unknown)',
    path: 'a.cjs',
    input: [
      'const config = {',
      '  port: 8080,',
      '  hosts: ["a", "b"],',
      '};',
      'module.exports = {',
      '  config,',
      '  start() { return 1; },',
      '};',
      'if (require.main === module) {',
      '  start();',
      '}',
      'function g() {',
      ...BODY3,
      '}',
    ],
    expected: [
      'const config = {',
      '  port: 8080,',
      '  hosts: ["a", "b"],',
      '};',
      'module.exports = {',
      '  config,',
      '  start() { return 1; },',
      '};',
      'if (require.main === module) {',
      '  start();',
      '}',
      'function g() {',
      '  // … 3 lines elided (13–15)',
      '}',
    ],
  },
  {
    name: 'B7: a top-level arrow function with a block body is elided; a one-line arrow stays',
    path: 'a.ts',
    input: [
      'export const add = (a: number, b: number): number => a + b;',
      'export const run = async ({',
      '  id,',
      '  name,',
      '}: Args): Promise<void> => {',
      ...BODY3,
      '};',
    ],
    expected: [
      'export const add = (a: number, b: number): number => a + b;',
      'export const run = async ({',
      '  id,',
      '  name,',
      '}: Args): Promise<void> => {',
      '  // … 3 lines elided (6–8)',
      '};',
    ],
  },
  {
    name: 'CommonJS and prototype function assignments are elided; plain member assignments are kept',
    path: 'a.js',
    input: [
      'module.exports = function handler(req, res) {',
      ...BODY3,
      '};',
      'Foo.prototype.bar = async () => {',
      ...BODY3,
      '};',
      'module.exports.options = {',
      '  a: 1,',
      '  b: 2,',
      '  c: 3,',
      '};',
    ],
    expected: [
      'module.exports = function handler(req, res) {',
      '  // … 3 lines elided (2–4)',
      '};',
      'Foo.prototype.bar = async () => {',
      '  // … 3 lines elided (7–9)',
      '};',
      'module.exports.options = {',
      '  a: 1,',
      '  b: 2,',
      '  c: 3,',
      '};',
    ],
  },
  {
    name: 'a multi-line TS signature keeps every line; overloads ending in ; do not swallow what follows',
    path: 'a.ts',
    input: [
      'export function f(a: string): string;',
      'export function f(a: number): number;',
      'export function f(',
      '  a: string | number,',
      '): string | number {',
      ...BODY3,
      '}',
    ],
    expected: [
      'export function f(a: string): string;',
      'export function f(a: number): number;',
      'export function f(',
      '  a: string | number,',
      '): string | number {',
      '  // … 3 lines elided (6–8)',
      '}',
    ],
  },
  {
    name: 'B7: a line starting with /* … */ keeps its code',
    path: 'a.js',
    input: ['/* eslint-disable */ const x = 1;', 'function f() {', ...BODY3, '}'],
    expected: ['/* eslint-disable */ const x = 1;', 'function f() {', '  // … 3 lines elided (3–5)', '}'],
  },
  {
    name: 'braces in strings, template literals with nested ${ { } }, regexes and block comments are not code',
    path: 'a.js',
    input: [
      'function f(s) {',
      '  const a = "}}}";',
      "  const b = '{';",
      '  const t = `x ${ s.map((v) => { return `${v}}`; }) } }`;',
      '  const r = /[{}]+\\/}/g;',
      '  /* } still a comment',
      '     } */',
      '  return a + b + t + r + (s.length / 2);',
      '}',
      'const after = 1;',
    ],
    expected: ['function f(s) {', '  // … 7 lines elided (2–8)', '}', 'const after = 1;'],
  },
  {
    name: 'a template literal spanning lines hides its braces until it closes',
    path: 'a.ts',
    input: ['const css = `', '  body { color: red; }', '  }}}', '`;', 'function f() {', ...BODY3, '}'],
    expected: [
      'const css = `',
      '  body { color: red; }',
      '  }}}',
      '`;',
      'function f() {',
      '  // … 3 lines elided (6–8)',
      '}',
    ],
  },
  {
    name: 'with preserve_docstrings off a run of comments outside bodies becomes a marker, a short one stays, build directives stay',
    path: 'main.go',
    input: [
      '//go:build linux',
      '// Package main is it.',
      'package main',
      '/*',
      ' * Block comment about the package.',
      ' */',
      'func main() {',
      '\ta := 1',
      '\tb := 2',
      '\tprintln(a + b)',
      '}',
    ],
    expected: [
      '//go:build linux',
      '// Package main is it.',
      'package main',
      '// … 3 lines elided (4–6)',
      'func main() {',
      '\t// … 3 lines elided (8–10)',
      '}',
    ],
    preserve: false,
  },
  {
    name: 'TS generics that are not JSX are filtered',
    path: 'a.ts',
    input: [
      'export async function get<T extends Base>(u: string): Promise<Response> {',
      '  const m: Map<K, V> = new Map();',
      '  const [s] = useState<T>();',
      '  return fetch(u) as Promise<Response>;',
      '}',
    ],
    expected: [
      'export async function get<T extends Base>(u: string): Promise<Response> {',
      '  // … 3 lines elided (2–4)',
      '}',
    ],
  },
  {
    name: 'JS holding JSX markup is left whole',
    path: 'a.js',
    input: [
      'export function App() {',
      '  const x = 1;',
      '  const y = 2;',
      '  return <div className="app">{x + y}</div>;',
      '}',
    ],
    expected: null,
  },
  {
    name: 'TS namespaces are descended into',
    path: 'a.ts',
    input: [
      'declare module "x" {',
      '  export function f(): void;',
      '}',
      'namespace N {',
      '  export function g() {',
      ...BODY3.map((l) => `  ${l}`),
      '  }',
      '}',
    ],
    expected: [
      'declare module "x" {',
      '  export function f(): void;',
      '}',
      'namespace N {',
      '  export function g() {',
      '    // … 3 lines elided (6–8)',
      '  }',
      '}',
    ],
  },
  {
    name: 'CRLF source keeps its bytes and the marker carries no CR',
    path: 'a.ts',
    input: [
      'import x from "y";\r',
      'function f() {\r',
      '  const first = a();\r',
      '  const second = b();\r',
      '  return first + second;\r',
      '}\r',
      '',
    ],
    expected: ['import x from "y";\r', 'function f() {\r', '  // … 3 lines elided (3–5)', '}\r', ''],
  },
  {
    name: 'CJK and emoji in identifiers and strings pass through untouched',
    path: 'a.js',
    input: [
      'const 问候 = "你好 🌍 {";',
      'function 计算(数值) {',
      "  const 表情 = '🎉}';",
      '  const ok = `✨ ${数值} }`;',
      '  return 表情 + ok;',
      '}',
    ],
    expected: ['const 问候 = "你好 🌍 {";', 'function 计算(数值) {', '  // … 3 lines elided (3–5)', '}'],
  },
  {
    name: 'a plan that would not make the text shorter is skipped',
    path: 'a.ts',
    input: ['function f() {', '  a();', '  b();', '  c();', '}'],
    expected: null,
  },
  {
    name: 'unbalanced braces leave the file whole rather than guess',
    path: 'a.rs',
    input: ['fn f() {', '    let a = 1;', '    let b = 2;', '    let c = 3;', '    {'],
    expected: null,
  },
  {
    name: 'an unterminated block comment leaves the file whole',
    path: 'a.go',
    input: ['package main', 'func f() {', '\ta := 1', '\tb := 2', '\tc := 3', '}', '/* never closed'],
    expected: null,
  },
];

describe('code filter: brace languages', () => {
  for (const row of rows) {
    it(row.name, () => {
      const input = fileRead(row.path, row.input.join('\n'));
      const out = render(input, codeFilter(input, { ...CFG, preserve_docstrings: row.preserve ?? true }));
      expect(out).toBe(row.expected === null ? null : row.expected.join('\n'));
    });
  }
});
