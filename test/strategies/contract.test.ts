/**
 * The contract every registered single-output strategy keeps (issue 18), run over each entry of
 * the registry on generated outputs (logs, search listings, source files, documents; multibyte,
 * CRLF, empty lines; failed and successful calls), with the defaults and with thresholds low
 * enough that every strategy fires:
 * - restore exact: the kept lines and the lines each marker's recall range names give back the
 *   input, byte for byte (so nothing is dropped without a marker);
 * - a marker never claims lines it did not remove (its gap holds lines, and the counts the
 *   markers of a gap state add up to no more than the gap);
 * - nothing grows: a plan has no more lines than the input, and the engine's result is never
 *   longer than the raw output;
 * - a failure never becomes a success: a failed call is never replaced by a one-line text, and
 *   a log or listing that reports a failure still reports one.
 * A new strategy registered in src/strategies/index.ts runs this suite with no test of its own.
 * Edit echo (list-wide, issue 25) rewrites text too: its words, over the same outputs echoed as an
 * edited file, keep every line but the snippet, name exactly the lines left out, keep a failure
 * the tool's own words report, and come out the same every time.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONFIG_KEYS, defaultConfig, type HmcConfig } from '../../src/config/keys.js';
import type { LinePlanItem, OutputKind, StrategyResult, ToolOutput } from '../../src/core/strategy.js';
import { countTokens } from '../../src/core/tokens.js';
import { compressOutput, withRecall } from '../../src/engine/turn/compress.js';
import { protectionFor } from '../../src/engine/session/protection.js';
import { reportsFailure } from '../../src/strategies/shared/signals.js';
import { SINGLE_STRATEGIES, STRATEGIES } from '../../src/strategies/index.js';
import { echoedSnippet, editEchoWords } from '../../src/strategies/list-wide/edit-echo.js';

const NOISE = [
  'INFO worker handled request',
  '   Compiling serde v1.0.190',
  '   Compiling tokio v1.37.0',
  '2024-05-02T10:10:01.000Z heartbeat ok',
  '2024-05-02T10:10:02.000Z heartbeat ok',
  'Downloading https://files/pkg-1.2.3.tar.gz (4.1 MB)',
  'Résumé: 12 fichiers traités',
  '日本語のログ 🎉',
  'downloading 10%\rdownloading 100%',
  '',
  'step 4 of 9 done',
  'cache hit for layer 7f3a2c1b',
];
const IMPORTANT = ['warning: unused variable `x`', '  --> src/main.rs:2:9', '0 failed, 12 passed'];
const FAILURES = [
  'error: linker `cc` not found',
  'FAILED tests/test_x.py::test_y - AssertionError',
  'Traceback (most recent call last):',
  "KeyError: 'tenant_id'",
  'panic: unexpected shard state',
  'Process exited with code 2',
  'エラー: ファイルが見つかりません',
];
/** Outputs that are wholly a known success (short-circuit's to collapse). */
const SUCCESSES = [
  [
    '============================= test session starts ==============================',
    'platform linux -- Python 3.11.7, pytest-8.0.0, pluggy-1.4.0',
    'rootdir: /work/proj',
    'collected 12 items',
    '',
    'tests/test_a.py ........                                                 [ 66%]',
    'tests/test_b.py ....                                                     [100%]',
    '',
    '============================== 12 passed in 0.42s ==============================',
  ],
  ['On branch main', "Your branch is up to date with 'origin/main'.", '', 'nothing to commit, working tree clean'],
  ['{"status": "ok"}'],
];
const PROSE = [
  'The service stores sessions in SQLite.',
  'Each request is answered once, in order.',
  'See the configuration page for details.',
  'Ceci est une phrase.',
];
const PYTHON = [
  'import os',
  '',
  'def load(path):',
  '    """Reads the file."""',
  '    with open(path) as f:',
  '        data = f.read()',
  '    parsed = parse(data)',
  '    checked = check(parsed)',
  '    return checked',
  '',
  'class Store:',
  '    def get(self, key):',
  '        value = self.items.get(key)',
  '        if value is None:',
  '            raise KeyError(f"no {key}")',
  '        return value',
  '',
];
const TYPESCRIPT = [
  'import { x } from "./x.js";',
  '',
  'export function load(path: string): Config {',
  '  const raw = read(path);',
  '  const parsed = JSON.parse(raw);',
  '  const checked = check(parsed);',
  '  return checked;',
  '}',
  '',
  'export class Store {',
  '  get(key: string): string {',
  '    const value = this.items.get(key);',
  '    return value ?? "";',
  '  }',
  '}',
  '',
];

const pick = <T>(items: readonly T[]) => fc.nat().map((n) => items[n % items.length] as T);
const lineRuns = (vocab: readonly string[]) =>
  fc
    .array(
      fc.oneof(
        { weight: 4, arbitrary: pick(vocab).map((l) => [l]) },
        {
          weight: 1,
          arbitrary: fc.tuple(pick(vocab), fc.integer({ min: 2, max: 30 })).map(([l, n]) => Array<string>(n).fill(l)),
        },
      ),
      { minLength: 1, maxLength: 60 },
    )
    .map((runs) => runs.flat());

