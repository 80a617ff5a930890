/**
 * Token counting in linear time (issue 19, finding 2): a long run of one letter, random letters
 * or binary-looking text used to make the o200k count quadratic (128 KB of one letter: 11 s). The
 * count stays exact on ordinary text and within the documented bound on the rest.
 *
 * The time limits below are 100x what the count takes now and far under what it took before, so
 * a loaded machine does not make them flaky; the bench (`npm run bench -- pathological`) has the
 * figures.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { countTokens as libraryCount } from 'gpt-tokenizer/encoding/o200k_base';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { describe, expect, it } from 'vitest';
import { boundedCount, MAX_PIECE, mayHoldLongPiece, STRETCH, TokenCounter } from '../../src/core/token-bounds.js';
import { countAhead, countTokens, estimateTokens } from '../../src/core/tokens.js';
import { PATHOLOGICAL } from '../helpers/pathological.js';

const ROOT = join(import.meta.dirname, '..', '..');
const plain = (text: string): number => libraryCount(text, { disallowedSpecial: new Set() });

function seconds(fn: () => void): number {
  const t = performance.now();
  fn();
  return (performance.now() - t) / 1000;
}

function sourceTexts(): string[] {
  const out: string[] = [];
  for (const dir of ['src/core', 'src/engine', 'docs']) {
    for (const f of readdirSync(join(ROOT, dir)))
      if (/\.(ts|md)$/.test(f)) out.push(readFileSync(join(ROOT, dir, f), 'utf8'));
  }
  return out;
}

describe('token counting in linear time', () => {
  it('counts half a megabyte of one letter, random letters or binary-looking text in seconds at most (it was quadratic: 11 s for 128 KB)', () => {
    for (const name of [
      'one letter',
      'random letters',
      'binary-looking text',
      'spaces then a word',
      'one punctuation',
    ]) {
      const text = (PATHOLOGICAL.find((p) => p.name === name) as { make: (n: number) => string }).make(512 * 1024);
      expect(
        seconds(() => boundedCount(text)),
        name,
      ).toBeLessThan(10);
    }
  });

  it("counts ordinary text exactly: this repository's source and docs, whole and in one string", () => {
    const texts = sourceTexts();
    for (const text of texts) expect(boundedCount(text)).toBe(plain(text));
    const all = texts.join('\n');
    expect(all.length).toBeGreaterThan(4 * STRETCH); // several stretches, cut where a word starts
    expect(boundedCount(all)).toBe(plain(all));
  });

  it('counts text of short words exactly whatever its stretches (property)', () => {
    const word = fc.stringMatching(/^[A-Za-z0-9_.,;:()'"=\n\t-]{1,12}$/);
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 1, maxLength: 6000 }),
        fc.constantFrom(' ', '\n', ' \n'),
        (words, sep) => {
          const text = words.join(sep);
          expect(boundedCount(text)).toBe(plain(text));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('counts a table of figures exactly: a line start is a cut point when no word starts for a thousand characters (regression: the price table in docs/configuration.md counted one token too many)', () => {
    const cell = fc.stringMatching(/^[0-9.|/ `-]{1,10}$/);
    fc.assert(
      fc.property(
        fc.array(fc.array(cell, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 1500 }),
        (rows) => {
          const text = rows.map((r) => `| ${r.join(' | ')} |`).join('\n');
          expect(boundedCount(text)).toBe(plain(text));
        },
      ),
      { numRuns: 40 },
    );
    const prices = Array.from({ length: 400 }, (_, i) => `| \`m-${i}\` | 15 | 1.5 | 18.75 | 75 |`).join('\n');
    expect(prices.length).toBeGreaterThan(2 * STRETCH);
    // Shifted a character at a time, so a forced cut would land inside "18.75" in some of them.
    for (let shift = 0; shift < 24; shift++) {
      const text = `${'#'.repeat(shift)}\n${prices}`;
      expect(boundedCount(text), `shift ${shift}`).toBe(plain(text));
    }
  });

  it('stays within one token per cut of the exact count on long runs, and within 0.5 %', () => {
    for (const p of PATHOLOGICAL) {
      const text = p.make(12 * 1024);
      const exact = plain(text);
      const bounded = boundedCount(text);
      const cuts = Math.ceil(text.length / MAX_PIECE) + Math.ceil(text.length / STRETCH);
      expect(Math.abs(bounded - exact), p.name).toBeLessThanOrEqual(cuts);
      expect(Math.abs(bounded - exact), p.name).toBeLessThanOrEqual(Math.max(2, exact * 0.005));
    }
  });

  it('never hands the tokenizer a pre-token longer than MAX_PIECE + 2 when it takes the fast path (property)', () => {
    const piece = fc.oneof(
      fc.string({ maxLength: 4 }),
      fc.constantFrom('a', ' ', 'A', '=', '\n', '1', ' b', 'é', '\u00a0', '/', '\r\n'),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(piece, fc.integer({ min: 1, max: 120 })), { maxLength: 12 }), (parts) => {
        const text = parts.map(([s, n]) => s.repeat(n)).join('');
        if (mayHoldLongPiece(text)) return;
        for (const m of text.matchAll(O200K_TOKEN_SPLIT_REGEX)) expect(m[0].length).toBeLessThanOrEqual(MAX_PIECE + 2);
      }),
      { numRuns: 400 },
    );
  });

  it('counts the text of a special token as text (it used to throw and fall back to the estimate)', () => {
    const text = 'before <|endoftext|> after <|im_start|>system';
    expect(countTokens(text)).toBe(plain(text));
    expect(countTokens(text)).not.toBe(estimateTokens(text));
  });

  it('counts a long text ahead in slices, with the same total as all at once', () => {
    const text = (PATHOLOGICAL.find((p) => p.name === 'random letters') as { make: (n: number) => string }).make(
      5 * STRETCH + 17,
    );
    const counter = new TokenCounter(text);
    let slices = 0;
    while (!counter.advance(0)) slices++;
    expect(slices).toBeGreaterThanOrEqual(4); // one stretch per slice when the deadline has passed
    expect(counter.total).toBe(boundedCount(text));
    const fresh = `${text}!`;
    let rounds = 0;
    while (!countAhead(fresh, 0)) rounds++;
    expect(rounds).toBeGreaterThanOrEqual(4);
    expect(countTokens(fresh)).toBe(boundedCount(fresh));
  });
});
