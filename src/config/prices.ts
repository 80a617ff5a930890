/**
 * The built-in price table: list prices per million tokens of common models (input, cache read,
 * cache write, output), as their providers published them in 2025, for the estimated cost figures
 * (docs/glossary.md "cost"). `pricing.models` in config.yaml adds to it and overrides it by name;
 * `pricing.default_*` prices any model it does not name. docs/configuration.md lists this table
 * (generated, `npm run config:example`).
 *
 * A provider without a surcharge for writing its cache (OpenAI, Google, DeepSeek…) has its cache
 * write priced as plain input; Anthropic's 5-minute cache writes cost 1.25× input.
 *
 * Invariant: every price is a number of 0 or more; names are lower case and matched at word
 * boundaries, the longest matching name winning (store/pricing.ts).
 */

/** Prices of one model, per million tokens. */
export interface ModelPrice {
  /** Input that is not read from or written to a prompt cache. */
  input: number;
  /** Input read from the provider's prompt cache. */
  cache_read: number;
  /** Input written to the provider's prompt cache. */
  cache_write: number;
  output: number;
}

const anthropic = (input: number, output: number): ModelPrice => ({
  input,
  cache_read: input / 10,
  cache_write: input * 1.25,
  output,
});
const plain = (input: number, cacheRead: number, output: number): ModelPrice => ({
  input,
  cache_read: cacheRead,
  cache_write: input,
  output,
});

export const BUILT_IN_PRICES: Readonly<Record<string, ModelPrice>> = {
  'claude-opus-4': anthropic(15, 75),
  'claude-opus-4-1': anthropic(15, 75),
  'claude-opus-4-5': anthropic(5, 25),
  'claude-3-opus': anthropic(15, 75),
  'claude-sonnet-4': anthropic(3, 15),
  'claude-sonnet-4-5': anthropic(3, 15),
  'claude-3-7-sonnet': anthropic(3, 15),
  'claude-3-5-sonnet': anthropic(3, 15),
  'claude-haiku-4-5': anthropic(1, 5),
  'claude-3-5-haiku': anthropic(0.8, 4),
  'claude-3-haiku': { input: 0.25, cache_read: 0.03, cache_write: 0.3, output: 1.25 },
  'gpt-5': plain(1.25, 0.125, 10),
  'gpt-5.1': plain(1.25, 0.125, 10),
  'gpt-5-mini': plain(0.25, 0.025, 2),
  'gpt-5-nano': plain(0.05, 0.005, 0.4),
  'gpt-4.1': plain(2, 0.5, 8),
  'gpt-4.1-mini': plain(0.4, 0.1, 1.6),
  'gpt-4.1-nano': plain(0.1, 0.025, 0.4),
  'gpt-4o': plain(2.5, 1.25, 10),
  'gpt-4o-mini': plain(0.15, 0.075, 0.6),
  'o3': plain(2, 0.5, 8),
  'o3-mini': plain(1.1, 0.55, 4.4),
  'o4-mini': plain(1.1, 0.275, 4.4),
  'gemini-2.5-pro': plain(1.25, 0.31, 10),
  'gemini-2.5-flash': plain(0.3, 0.075, 2.5),
  'gemini-2.5-flash-lite': plain(0.1, 0.025, 0.4),
  'deepseek-chat': plain(0.27, 0.07, 1.1),
  'deepseek-reasoner': plain(0.55, 0.14, 2.19),
  'grok-4': plain(3, 0.75, 15),
  'kimi-k2': plain(0.6, 0.15, 2.5),
  'glm-4.5': plain(0.6, 0.11, 2.2),
};
