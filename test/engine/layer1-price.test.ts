/**
 * Layer 1's price rule (src/engine/layer1/layer1-price.ts): a summary is asked for only when the tokens
 * it takes out of the requests still to come, read at the cached price, pay for the summariser's
 * tokens at their price, by the margin the config asks.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextPassCall, summaryVerdict, type SummaryFigures } from '../../src/engine/layer1/layer1-price.js';

const base: SummaryFigures = {
  replaceable: 12_000,
  replacement: 1_500,
  requestTokens: 8_000,
  answerTokens: 1_275,
  callsSoFar: 80,
  breaksSoFar: 1,
  breaksPer100: 1,
  firstAfter: 55,
  price: { input: 1.25, output: 5 },
  margin: 2,
};

describe('summaryVerdict', () => {
  it('prices the request and the answer at their multiples of the main model input price', () => {
    const v = summaryVerdict(base);
    expect(v.price).toBe(8_000 * 1.25 + 1_275 * 5);
    expect(v.removed).toBe(10_500);
  });

  it('counts only the calls after the pass that can send it (the cache-break budget), and after the call that earns that break', () => {
    // One break spent at call 80 with 1 per 100 after 55: the next pass may come at call 155, but
    // the session earns its second break only at call 200, past the ~160 calls expected in all.
    expect(nextPassCall(80, 1, 1, 55)).toBe(155);
    expect(summaryVerdict(base).callsAfter).toBe(0);
    expect(summaryVerdict(base).pays).toBe(false);
    // With the budget free now, a pass may send it at the next call; the calls counted on are
    // those after call 100, which earns the first break.
    const now = summaryVerdict({ ...base, breaksSoFar: 0 });
    expect(now.callsAfter).toBe(60);
    expect(now.saving).toBeCloseTo(10_500 * 0.1 * 60);
    expect(now.pays).toBe(true);
    // Past call 100 the break is earned: it goes out at the next call.
    expect(summaryVerdict({ ...base, breaksSoFar: 0, callsSoFar: 120 }).callsAfter).toBe(119);
  });

  it('declines when the summariser costs more than the margin allows, asks when it is cheaper', () => {
    const dear = { ...base, breaksSoFar: 0, price: { input: 10, output: 40 } };
    expect(summaryVerdict(dear).pays).toBe(false);
    expect(summaryVerdict({ ...dear, margin: 0.4 }).pays).toBe(true);
    expect(summaryVerdict({ ...base, breaksSoFar: 0, price: { input: 0, output: 0 } }).pays).toBe(true);
  });

  it('never asks for a summary that takes nothing out, whatever its price', () => {
    expect(summaryVerdict({ ...base, breaksSoFar: 0, replaceable: 1_000, price: { input: 0, output: 0 } }).pays).toBe(
      false,
    );
    expect(summaryVerdict({ ...base, breaksPer100: 0, breaksSoFar: 0, callsSoFar: 10 }).pays).toBe(false);
  });

  it('property: a summary that pays saves at least margin × price, and more removed never turns pays into not', () => {
    const figures = fc.record({
      replaceable: fc.integer({ min: 0, max: 200_000 }),
      replacement: fc.integer({ min: 0, max: 5_000 }),
      requestTokens: fc.integer({ min: 0, max: 30_000 }),
      answerTokens: fc.integer({ min: 0, max: 3_000 }),
      callsSoFar: fc.integer({ min: 0, max: 2_000 }),
      breaksSoFar: fc.integer({ min: 0, max: 30 }),
      breaksPer100: fc.double({ min: 0, max: 5, noNaN: true }),
      firstAfter: fc.integer({ min: 0, max: 200 }),
      price: fc.record({
        input: fc.double({ min: 0, max: 20, noNaN: true }),
        output: fc.double({ min: 0, max: 80, noNaN: true }),
      }),
      margin: fc.double({ min: 0, max: 5, noNaN: true }),
    });
    fc.assert(
      fc.property(figures, fc.integer({ min: 0, max: 50_000 }), (f, more) => {
        const v = summaryVerdict(f);
        if (v.pays) {
          expect(v.saving).toBeGreaterThanOrEqual(f.margin * v.price);
          expect(v.saving).toBeGreaterThan(0);
          expect(summaryVerdict({ ...f, replaceable: f.replaceable + more }).pays).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});
