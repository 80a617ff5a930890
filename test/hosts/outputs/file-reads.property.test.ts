/**
 * Properties of file reads through the whole engine (DESIGN §6, issue 8 item 5): for random
 * sources in every filtered language, shown the way real tools show them (Claude Code's gutters
 * and reminder, Hermes JSON, SWE-agent windows, `cat -n`, plain `cat`, `sed -n` pages in a
 * harness wrapper, an editor's view), every elision marker names exactly the lines it removed and
 * nothing else is removed; the header and trailer stay byte for byte; the output never grows;
 * and a conversation of such reads restores exactly.
 */
import fc from 'fast-check';
import type { Arbitrary } from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config/keys.js';
import { compressOutput } from '../../../src/engine/turn/compress.js';
import { protectionFor } from '../../../src/engine/session/protection.js';
import { replaySession } from '../../../src/app/replay.js';
import type { Message } from '../../../src/core/message.js';
import { MARKER_RE } from '../../../src/strategies/single/code-filter/plan.js';

/** Body statements per language family (each balanced), including the hard cases of each scanner. */
const BODY: Record<string, readonly (readonly string[])[]> = {
  py: [
    ['x = compute(a)'],
    ['s = "{ not a brace"'],
    ['# comment'],
    [''],
    ['if x:', '    y = 2'],
    ['raise ValueError("bad value")'],
    ['q = """', 'col0 text', '"""'],
    ['return x'],
  ],
  ex: [
    ['x = compute(a)'],
    ['s = "end #{a} do"'],
    ['# comment'],
    [''],
    ['if x do', '  y()', 'end'],
    ['raise ArgumentError, "bad value"'],
    ['q = """', '  end text', '  """'],
    ['f = fn a -> a end'],
    ['k = [do: 1]'],
    ['x'],
  ],
  brace: [
    ['const a = compute(x);'],
    ['const s = "}";'],
    ["const c = '{';"],
    ['// }'],
    [''],
    ['if (x) {', '  y();', '}'],
    ['throw new Error("bad value");'],
    ['const t = `${ {a: 1}.a } }`;'],
    ['/* {', '} */'],
    ['return a;'],
  ],
};

interface Lang {
  ext: string;
  family: 'py' | 'brace' | 'ex';
  unit: Arbitrary<string[]>;
}

const ind = (n: number) => ' '.repeat(n);

function braceUnit(headers: readonly string[], extra: readonly string[] = []): Arbitrary<string[]> {
  return fc.oneof(
    fc.constantFrom(...extra.map((l) => [l]), ['']),
    fc
      .tuple(
        fc.constantFrom(...headers),
        fc.array(fc.constantFrom(...(BODY.brace ?? [])), { minLength: 1, maxLength: 8 }),
      )
      .map(([h, body]) => [h, ...body.flat().map((l) => (l === '' ? l : ind(2) + l)), '}']),
  );
}

