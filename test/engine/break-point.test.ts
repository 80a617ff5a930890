/**
 * Where in the list a pass breaks the prompt cache (issue 25, "a pass placed where it buys most"):
 * from its first change, or from a later one when the changes before it remove little of what they
 * make the provider write again. Pure decisions (pass.ts), then an engine replay run twice, once
 * with a clock that jumps at every look, giving the same views at every call.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { decidePass, passValue, type PassFacts, type ViewChange } from '../../src/engine/ledger/pass.js';
import { Engine } from '../../src/engine/engine.js';
import { safeJson } from '../../src/engine/session/hashing.js';
import type { Message } from '../../src/core/message.js';
import { NULL_SINK } from '../../src/events/types.js';
import { assistantCall, config, readFile, terminal, toolResult, user } from '../helpers/conversation.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** A sent conversation of 100 messages of 400 characters (100 tokens), some of them bigger. */
function facts(big: Record<number, number>, patch: Partial<PassFacts> = {}): PassFacts {
  const sizes = Array.from({ length: 100 }, (_, i) => big[i] ?? 400);
  return {
    sentLength: 100,
    sentFrom: (from) => sizes.slice(from).reduce((a, b) => a + b, 0),
    breakingAt: null,
    callsSoFar: 60,
    breaksSoFar: 0,
    cold: false,
    forced: false,
    overflow: null,
    minTokens: 2000,
    breaksPer100: 2,
    firstAfter: 35,
    ...patch,
  };
}

const change = (index: number, before: number, after: number, whole = false): ViewChange<string> => ({
  index,
  before,
  after,
  change: `m${index}`,
  ...(whole ? { whole } : {}),
});

describe('the break point of a pass', () => {
  // Two old 40,000-character outputs cleared at 90 and 95, and a 75-token stale read far back at 60.
  const big = { 90: 40_000, 95: 40_000 };
  const changes = [change(60, 400, 100), change(90, 40_000, 400), change(95, 40_000, 400)];

  it('regression: a small change far back does not drag the break to it; it waits for a later pass', () => {
    const d = decidePass(changes, facts(big));
    expect(d.costly).toBe(true);
    expect(d.reason).toBe('pays');
    expect(d.apply.map((c) => c.index)).toEqual([90, 95]);
    // Why: from 60 the pass re-writes 3,100 tokens more to remove 75 more.
    const k = 60;
    expect(passValue(19_800, 20_800, k)).toBeGreaterThan(passValue(19_875, 23_900, k));
  });

  it('keeps the first change when it is the big one', () => {
    const d = decidePass([change(10, 40_000, 400), change(90, 40_000, 400)], facts({ 10: 40_000, 90: 40_000 }));
    expect(d.apply.map((c) => c.index)).toEqual([10, 90]);
  });

  it('never leaves out a summary (it goes whole) nor a placeholder taken back', () => {
    const phase = decidePass([change(60, 400, 100, true), ...changes.slice(1)], facts(big));
    expect(phase.apply.map((c) => c.index)).toEqual([60, 90, 95]);
    const restore = decidePass([change(60, 100, 400), ...changes.slice(1)], facts(big));
    expect(restore.apply.map((c) => c.index)).toEqual([60, 90, 95]);
  });

  it('a forced, overflow or cold pass makes every change', () => {
    for (const patch of [{ forced: true }, { overflow: 1000 }, { cold: true }]) {
      expect(decidePass(changes, facts(big, patch)).apply.map((c) => c.index)).toEqual([60, 90, 95]);
    }
  });

  it('changes not sent yet go whatever the break point', () => {
    const d = decidePass([...changes, change(100, 4000, 400)], facts(big));
    expect(d.apply.map((c) => c.index)).toEqual([90, 95, 100]);
  });

  it('property: a costly pass makes every free change and a suffix of the costly ones that holds every summary and every lengthening change; it is as big as the rules ask', () => {
    const arb = fc.array(
      fc.record({
        index: fc.integer({ min: 0, max: 109 }),
        before: fc.integer({ min: 0, max: 40_000 }),
        after: fc.integer({ min: 0, max: 40_000 }),
        whole: fc.boolean(),
      }),
      { maxLength: 12 },
    );
    fc.assert(
      fc.property(arb, fc.integer({ min: 35, max: 300 }), (raw, calls) => {
        const list = raw.map((c) => change(c.index, c.before, c.after, c.whole && c.index % 7 === 0));
        const f = facts(
          Object.fromEntries(list.filter((c) => c.index < 100).map((c) => [c.index, Math.max(c.before, 400)])),
          { callsSoFar: calls },
        );
        const d = decidePass(list, f);
        const applied = new Set(d.apply);
        for (const c of list) if (c.index >= 100) expect(applied.has(c)).toBe(true);
        if (!d.costly) return;
        const costly = list.filter((c) => c.index < 100);
        const from = Math.min(...d.apply.filter((c) => c.index < 100).map((c) => c.index));
        for (const c of costly) expect(applied.has(c)).toBe(c.index >= from);
        for (const c of costly) if (c.whole || c.after >= c.before) expect(applied.has(c)).toBe(true);
        const removed = d.apply.filter((c) => c.index < 100).reduce((n, c) => n + c.before - c.after, 0) / 4;
        if (d.reason === 'pays')
          expect(removed).toBeGreaterThanOrEqual(Math.max(2000, 0.3 * (f.sentFrom(from) / 4) - 1e-9));
      }),
      { numRuns: 300 },
    );
  });
});