/** One tool output of a kind the strategies see, with its lines drawn from that kind's vocabulary. */
const outputs: fc.Arbitrary<ToolOutput> = fc
  .record({
    shape: fc.oneof(
      { weight: 2, arbitrary: fc.constantFrom('log', 'search', 'text', 'file') },
      { weight: 1, arbitrary: fc.constant('success') },
    ),
    body: fc.oneof(lineRuns([...NOISE, ...NOISE, ...IMPORTANT]), fc.constant<string[]>([])),
    search: fc.array(
      fc.tuple(
        fc.constantFrom('src/app.ts', 'src/db/store.ts', 'lib/util.py', 'README.md'),
        fc.integer({ min: 1, max: 900 }),
      ),
      { maxLength: 200 },
    ),
    prose: fc.array(pick(PROSE), { maxLength: 200 }),
    success: pick(SUCCESSES),
    copies: fc.integer({ min: 1, max: 12 }),
    lang: fc.constantFrom('py', 'ts'),
    failure: fc.oneof({ weight: 2, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: pick(FAILURES) }),
    at: fc.nat(),
    isError: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    crlf: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  })
  .map(({ shape, body, search, prose, success, copies, lang, failure, at, isError, crlf }) => {
    const code = lang === 'py' ? PYTHON : TYPESCRIPT;
    let lines =
      shape === 'log'
        ? body
        : shape === 'success'
          ? [...success]
          : shape === 'search'
            ? search.map(([path, n]) => `${path}:${n}:  const value = load(${n})`)
            : shape === 'text'
              ? prose
              : Array.from({ length: copies }, () => code).flat();
    if (lines.length === 0) lines = [''];
    if (failure !== null && shape !== 'file') lines.splice(at % (lines.length + 1), 0, failure);
    if (crlf) lines = lines.map((l) => `${l}\r`);
    const kind: OutputKind = shape === 'success' ? 'log' : shape === 'file' ? 'file' : (shape as OutputKind);
    const path = `src/mod.${lang}`;
    const file = kind === 'file' ? { path, fileLines: { start: 0, end: lines.length, first: 1, openEnd: false } } : {};
    const tool =
      kind === 'file' ? 'read_file' : kind === 'search' ? 'search_files' : kind === 'log' ? 'terminal' : 'web_extract';
    return { tool, args: kind === 'file' ? { path } : {}, text: lines.join('\n'), lines, kind, isError, ...file };
  });

/** Defaults, and thresholds low enough that every strategy fires on short outputs. */
function configs(): [string, HmcConfig][] {
  const tight = defaultConfig();
  tight.truncation = {
    ...tight.truncation,
    max_lines: 12,
    head_lines: 3,
    tail_lines: 3,
    min_content_length: 0,
    keep_whole_chars: 200,
  };
  tight.code_filter = { ...tight.code_filter, min_lines: 5 };
  return [
    ['defaults', defaultConfig()],
    ['tight thresholds', tight],
  ];
}

/** The lines a marker text says it stands for (`12 lines elided`, `(3 similar lines omitted)`, `repeated 4 more times`). */
function claimed(marker: string): number {
  let n = 0;
  for (const m of marker.matchAll(/(\d+) (?:similar )?lines?\b|repeated (\d+) more times?\b/g))
    n += Number(m[1] ?? m[2]);
  return n;
}

/** Kept lines and the ranges the recall notes name, rebuilt into the text they stand for. */
function restored(output: ToolOutput, plan: readonly LinePlanItem[]): string {
  const out: string[] = [];
  for (const item of withRecall(plan, 'rtest', output.lines.length)) {
    if (typeof item === 'number') out.push(output.lines[item] as string);
    else {
      const range = /\(recall id=rtest lines=(\d+)-(\d+)\)$/.exec(item.marker);
      if (range) out.push(...output.lines.slice(Number(range[1]) - 1, Number(range[2])));
    }
  }
  return out.join('\n');
}

function rendered(output: ToolOutput, result: StrategyResult): string {
  if (result.kind === 'skipped') return output.text;
  if (result.kind === 'text') return result.text;
  return result.lines
    .map((item) => (typeof item === 'number' ? (output.lines[item] as string) : item.marker))
    .join('\n');
}