const LANGS: readonly Lang[] = [
  {
    ext: 'py',
    family: 'py',
    unit: fc.oneof(
      fc.constantFrom<string[]>(['import os'], ['LIMIT = 3'], [''], ['@decorator']),
      fc
        .tuple(
          fc.constantFrom('def f(a):', 'async def g(\n    a,\n):'),
          fc.array(fc.constantFrom(...(BODY.py ?? [])), { minLength: 1, maxLength: 8 }),
        )
        .map(([sig, body]) => [
          ...sig.split('\n'),
          ...body.flat().map((l) => (l === '' || l === 'col0 text' ? l : `    ${l}`)),
        ]),
    ),
  },
  {
    ext: 'ts',
    family: 'brace',
    unit: braceUnit(
      ['export function f(a: number): number {', 'export const g = async (a: T) => {'],
      ['import x from "y";', 'export const LIMIT = 3;'],
    ),
  },
  {
    ext: 'tsx',
    family: 'brace',
    unit: braceUnit(
      [
        'export function helper(a: number) {',
        'export function View() {\n  return <div className="v">{"}"} Don\'t</div>;',
      ],
      ['export const LIMIT = 3;'],
    ),
  },
  {
    ext: 'go',
    family: 'brace',
    unit: braceUnit(
      ['func (s *S) Run(ctx context.Context) error {', 'func main() {'],
      ['package main', 'const Limit = 3'],
    ),
  },
  {
    ext: 'rs',
    family: 'brace',
    unit: braceUnit(["pub fn f<'a>(x: &'a str) -> usize {", 'fn main() {'], ['use std::fmt;', 'const LIMIT: u32 = 3;']),
  },
  {
    ext: 'java',
    family: 'brace',
    unit: braceUnit(
      ['class A {\n  public int f(int a) {', 'class B {\n  void g() throws IOException {'].map((h) => h),
      ['import java.util.List;'],
    ).map((u) => (u[0]?.startsWith('class') ? [...u, '}'] : u)),
  },
  {
    ext: 'kt',
    family: 'brace',
    unit: braceUnit(['fun f(a: Int): Int {', 'suspend fun g() {'], ['const val LIMIT = 3']),
  },
  {
    ext: 'cs',
    family: 'brace',
    unit: braceUnit(['class A {\n  public int F(int a) {'], ['using System;']).map((u) =>
      u[0]?.startsWith('class') ? [...u, '}'] : u,
    ),
  },
  {
    ext: 'php',
    family: 'brace',
    unit: braceUnit(['function f($a) {', 'function g(array $xs): array {'], ['<?php', 'const LIMIT = 3;']),
  },
  {
    ext: 'ex',
    family: 'ex',
    unit: fc.oneof(
      fc.constantFrom<string[]>(['@limit 3'], [''], ['alias Shop.Repo'], ['def one(x), do: x']),
      fc
        .tuple(
          fc.constantFrom('def f(a) do', 'defp g(\n      a\n    ) when is_integer(a) do'),
          fc.array(fc.constantFrom(...(BODY.ex ?? [])), { minLength: 1, maxLength: 8 }),
        )
        .map(([sig, body]) => [...sig.split('\n'), ...body.flat().map((l) => (l === '' ? l : `  ${l}`)), 'end']),
    ),
  },
];

/** Lines that may break a scan anywhere: unbalanced braces, open strings, comments. */
const JUNK = fc.constantFrom('{', '}', '"', '`', '"""', '/*', '*/', '(', "'a", '\\', '<div>', '?>', 'end', 'do');

const source: Arbitrary<{ ext: string; lines: string[] }> = fc.constantFrom(...LANGS).chain((lang) =>
  fc
    .tuple(
      fc.array(lang.unit, { minLength: 1, maxLength: 80, size: 'large' }),
      fc.array(fc.tuple(fc.nat(), JUNK), { maxLength: 1 }),
      fc.boolean(),
    )
    .map(([units, junk, mutate]) => {
      const lines = units.flat().flatMap((l) => l.split('\n'));
      if (mutate) for (const [at, j] of junk) lines.splice(at % (lines.length + 1), 0, j);
      return { ext: lang.ext, lines };
    }),
);

interface Shown {
  tool: string;
  args: Record<string, unknown>;
  content: string;
  /** The text inside any JSON envelope, and how each file line looks in it. */
  inner: (content: string) => string;
  header: string[];
  fileLines: string[];
  trailer: string[];
  first: number;
}

const pad = (n: number, w = 6) => String(n).padStart(w);

/** A read of `lines` (a page from `first` when it is not 1) in one of the shapes real tools use. */
function show(shape: number, path: string, all: readonly string[], first: number): Shown {
  const lines = all.slice(first - 1);
  const plain = (
    header: string[],
    body: string[],
    trailer: string[],
    tool: string,
    args: Record<string, unknown>,
  ): Shown => ({
    tool,
    args,
    content: [...header, ...body, ...trailer].join('\n'),
    inner: (c) => c,
    header,
    fileLines: body,
    trailer,
    first,
  });
  const numbered = (gutter: (n: number) => string) => lines.map((l, i) => `${gutter(i + first)}${l}`);
  switch (shape % 7) {
    case 0:
      return plain(
        [],
        numbered((n) => `${pad(n)}\u2192`),
        [
          '',
          '<system-reminder>',
          'Whenever you read a file, consider whether it looks malicious.',
          '</system-reminder>',
          '',
        ],
        'Read',
        { file_path: path, ...(first > 1 ? { offset: first } : {}) },
      );
    case 1: {
      const body = numbered((n) => `${n}|`);
      return {
        ...plain([], body, [], 'read_file', { path }),
        content: JSON.stringify({ content: body.join('\n'), total_lines: all.length, truncated: false }),
        inner: (c) => (JSON.parse(c) as { content: string }).content,
      };
    }
    case 2:
      return plain(
        [`[File: /repo/${path} (${all.length} lines total)]`, `(${first - 1} more lines above)`],
        numbered((n) => `${n}:`),
        ['(0 more lines below)', `(Open file: /repo/${path})`, '(Current directory: /repo)', 'bash-$'],
        'open',
        { path },
      );
    case 3:
      return plain(
        [],
        numbered((n) => `${pad(n)}\t`),
        [],
        'bash',
        { command: `nl -ba ${path} | sed -n '${first},${all.length}p'` },
      );
    case 4:
      return plain([], lines, [], 'bash', {
        command: first > 1 ? `bash -lc "sed -n '${first},${all.length + 50}p' ${path}"` : `cat ${path}`,
      });
    case 5:
      return plain(['<returncode>0</returncode>', '<output>'], lines, ['</output>'], 'bash', {
        command: `cd /testbed && sed -n '${first},${all.length}p' ${path}`,
      });
    default:
      return plain(
        [`Here's the result of running \`cat -n\` on /repo/${path}:`],
        numbered((n) => `${pad(n)}\t`),
        [],
        'str_replace_editor',
        { command: 'view', path: `/repo/${path}` },
      );
  }
}

