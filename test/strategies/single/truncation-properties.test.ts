/**
 * The general rules of truncation and repetition collapse, as properties over generated logs:
 * no failure word or failing-test title of the input is ever missing from the output; the output
 * is never longer; every marker stands for exactly the lines it says, and a collapsed run of
 * repeats stands only for copies of the line it follows.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HmcConfig } from '../../../src/config/keys.js';
import type { LinePlanItem, OutputKind, ToolOutput } from '../../../src/core/strategy.js';
import { failureTokens, isFailingTestTitle } from '../../../src/strategies/shared/signals.js';
import { truncate } from '../../../src/strategies/single/truncation.js';

const FAILURES = [
  'error: linker `cc` not found',
  'FAILED tests/test_x.py::test_y - AssertionError',
  '    ✕ rejects an expired coupon (5 ms)',
  ' × src/cart.test.ts > Cart > applies voucher 4ms',
  'not ok 31 - keeps trailing slash',
  '❌ migration_0035',
  'src/netz.c:41:5: Fehler: »sockfd« nicht definiert',
  'Échec de la compilation du module analyse',
  'La conexión falló',
  'Ошибка: не удалось подключиться',
  '数据库连接失败',
  'エラー: ファイルが見つかりません',
  '테스트 실패: 합계 불일치',
  "KeyError: 'tenant_id'",
  'panic: unexpected shard state',
  'Process exited with code 2',
  'shop        payments-7c9-q2w3e   0/1   CrashLoopBackOff   17   1h',
  'make[2]: *** [Makefile:88: lib/codec.o] Killed',
];
const NOISE = [
  'INFO worker handled request',
  '   Compiling serde v1.0.190',
  '   Compiling tokio v1.37.0',
  'Waiting for rollout to finish: 1 of 3 updated replicas are available...',
  'tests/test_a.py::test_b PASSED                                         [ 12%]',
  '2024-05-02T10:10:01.000Z worker heartbeat ok',
  '2024-05-02T10:10:02.000Z worker heartbeat ok',
  'warning: unused variable `x`',
  '  --> src/main.rs:2:9',
  '   |',
  '',
  '0 failed, 12 passed',
  'downloading 10%\rdownloading 50%\rdownloading 100%',
];

/** A log: runs of repeated lines, noise, failures, in random order. */
const logLines = fc
  .array(
    fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...NOISE).map((l) => [l]) },
      {
        weight: 2,
        arbitrary: fc
          .tuple(fc.constantFrom(...NOISE, ...FAILURES), fc.integer({ min: 2, max: 40 }))
          .map(([l, n]) => Array<string>(n).fill(l)),
      },
      { weight: 1, arbitrary: fc.constantFrom(...FAILURES).map((l) => [l]) },
      { weight: 1, arbitrary: fc.string({ maxLength: 30 }).map((l) => [l]) },
    ),
    { maxLength: 150 },
  )
  .map((chunks) => chunks.flat());

const config = fc.record({
  enabled: fc.constant(true),
  max_lines: fc.integer({ min: 3, max: 60 }),
  head_lines: fc.integer({ min: 1, max: 12 }),
  tail_lines: fc.integer({ min: 0, max: 12 }),
  min_content_length: fc.constantFrom(0, 500),
  keep_important: fc.boolean(),
  max_important_lines: fc.integer({ min: 0, max: 20 }),
  keep_whole_chars: fc.constantFrom(0, 32_000),
}) satisfies fc.Arbitrary<HmcConfig['truncation']>;

const kind = fc.constantFrom<OutputKind>('log', 'text');

function output(lines: readonly string[], k: OutputKind, finalNewline: boolean): ToolOutput {
  const all = finalNewline ? [...lines, ''] : [...lines];
  return { tool: 'terminal', args: {}, text: all.join('\n'), lines: all, kind: k, isError: false };
}

function render(o: ToolOutput, plan: readonly LinePlanItem[]): string[] {
  return plan.map((item) => (typeof item === 'number' ? (o.lines[item] as string) : item.marker));
}

/** What a terminal shows of a carriage-return line: its last non-blank state. */
function finalState(line: string): string {
  const body = line.endsWith('\r') ? line.slice(0, -1) : line;
  const states = body.split('\r').filter((st) => st.trim() !== '');
  return states.length >= 2 ? (states[states.length - 1] as string) : line;
}

const REPEAT = /^\.\.\. \(previous line repeated (\d+) more times?\)$/;
const COUNTED = /^\.\.\. \((\d+) (?:similar )?lines? omitted\)$/;
const PROGRESS = / \.\.\. \((\d+) earlier progress states? omitted\)$/;

describe('truncation properties', () => {
  it('never drops a failure word or a failing-test title, and is never longer', () => {
    fc.assert(
      fc.property(logLines, config, kind, fc.boolean(), (lines, cfg, k, nl) => {
        const o = output(lines, k, nl);
        const r = truncate(o, cfg);
        if (r.kind !== 'lines') return;
        const shown = render(o, r.lines);
        expect(shown.join('\n').length).toBeLessThan(o.text.length);
        const shownSet = new Set(shown);
        const before = new Set(lines.flatMap(failureTokens));
        const after = new Set(shown.flatMap(failureTokens));
        for (const token of before) expect(after, `lost ${token}`).toContain(token);
        for (const line of lines) if (isFailingTestTitle(line)) expect(shownSet, `lost title ${line}`).toContain(line);
      }),
      { numRuns: 400 },
    );
  });

  it('every marker stands for exactly the lines it says; a repeat marker only for copies of the line above', () => {
    fc.assert(
      fc.property(logLines, config, kind, fc.boolean(), (lines, cfg, k, nl) => {
        const o = output(lines, k, nl);
        const r = truncate(o, cfg);
        if (r.kind !== 'lines') return;
        let next = 0; // the next input line not yet accounted for
        let lastShown: string | null = null;
        for (const item of r.lines) {
          if (typeof item === 'number') {
            expect(item).toBe(next); // kept lines are in order and gaps are all marked
            lastShown = o.lines[item] as string;
            next = item + 1;
            continue;
          }
          const repeat = REPEAT.exec(item.marker);
          const counted = COUNTED.exec(item.marker);
          const progress = PROGRESS.exec(item.marker);
          if (repeat) {
            const n = Number(repeat[1]);
            expect(n).toBeGreaterThan(0);
            // Copies of the line above, as shown (a progress line by its final state).
            expect(lastShown).not.toBeNull();
            for (let i = next; i < next + n; i++)
              expect(finalState(o.lines[i] as string)).toBe(finalState(lastShown as string));
            next += n;
          } else if (counted) {
            const n = Number(counted[1]);
            expect(n).toBeGreaterThan(0);
            next += n;
            lastShown = null;
          } else {
            expect(progress, `unknown marker ${item.marker}`).not.toBeNull();
            expect((o.lines[next] as string).includes('\r')).toBe(true);
            lastShown = o.lines[next] as string;
            next += 1;
          }
        }
        expect(next).toBe(o.lines.length);
      }),
      { numRuns: 400 },
    );
  });
});