describe('the strategy registry', () => {
  it('is exercised by these outputs: with low thresholds every single-output strategy applies to at least 1 in 100 of them', () => {
    const [, tight] = configs()[1] as [string, HmcConfig];
    const sample = fc.sample(outputs, { numRuns: 400, seed: 18 });
    for (const strategy of SINGLE_STRATEGIES) {
      const applied = sample.filter((o) => strategy.run(o, tight).kind !== 'skipped').length;
      expect(applied, strategy.name).toBeGreaterThanOrEqual(sample.length / 100);
    }
  });

  it('names each strategy once, and each has a config section with an enabled switch', () => {
    const names = STRATEGIES.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    const keys = CONFIG_KEYS.map((k) => k.path);
    for (const s of STRATEGIES) expect(keys, s.name).toContain(`${s.config}.enabled`);
    for (const s of SINGLE_STRATEGIES) expect(s.enabled(defaultConfig()), s.name).toBe(true);
  });
});

for (const strategy of SINGLE_STRATEGIES) {
  describe(`strategy ${strategy.name} keeps the contract`, () => {
    for (const [label, config] of configs()) {
      it(`with ${label}: restores exactly, claims only what it removed, never grows, never turns a failure into a success`, () => {
        fc.assert(
          fc.property(outputs, (output) => {
            const result = strategy.run(output, config);
            if (result.kind === 'lines') {
              let last = -1;
              for (const item of result.lines) {
                if (typeof item === 'number') {
                  expect(Number.isInteger(item) && item > last && item < output.lines.length).toBe(true);
                  last = item;
                } else expect(item.marker).not.toContain('\n');
              }
              expect(restored(output, result.lines)).toBe(output.text);
              expect(result.lines.length).toBeLessThanOrEqual(output.lines.length);
              // Each run of markers between two kept lines stands for the lines between them, no more.
              let prev = -1;
              let claims = 0;
              let markers = 0;
              const settle = (next: number): void => {
                if (markers > 0) expect(claims).toBeLessThanOrEqual(next - prev - 1);
                if (markers > 0) expect(next - prev - 1).toBeGreaterThan(0);
                claims = 0;
                markers = 0;
              };
              for (const item of result.lines) {
                if (typeof item === 'number') {
                  settle(item);
                  prev = item;
                } else {
                  claims += claimed(item.marker);
                  markers++;
                }
              }
              settle(output.lines.length);
            }
            if (output.isError) expect(result.kind).not.toBe('text');
            if (output.kind !== 'file' && reportsFailure(output.text))
              expect(reportsFailure(rendered(output, result))).toBe(true);
          }),
          { numRuns: 300 },
        );
      });
    }
  });
}

describe('the registered strategies through the engine', () => {
  for (const [label, config] of configs()) {
    it(`with ${label}: the raw output is kept byte for byte and what the model is sent is never longer`, () => {
      fc.assert(
        fc.property(outputs, (output) => {
          const raw = output.text;
          const comp = compressOutput(
            raw,
            { tool: output.tool, args: output.args, hostError: output.isError },
            {
              config,
              protection: protectionFor(config),
              manual: false,
              log: () => {},
              recallId: 'rtest',
            },
          );
          expect(comp.raw).toBe(raw);
          expect(countTokens(comp.content)).toBeLessThanOrEqual(countTokens(raw));
          if (output.isError) expect(comp.isError).toBe(true);
        }),
        { numRuns: 300 },
      );
    });
  }
});

describe('edit echo (list-wide): the words of an edit whose answer echoes these outputs as the file', () => {
  it('keeps every line but the snippet byte for byte, names exactly the lines it leaves out, and gives the same bytes every time', () => {
    fc.assert(
      fc.property(outputs, fc.integer({ min: 1, max: 900 }), (output, first) => {
        // The output's lines as Claude Code echoes an edited file: a success line, then the gutter.
        const failure = output.isError ? 'Error: String to replace not found in file.' : null;
        const head = [
          ...(failure ? [failure] : []),
          'The file src/mod.ts has been updated. Here is a snippet of the edited file:',
        ];
        const rawLines = [...head, ...output.lines.map((l, i) => `${String(first + i).padStart(6)}\u2192${l}`)];
        const raw = rawLines.join('\n');
        const words = editEchoWords(raw, { tool: 'Edit', args: { file_path: 'src/mod.ts' } }, 'rtest');
        const snippet = echoedSnippet(rawLines);
        if (snippet === null) {
          expect(words).toBeNull();
          return;
        }
        const sent = (words as string).split('\n');
        expect(sent.slice(0, snippet.start)).toEqual(rawLines.slice(0, snippet.start));
        expect(sent.slice(snippet.start + 1)).toEqual(rawLines.slice(snippet.end));
        const named = /lines (\d+)-(\d+)\) left out .*\(recall id=rtest\)\]\r?$/.exec(sent[snippet.start] as string);
        expect([Number(named?.[1]), Number(named?.[2])]).toEqual([
          first + snippet.start - head.length,
          first + snippet.end - head.length - 1,
        ]);
        // A failure the tool's own words report is still reported.
        if (failure) expect(reportsFailure(words as string)).toBe(true);
        expect(editEchoWords(raw, { tool: 'Edit', args: {} }, 'rtest')).toBe(words);
      }),
      { numRuns: 300 },
    );
  });
});
