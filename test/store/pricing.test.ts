/**
 * The price table (issue 17, finding 3: input was priced at a flat $3 a million, the prompt cache
 * ignored): per model, with cache reads and writes, the built-in table under the user's, a default
 * for a model neither names, and names matched at word boundaries.
 */
import { describe, expect, it } from 'vitest';
import { defaultConfig, resolveConfig } from '../../src/config/keys.js';
import { BUILT_IN_PRICES } from '../../src/config/prices.js';
import { longestMatch, priceFor } from '../../src/store/pricing.js';

const pricing = defaultConfig().pricing;

describe("a model's prices", () => {
  it('come from the built-in table by the longest name found at word boundaries', () => {
    expect(priceFor('anthropic/claude-sonnet-4-20250514', pricing)).toMatchObject({
      source: 'built-in',
      matched: 'claude-sonnet-4',
      input: 3,
      cache_read: 0.3,
      cache_write: 3.75,
      output: 15,
    });
    expect(priceFor('claude-opus-4-5-20251101', pricing)).toMatchObject({ matched: 'claude-opus-4-5', input: 5 });
    expect(priceFor('gpt-4o-mini-2024-07-18', pricing)).toMatchObject({
      matched: 'gpt-4o-mini',
      input: 0.15,
      cache_write: 0.15,
    });
    expect(priceFor('openai/gpt-4o', pricing)).toMatchObject({ matched: 'gpt-4o', input: 2.5 });
  });

  it('never match inside a longer name or number', () => {
    expect(longestMatch('gpt-4o', ['gpt-4'])).toBeNull();
    expect(longestMatch('gpt-4o3', ['o3'])).toBeNull();
    expect(longestMatch('azure/o3', ['o3'])).toBe('o3');
    expect(longestMatch('GPT-4.1-MINI', ['gpt-4.1', 'gpt-4.1-mini'])).toBe('gpt-4.1-mini');
  });

  it('fall back to the defaults for a model no table names, marked as an unknown model', () => {
    expect(priceFor('my-local-llama', pricing)).toEqual({
      input: 3,
      cache_read: 0.3,
      cache_write: 3.75,
      output: 15,
      source: 'default',
      matched: '',
      unknown_model: true,
    });
  });

  it("take the host's own price (Hermes' pricing data) over the built-in table, and the user's entry over both", () => {
    const host = { input: 2, output: 9, cache_read: 0.2, cache_write: 2.5, source: 'official_docs_snapshot' };
    expect(priceFor('claude-sonnet-4', pricing, host)).toEqual({
      input: 2,
      output: 9,
      cache_read: 0.2,
      cache_write: 2.5,
      source: 'hermes',
      matched: 'claude-sonnet-4',
      host_source: 'official_docs_snapshot',
    });
    expect(priceFor('my-local-llama', pricing, host).source).toBe('hermes');
    expect(
      priceFor('claude-sonnet-4', { ...pricing, models: { 'claude-sonnet-4': { input: 1 } } }, host),
    ).toMatchObject({ input: 1, source: 'config' });
  });

  it("take the user's entry over the built-in one, a price left out derived from its input", () => {
    const own = { ...pricing, models: { 'claude-sonnet-4': { input: 2 }, 'local-qwen': { input: 0.1, output: 0.2 } } };
    expect(priceFor('claude-sonnet-4', own)).toMatchObject({
      source: 'config',
      input: 2,
      cache_read: 0.2,
      cache_write: 2.5,
      output: 10,
    });
    expect(priceFor('local-qwen-32b', own)).toMatchObject({ source: 'config', input: 0.1, output: 0.2 });
    // Only an output price given: the rest stay the built-in entry's.
    const onlyOutput = { ...pricing, models: { 'gpt-4o': { output: 12 } } };
    expect(priceFor('gpt-4o', onlyOutput)).toMatchObject({ input: 2.5, cache_read: 1.25, output: 12 });
  });

  it("let a user's entry for a family not price a model the built-in table names more precisely", () => {
    const family = { ...pricing, models: { 'gpt-4.1': { input: 2 } } };
    expect(priceFor('gpt-4.1-mini', family)).toMatchObject({ source: 'built-in', matched: 'gpt-4.1-mini', input: 0.4 });
    expect(priceFor('gpt-4.1-2025-04-14', family)).toMatchObject({ source: 'config', matched: 'gpt-4.1', input: 2 });
    const host = { input: 0.5, output: 2, cache_read: 0.05, cache_write: 0.5, source: 'official_docs_snapshot' };
    expect(priceFor('gpt-4.1-mini', family, host)).toMatchObject({ source: 'hermes', input: 0.5 });
    expect(priceFor('my-gpt-4.1-finetune', family)).toMatchObject({ source: 'config', input: 2 });
  });

  it('has every built-in price at 0 or more, cache reads never above input', () => {
    for (const [name, p] of Object.entries(BUILT_IN_PRICES)) {
      expect(name).toBe(name.toLowerCase());
      for (const v of Object.values(p)) expect(v).toBeGreaterThanOrEqual(0);
      expect(p.cache_read).toBeLessThanOrEqual(p.input);
    }
  });
});

describe('pricing.models in config.yaml', () => {
  it('takes the old form (a number: the input price) and the new one, names in lower case', () => {
    const { config, issues } = resolveConfig({
      pricing: { models: { 'GPT-4.1': 2, 'claude-x': { input: 1, cache_read: 0.1, cache_write: 1.25, output: 5 } } },
    });
    expect(issues).toEqual([]);
    expect(config.pricing.models).toEqual({
      'gpt-4.1': { input: 2 },
      'claude-x': { input: 1, cache_read: 0.1, cache_write: 1.25, output: 5 },
    });
  });

  it('refuses a field it does not know or a negative price, naming the key and the model (issue 26: the entry alone is left out)', () => {
    for (const bad of [{ m: { input: -1 } }, { m: { inptu: 1 } }, { m: 'cheap' }]) {
      const { config, issues } = resolveConfig({ pricing: { models: bad } });
      expect(issues[0]?.message).toMatch(/^pricing\.models: left out "m" /);
      expect(config.pricing.models).toEqual({});
    }
    expect(resolveConfig({ pricing: { models: 'cheap' } }).issues[0]?.message).toMatch(
      /^pricing\.models: expected a map of model name to a price/,
    );
  });
});
