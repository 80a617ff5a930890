/**
 * The pure side of phase search: query words, the FTS5 expression (never syntax from the user),
 * where words match (case and diacritics ignored, at word starts), and snippets whose marks point
 * at the matched words.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fold, ftsExpression, matches, MAX_TERMS, queryTerms, snippet } from '../../src/store/phase-search.js';

describe('phase search words', () => {
  it('takes letters and digits only, folded, without repeats, at most MAX_TERMS', () => {
    expect(queryTerms('Fix "AUTH" bug -- auth* OR café_2')).toEqual(['fix', 'auth', 'bug', 'or', 'cafe', '2']);
    expect(queryTerms('*** "" ()')).toEqual([]);
    expect(queryTerms(Array.from({ length: 40 }, (_, i) => `w${i}`).join(' '))).toHaveLength(MAX_TERMS);
    expect(ftsExpression(['auth', 'bug'])).toBe('"auth"* "bug"*');
  });

  it('marks whole words that start with a term, in the original text\u2019s offsets, whatever the case and accents', () => {
    const text = 'Le CAFÉ naïf: cafeteria, decaf, Café.';
    expect(matches(text, ['cafe']).map(([a, b]) => text.slice(a, b))).toEqual(['CAFÉ', 'cafeteria', 'Café']);
    expect(matches('emoji 🎉 then Tests pass', ['test']).map(([a, b]) => [a, b])).toEqual([[14, 19]]);
    expect(matches('', ['x'])).toEqual([]);
  });

  it('marks in a snippet always cover a word that starts with a query word (property)', () => {
    const word = fc.constantFrom(
      'alpha',
      'Ålpha',
      'beta',
      'BÉTA',
      'gamma',
      '🎉',
      'x',
      'line\nbreak',
      'tab\there',
      'ünï',
    );
    const text = fc.array(fc.oneof(word, fc.string({ maxLength: 6 })), { maxLength: 120 }).map((w) => w.join(' '));
    fc.assert(
      fc.property(text, text, fc.constantFrom('alp', 'beta', 'gam', 'x', 'uni'), (topic, summary, q) => {
        const terms = queryTerms(q);
        const s = snippet(topic, summary, terms);
        expect(s.snippet).not.toMatch(/[\n\t]/);
        for (const [a, b] of s.marks) {
          expect(a).toBeGreaterThanOrEqual(0);
          expect(b).toBeLessThanOrEqual(s.snippet.length);
          expect(terms.some((t) => fold(s.snippet.slice(a, b)).folded.startsWith(t))).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});