/** A long tool loop: files read, re-read and edited, logs, so passes come with stale reads and clearing. */
function session(calls: number): Message[] {
  const out: Message[] = [{ role: 'system', content: 'You are a coding agent.' }, user('fix the build')];
  for (let i = 0; i < calls; i++) {
    const id = `c${i}`;
    if (i % 3 === 0) {
      const file = `src/mod${i % 4}.py`;
      const lines = Array.from(
        { length: 60 + (i % 5) * 20 },
        (_, k) => `def f${k}(x):  # ${file} step ${i}\n    return x + ${k}`,
      );
      out.push(assistantCall(id, 'read_file', { path: file }), toolResult(id, 'read_file', readFile(lines)));
    } else {
      const page = Array.from({ length: 30 + (i % 7) * 15 }, (_, k) => `step ${i}.${k} ${'detail '.repeat(10)}`).join(
        '\n',
      );
      out.push(assistantCall(id, 'terminal', { command: `make step${i}` }), toolResult(id, 'terminal', terminal(page)));
    }
  }
  return out;
}

/** One replay: every model call's view, and the session's cost figures. */
function replay(busy: boolean): { views: string[]; breaks: number; cost: unknown } {
  if (busy) {
    let t = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => (t += 20));
    vi.spyOn(Date, 'now').mockImplementation(() => 1_800_000_000_000 + (t += 20));
  }
  const c = config();
  const e = new Engine({
    config: () => c,
    stateDir: null,
    sink: NULL_SINK,
    recorder: null,
    log: () => {},
    autoSettle: false,
  });
  const views: string[] = [];
  const live: Message[] = [];
  for (const m of session(140)) {
    if (m.role === 'assistant')
      views.push(
        safeJson(
          e.preModelCall({ session_id: 'P', messages: live, context_length: 32_000, call_id: `k${views.length}` })
            .edits,
        ),
      );
    live.push(m);
  }
  e.settle();
  const s = e.sessions.get('P');
  vi.restoreAllMocks();
  return { views, breaks: s?.counts.cacheBreaks ?? -1, cost: s?.ledger.totals() };
}

describe('deterministic placement (issue 25)', () => {
  it('the same session gives the same views at every call and the same figures, idle or with a clock that jumps', () => {
    const idle = replay(false);
    const busy = replay(true);
    expect(idle.breaks).toBeGreaterThan(0);
    expect(busy.views).toEqual(idle.views);
    expect(busy.breaks).toBe(idle.breaks);
    expect(safeJson(busy.cost)).toBe(safeJson(idle.cost));
  });
});
