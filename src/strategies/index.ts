/**
 * The strategy registry: every strategy with the name its savings are credited under (stable,
 * shown to users), its kind and its config section. `engine/turn/compress.ts` runs the single-output
 * ones, in this order, on every new tool output; the list-wide ones are planned over the whole
 * conversation by `engine/list-wide/list-wide.ts`; `background_compression` is layer 1 (`engine/layer1/layer1.ts`).
 *
 * A new single-output strategy is its file in single/, one line here, and its keys (at least
 * `<section>.enabled`) in config/keys.ts; test/strategies/contract.test.ts then holds it to the
 * rules every strategy keeps.
 *
 * Invariant: names are unique; each entry's section has an `enabled` key in the config table.
 */
import { sectionOf, type ConfigAt, type HmcConfig, type SwitchedSection } from '../config/keys.js';
import type { Strategy, StrategyResult, ToolOutput } from '../core/strategy.js';
import { codeFilter } from './single/code-filter/index.js';
import { shortCircuit } from './single/short-circuit.js';
import { truncate } from './single/truncation.js';

/** What a strategy works on: one tool output, a whole conversation's tool results, or finished work. */
export type StrategyKind = 'single' | 'list-wide' | 'summary';

interface Entry<N extends string> {
  /** The key savings are credited under. */
  name: N;
  kind: StrategyKind;
  /** Its config section (the keys under it, `enabled` among them). */
  config: SwitchedSection;
}

/** A single-output strategy, bound to its own config section. */
export interface SingleStrategy<N extends string = string> extends Entry<N> {
  kind: 'single';
  /** Its section's `enabled` in `config`. */
  enabled(config: HmcConfig): boolean;
  /** Runs it on one output with its own section of `config` (see `Strategy` for `weights`). */
  run(output: ToolOutput, config: HmcConfig, weights?: readonly number[]): StrategyResult;
}

/** A strategy the engine plans over the conversation (list-wide) or runs as layer 1 (summary). */
export interface PlannedStrategy<N extends string = string> extends Entry<N> {
  kind: 'list-wide' | 'summary';
}

function single<const N extends string, const P extends SwitchedSection>(name: N, config: P, strategy: Strategy<ConfigAt<P>>): SingleStrategy<N> {
  return {
    name,
    kind: 'single',
    config,
    enabled: (c) => sectionOf(c, config).enabled,
    run: (output, c, weights) => strategy(output, sectionOf(c, config), weights),
  };
}

function planned<const N extends string>(name: N, kind: PlannedStrategy['kind'], config: SwitchedSection): PlannedStrategy<N> {
  return { name, kind, config };
}

export const STRATEGIES = [
  single('short_circuit', 'short_circuits', shortCircuit),
  single('code_filter', 'code_filter', codeFilter),
  single('truncation', 'truncation', truncate),
  planned('dedup', 'list-wide', 'strategies.deduplication'),
  planned('error_purge', 'list-wide', 'strategies.purge_errors'),
  planned('stale_reads', 'list-wide', 'strategies.stale_reads'),
  planned('edit_echo', 'list-wide', 'strategies.edit_echo'),
  planned('clearing', 'list-wide', 'strategies.clearing'),
  planned('input_clearing', 'list-wide', 'strategies.input_clearing'),
  planned('background_compression', 'summary', 'background_compression'),
] as const;

/** The names savings are credited under. */
export type StrategyName = (typeof STRATEGIES)[number]['name'];

/** The single-output strategies, in the order compress.ts runs them. */
export const SINGLE_STRATEGIES = STRATEGIES.filter((s) => s.kind === 'single');
