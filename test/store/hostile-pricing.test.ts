/**
 * The provider usage and pricing surfaces under hostile input (issue 26, finding 9): a price table
 * with bad values (negative, words, NaN, Infinity, absurd, unknown or missing fields), usage
 * figures that are no token counts, and a model name with markup. Each gets a clear message or is
 * refused: never a crash, never a wrong figure (every cost finite, a bad entry never priced from).
 * The wire side (update_from_response) is test/protocol/engine-methods.test.ts and
 * test/bridge/test_engine.py HostileUsage; the page's escaping of a markup model is
 * test/browser/usage.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/keys.js';
import { analyticsAction } from '../../src/store/action.js';
import { openStore } from '../../src/store/index.js';
import { usageProblem, type UsageRecord } from '../../src/store/usage.js';
import { NOW, rec, tempDb } from './helpers.js';

const EVIL = '<img src=x onerror=alert(1)>gpt-4o';

describe('pricing.models with bad entries', () => {
  const cases: [string, unknown, RegExp][] = [
    ['a negative price', -1, /"m" must be a price per million input tokens/],
    ['a word', 'cheap', /"m" must be a price per million input tokens.*"cheap"/],
    ['NaN', Number.NaN, /"m" must be a price/],
    ['Infinity', Number.POSITIVE_INFINITY, /"m" must be a price/],
    ['an absurd price', 1e308, /"m" must be a price/],
    ['a list', [1, 2], /"m" must be a price/],
    ['null', null, /"m" must be a price/],
    [
      'a negative field',
      { input: 1, cache_read: -0.1 },
      /"m" cache_read must be a price per million tokens from 0 to 1000000, got -0\.1/,
    ],
    ['a word in a field', { input: 'two' }, /"m" input must be a price.*"two"/],
    ['an unknown field', { inptu: 1 }, /"m" has an unknown field "inptu"/],
    ['no price at all', {}, /"m" names no price/],
  ];
  it.each(cases)(
    'leaves out an entry with %s, naming the model and field, and keeps the others',
    (_name, entry, message) => {
      const { config, issues } = resolveConfig({ pricing: { models: { m: entry, good: { input: 2, output: 8 } } } });
      expect(issues).toHaveLength(1);
      expect(issues[0]?.message).toMatch(/^pricing\.models: left out /);
      expect(issues[0]?.message).toMatch(message);
      expect(config.pricing.models).toEqual({ good: { input: 2, output: 8 } });
    },
  );

  it('reads a price written as a string of digits (YAML quoted) as its number', () => {
    const { config, issues } = resolveConfig({ pricing: { models: { m: '2.5', n: { input: '1', output: '4.5' } } } });
    expect(issues).toEqual([]);
    expect(config.pricing.models).toEqual({ m: { input: 2.5 }, n: { input: 1, output: 4.5 } });
  });

  it.each([-1, 'abc', 1e308, Number.NaN])(
    'refuses pricing.default_input_per_million %s, naming the key, and keeps the default',
    (value) => {
      const { config, issues } = resolveConfig({ pricing: { default_input_per_million: value } });
      expect(issues[0]?.message).toMatch(
        /^pricing\.default_input_per_million: expected a price per million tokens from 0 to 1000000/,
      );
      expect(config.pricing.default_input_per_million).toBe(3);
    },
  );
});

describe('analytics period=model under a hostile table and a markup model name', () => {
  it('prices every model with finite figures, never from a refused entry, and keeps the name as data', () => {
    const store = openStore(tempDb());
    try {
      store.recordSession(
        rec({ session_id: 'a', model: EVIL, input_tokens_raw: 10_000, input_tokens_hmc: 6_000, model_calls: 2 }),
      );
      store.recordSession(
        rec({
          session_id: 'b',
          model: 'mystery-model',
          input_tokens_raw: 5_000,
          input_tokens_hmc: 5_000,
          model_calls: 1,
        }),
      );
      store.recordUsage([
        {
          session_id: 'a',
          seq: 1,
          at: NOW,
          model: EVIL,
          provider: 'p',
          prompt_tokens: 900,
          completion_tokens: 7,
          cache_read_tokens: 0,
          cache_write_tokens: 0,
          reasoning_tokens: 0,
          hmc_input: null,
          raw_input: null,
          hmc_cached: null,
        },
      ]);
      const { config } = resolveConfig({
        pricing: { models: { 'gpt-4o': { input: -5 }, 'mystery-model': 'free', good: 1 } },
      });
      const answer = analyticsAction(store, { period: 'model' }, { project: '', pricing: config.pricing });
      const rows = answer.rows as {
        model: string;
        price: { source: string; input: number };
        cost: Record<string, number>;
      }[];
      expect(rows.map((r) => r.model).sort()).toEqual([EVIL, 'mystery-model'].sort());
      const evil = rows.find((r) => r.model === EVIL)!;
      // The refused `gpt-4o: {input: -5}` is not used: the built-in gpt-4o price is.
      expect(evil.price).toMatchObject({ source: 'built-in', input: 2.5 });
      expect(rows.find((r) => r.model === 'mystery-model')!.price).toMatchObject({ source: 'default', input: 3 });
      const numbers = JSON.stringify(answer).match(/-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|null|NaN|Infinity/g) ?? [];
      expect(numbers).not.toContain('NaN');
      expect(numbers).not.toContain('Infinity');
      for (const r of rows) for (const v of Object.values(r.cost)) expect(Number.isFinite(v)).toBe(true);
      expect(evil.cost.saved).toBeGreaterThan(0);
      expect((answer.provider as { model: string }[])[0]?.model).toBe(EVIL);
    } finally {
      store.close();
    }
  });
});

describe('provider usage rows that are no token counts', () => {
  const good: UsageRecord = {
    session_id: 's',
    seq: 1,
    at: NOW,
    model: 'm',
    provider: 'p',
    prompt_tokens: 900,
    completion_tokens: 7,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
    hmc_input: null,
    raw_input: null,
    hmc_cached: null,
  };
  it.each([
    ['negative', -5],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['huge', 1e300],
    ['a string', '900'],
    ['fractional', 1.5],
    ['missing', undefined],
  ])('refuses prompt_tokens %s with a message naming it, and stores nothing', (_name, value) => {
    const row = { ...good, prompt_tokens: value } as unknown as UsageRecord;
    expect(usageProblem(row)).toMatch(/^prompt_tokens must be a whole number of 0 or more/);
    const store = openStore(tempDb());
    try {
      expect(() => store.recordUsage([row])).not.toThrow(/TypeError|RangeError/);
      expect(store.usage('s')).toBeNull();
    } finally {
      store.close();
    }
  });
});
