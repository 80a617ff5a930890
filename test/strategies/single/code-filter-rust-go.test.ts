/**
 * Code filter, brace languages: Rust and Go (JS and TS are in code-filter-brace.test.ts, under
 * the same describe): raw source in, exact text out. Rows named after the original's bugs
 * (reference §14 B7) prove each one fixed.
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

const rows: Row[] = [
  {
    name: 'B7: Rust impl methods, struct fields, attributes, doc comments and where clauses survive',
    path: 'lib.rs',
    input: [
      '//! Crate docs.',
      'use std::fmt;',
      '',
      '#[derive(Debug, Clone)]',
      "pub struct Point<'a> {",
      '    /// The name.',
      "    pub name: &'a str,",
      '    pub x: i32,',
      '}',
      'pub struct Marker;',
      "impl<'a> Point<'a> {",
      '    /// Makes one.',
      "    pub fn new(name: &'a str) -> Self {",
      "        let open = '{';",
      '        let s = r#"}"# ;',
      '        Self { name, x: 0 }',
      '    }',
      '}',
      'pub fn show<T>(t: T) -> String',
      'where',
      '    T: fmt::Debug,',
      '{',
      '    let s = format!("{:?}", t);',
      "    let q = '}';",
      '    s',
      '}',
    ],
    expected: [
      '//! Crate docs.',
      'use std::fmt;',
      '',
      '#[derive(Debug, Clone)]',
      "pub struct Point<'a> {",
      '    /// The name.',
      "    pub name: &'a str,",
      '    pub x: i32,',
      '}',
      'pub struct Marker;',
      "impl<'a> Point<'a> {",
      '    /// Makes one.',
      "    pub fn new(name: &'a str) -> Self {",
      '        // … 3 lines elided (14–16)',
      '    }',
      '}',
      'pub fn show<T>(t: T) -> String',
      'where',
      '    T: fmt::Debug,',
      '{',
      '    // … 3 lines elided (23–25)',
      '}',
    ],
  },
  {
    name: 'Rust traits keep signature-only methods and elide default bodies; lifetimes never hide a brace',
    path: 'lib.rs',
    input: [
      'pub trait Shape {',
      '    fn area(&self) -> f64;',
      "    fn name(&self) -> &'static str {",
      '        let n = "shape";',
      "        let m = '\\n';",
      '        n',
      '    }',
      '}',
      "fn longest<'a>(x: &'a str, y: &'a str) -> &'a str {",
      '    let raw = r"{";',
      '    let multi = "line one {',
      '    line two";',
      '    if x.len() > y.len() { x } else { y }',
      '}',
    ],
    expected: [
      'pub trait Shape {',
      '    fn area(&self) -> f64;',
      "    fn name(&self) -> &'static str {",
      '        // … 3 lines elided (4–6)',
      '    }',
      '}',
      "fn longest<'a>(x: &'a str, y: &'a str) -> &'a str {",
      '    // … 4 lines elided (10–13)',
      '}',
    ],
  },
  {
    name: 'B7: Go import/var groups, doc comments, struct fields and receiver methods survive',
    path: 'main.go',
    input: [
      'package main',
      '',
      'import (',
      '\t"fmt"',
      '\t"os"',
      ')',
      '',
      'var (',
      '\tdebug = false',
      ')',
      '',
      '// Server serves.',
      'type Server struct {',
      '\tAddr string',
      '}',
      '',
      '// Run runs it.',
      'func (s *Server) Run(',
      '\tctx context.Context,',
      ') error {',
      '\tq := `raw {',
      '}`',
      "\tfmt.Println(q, '{')",
      '\treturn nil',
      '}',
    ],
    expected: [
      'package main',
      '',
      'import (',
      '\t"fmt"',
      '\t"os"',
      ')',
      '',
      'var (',
      '\tdebug = false',
      ')',
      '',
      '// Server serves.',
      'type Server struct {',
      '\tAddr string',
      '}',
      '',
      '// Run runs it.',
      'func (s *Server) Run(',
      '\tctx context.Context,',
      ') error {',
      '\t// … 4 lines elided (21–24)',
      '}',
    ],
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
