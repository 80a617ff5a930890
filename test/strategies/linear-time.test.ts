/**
 * No tool output makes a stage super-linear (issue 19, finding 2). Each row is an input a fuzzer
 * (repeated short units through every stage, timing 4 KB against 64 KB) found quadratic or worse,
 * with what it cost before the fix; each stage must now take it at 128 KB or more in well under
 * the limit. The limits are 10-100x the time taken now, so a loaded machine does not make them
 * flaky, and far under the time taken before. The pathological inputs of the bench
 * (test/helpers/pathological.ts) go through every stage too.
 */
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/keys.js';
import { compressOutput } from '../../src/engine/turn/compress.js';
import { protectionFor } from '../../src/engine/session/protection.js';
import { normalizeForDedup } from '../../src/strategies/list-wide/dedup.js';
import { redactSecrets } from '../../src/summarise/redact.js';
import { looksRandom } from '../../src/summarise/secret-values.js';
import { PATHOLOGICAL } from '../helpers/pathological.js';

const config = defaultConfig();
const ctx = { config, protection: protectionFor(config), manual: false, log: () => {}, recallId: 'r1' };

/** The stages a tool output goes through before any token is counted. */
const STAGES: Record<string, (text: string) => unknown> = {
  'terminal (JSON envelope)': (t) =>
    compressOutput(
      JSON.stringify({ output: t, exit_code: 1, error: null }),
      { tool: 'terminal', args: { command: 'make' } },
      ctx,
    ),
  'terminal (plain)': (t) => compressOutput(t, { tool: 'terminal', args: { command: 'pytest' } }, ctx),
  'read_file of Python': (t) =>
    compressOutput(
      JSON.stringify({
        content: t
          .split('\n')
          .map((l, i) => `${i + 1}|${l}`)
          .join('\n'),
        total_lines: 1,
      }),
      { tool: 'read_file', args: { path: 'a.py' } },
      ctx,
    ),
  'Read of TSX': (t) => compressOutput(t, { tool: 'Read', args: { file_path: 'a.tsx' } }, ctx),
  'read_file of Elixir': (t) => compressOutput(t, { tool: 'read_file', args: { path: 'a.ex' } }, ctx),
  search: (t) => compressOutput(t, { tool: 'search_files', args: { pattern: 'x' } }, ctx),
  web: (t) => compressOutput(t, { tool: 'web_extract', args: {} }, ctx),
  'dedup normalising': (t) => normalizeForDedup(t),
  redaction: (t) => redactSecrets(t),
};

function seconds(fn: () => void): number {
  const t = performance.now();
  fn();
  return (performance.now() - t) / 1000;
}

const repeat = (unit: string, size: number, prefix = ''): string => prefix + unit.repeat(Math.ceil(size / unit.length));

describe('no tool output makes a stage super-linear', () => {
  it.each([
    // [what, text, stage, before]
    [
      'a run of blank lines after a line (a line-start regex ran across line breaks)',
      repeat('\n', 128 * 1024, '%'),
      'terminal (plain)',
      '13 s at 64 KB',
    ],
    [
      "a line of colons (pytest's `\\S+::\\S+`)",
      repeat(':', 128 * 1024, '|=>\\warningpassword='),
      'terminal (plain)',
      '2.7 s at 64 KB',
    ],
    [
      'one long word (an unanchored `\\w*` before an exception name)',
      repeat('ms', 128 * 1024, "@@'''error>>> "),
      'search',
      '3.9 s at 64 KB',
    ],
    [
      '`C:\\(` again and again (a Windows temp path of any depth)',
      repeat(':-C:\\(', 256 * 1024, '\n'),
      'dedup normalising',
      '0.7 s at 64 KB',
    ],
  ])('%s', (_what, text, stage, _before) => {
    const run = STAGES[stage] as (t: string) => unknown;
    expect(seconds(() => run(text))).toBeLessThan(1.5);
  });

  it('judges a long value of small letters ending in a capital in microseconds (it was exponential: 26 letters took 0.3 s)', () => {
    const value = `${'a'.repeat(32)}A`;
    expect(seconds(() => looksRandom(value))).toBeLessThan(0.2);
    expect(seconds(() => redactSecrets(`sk-${value} and Authorization: ${value}`))).toBeLessThan(0.2);
    expect(looksRandom('aaaaA')).toBe(true);
    expect(looksRandom('NegotiateDialogTitle')).toBe(false);
  });

  it('takes every pathological input of 256 KB through every stage in seconds at most', () => {
    for (const p of PATHOLOGICAL) {
      const text = p.make(256 * 1024);
      for (const [stage, run] of Object.entries(STAGES))
        expect(
          seconds(() => run(text)),
          `${p.name} / ${stage}`,
        ).toBeLessThan(3);
    }
  });
});
