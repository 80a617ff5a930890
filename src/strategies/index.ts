/**
 * The strategy registry: every strategy with the name its savings are credited under (stable,
 * shown to users), its kind and its config section. `engine/turn/compress.ts` runs the single-output
 * ones, in this order, on every new tool output; `engine/list-wide/list-wide.ts` runs the list-wide
 * ones, in this order, over the whole held conversation at a pass (each proposes placeholders of
 * its kinds: `ListWideStrategy` in list-wide/strategy.ts); input clearing rewrites calls'
 * arguments, not results (`engine/list-wide/inputs.ts`); `background_compression` is layer 1
 * (`engine/layer1/layer1.ts`). The placeholder kinds (`PlaceholderKind`) come from the list-wide
 * entries.
 *
 * A new single-output strategy is its file in single/, one line here, and its keys (at least
 * `<section>.enabled`) in config/table.ts; test/strategies/contract.test.ts then holds it to the
 * rules every strategy keeps. A new list-wide strategy is the same: its file in list-wide/ (a
 * `ListWideStrategy`), one `listWide(...)` line here where it should claim results, and its keys;
 * test/strategies/list-wide-contract.test.ts holds it to the list-wide contract.
 *
 * Invariant: names are unique; each entry's section has an `enabled` key in the config table.
 */
import { sectionOf, type ConfigAt, type HmcConfig, type SwitchedSection } from '../config/keys.js';
import type { Strategy, StrategyResult, ToolOutput } from '../core/strategy.js';
import { codeFilter } from './single/code-filter/index.js';
import { clearing } from './list-wide/clearing.js';
import { dedup } from './list-wide/dedup.js';
import { editEcho } from './list-wide/edit-echo.js';
import { errorPurge } from './list-wide/error-purge.js';
import { staleReads } from './list-wide/stale-reads.js';
import type { ListWideStrategy } from './list-wide/strategy.js';
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

/** A list-wide strategy that proposes placeholders for tool results, bound to its registry entry. */
export interface ListWideEntry<N extends string = string, K extends string = string>
  extends Entry<N>,
    ListWideStrategy<K> {
  name: N;
  kind: 'list-wide';
  /** Its section's `enabled` in `config`. */
  enabled(config: HmcConfig): boolean;
}

/** A strategy the engine plans by its own rules (input clearing) or runs as layer 1 (summary). */
export interface PlannedStrategy<N extends string = string> extends Entry<N> {
  kind: 'list-wide' | 'summary';
}

function single<const N extends string, const P extends SwitchedSection>(
  name: N,
  config: P,
  strategy: Strategy<ConfigAt<P>>,
): SingleStrategy<N> {
  return {
    name,
    kind: 'single',
    config,
    enabled: (c) => sectionOf(c, config).enabled,
    run: (output, c, weights) => strategy(output, sectionOf(c, config), weights),
  };
}

function listWide<const N extends string, const K extends string>(
  strategy: ListWideStrategy<K> & { name: N },
): ListWideEntry<N, K> {
  return { ...strategy, kind: 'list-wide', enabled: (c) => sectionOf(c, strategy.config).enabled };
}

function planned<const N extends string>(
  name: N,
  kind: PlannedStrategy['kind'],
  config: SwitchedSection,
): PlannedStrategy<N> {
  return { name, kind, config };
}

export const STRATEGIES = [
  single('short_circuit', 'short_circuits', shortCircuit),
  single('code_filter', 'code_filter', codeFilter),
  single('truncation', 'truncation', truncate),
  listWide(errorPurge),
  listWide(dedup),
  listWide(staleReads),
  listWide(clearing),
  listWide(editEcho),
  planned('input_clearing', 'list-wide', 'strategies.input_clearing'),
  planned('background_compression', 'summary', 'background_compression'),
] as const;

/** The names savings are credited under. */
export type StrategyName = (typeof STRATEGIES)[number]['name'];

/** The single-output strategies, in the order compress.ts runs them. */
export const SINGLE_STRATEGIES = STRATEGIES.filter((s) => s.kind === 'single');

/** The list-wide strategies, in the order their proposals claim a tool result. */
export const LIST_WIDE_STRATEGIES = STRATEGIES.filter(
  (s): s is Extract<(typeof STRATEGIES)[number], { propose: unknown }> => 'propose' in s,
);

/** Why a tool result is sent as a placeholder: a list-wide strategy's kind, or the user's sweep (hmc_control). */
export type PlaceholderKind = 'sweep' | (typeof LIST_WIDE_STRATEGIES)[number]['kinds'][number];

/** Every placeholder kind, the user's sweep first, then the strategies' in order of claim. */
export const PLACEHOLDER_KINDS: readonly PlaceholderKind[] = ['sweep', ...LIST_WIDE_STRATEGIES.flatMap((s) => s.kinds)];

/** The list-wide strategy of each placeholder kind (the sweep has none: its words are saved). */
export const STRATEGY_OF_KIND: ReadonlyMap<string, ListWideEntry> = new Map<string, ListWideEntry>(
  LIST_WIDE_STRATEGIES.flatMap((s) => s.kinds.map((k) => [k, s] as const)),
);