const config = defaultConfig();
const ctx = { config, protection: protectionFor(config), manual: false, log: () => {} };

/**
 * Walks the compressed text against the read: the header as it was, then each file line either
 * as it was or inside exactly one marker that names it (markers name consecutive, non-empty,
 * honest ranges), then the trailer as it was. Answers how many markers it met.
 */
function checkHonest(shown: Shown, compressed: string): number {
  const out = shown.inner(compressed).split('\n');
  let o = 0;
  for (const h of shown.header) expect(out[o++]).toBe(h);
  let n = shown.first;
  const last = shown.first + shown.fileLines.length - 1;
  let markers = 0;
  while (n <= last) {
    const line = out[o++];
    const m = line === undefined ? null : MARKER_RE.exec(line);
    if (m !== null && line !== shown.fileLines[n - shown.first]) {
      const [from, to, count] = [Number(m[3]), Number(m[4]), Number(m[2])];
      expect([from, count]).toEqual([n, to - from + 1]);
      expect(to).toBeLessThanOrEqual(last);
      expect(to).toBeGreaterThanOrEqual(from + 2);
      n = to + 1;
      markers++;
      continue;
    }
    expect(line).toBe(shown.fileLines[n - shown.first]);
    n++;
  }
  for (const t of shown.trailer) expect(out[o++]).toBe(t);
  expect(o).toBe(out.length);
  return markers;
}

describe('file reads: properties', () => {
  it('every marker names exactly the lines it removed, nothing else is removed, and the output never grows', () => {
    let elided = 0;
    fc.assert(
      fc.property(source, fc.nat(), fc.nat(), (src, shape, offset) => {
        // One read in three is a page from further down the file (the rest of the file, at least 100 lines when it can be).
        const first = offset % 3 === 0 ? 1 + (offset % Math.max(1, src.lines.length - 100)) : 1;
        const shown = show(shape, `src/mod.${src.ext}`, src.lines, Math.min(first, src.lines.length));
        const result = compressOutput(shown.content, { tool: shown.tool, args: shown.args }, ctx);
        expect(result.content.length).toBeLessThanOrEqual(shown.content.length);
        elided += checkHonest(shown, result.content);
      }),
      { numRuns: 1200 },
    );
    // The generator must exercise real elisions in every shape, not only skips.
    expect(elided).toBeGreaterThan(500);
  });

  it('a conversation of such reads restores exactly and keeps every invariant', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(source, fc.nat()), { minLength: 1, maxLength: 6 }), (reads) => {
        const messages: Message[] = [
          { role: 'system', content: 'system' },
          { role: 'user', content: 'read the files' },
        ];
        reads.forEach(([src, shape], k) => {
          const shown = show(shape, `src/m${k}.${src.ext}`, src.lines, 1);
          messages.push({
            role: 'assistant',
            content: '',
            tool_calls: [
              { id: `c${k}`, type: 'function', function: { name: shown.tool, arguments: JSON.stringify(shown.args) } },
            ],
          });
          messages.push({ role: 'tool', tool_call_id: `c${k}`, name: shown.tool, content: shown.content });
        });
        messages.push({ role: 'assistant', content: 'done' });
        const report = replaySession(messages, { config });
        expect(report.restore_exact).toBe(true);
        expect(report.invariant_violations).toEqual([]);
        expect(report.input_tokens.hmc).toBeLessThanOrEqual(report.input_tokens.raw);
      }),
      { numRuns: 60 },
    );
  });
});
