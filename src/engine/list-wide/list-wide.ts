/**
 * The list-wide pass: which tool results should be sent as a placeholder, in the order they are
 * claimed: placeholders already in force (never re-worded), the user's sweeps, then each list-wide
 * strategy of the registry (strategies/index.ts: error purge, repeats and dedup, stale reads,
 * clearing, edit echoes) proposing over a read-only view of the held list (`ListWideContext`).
 * The engine decides when a change to something already sent is worth its prompt-cache break
 * (batch.ts, ledger/pass.ts).
 *
 * Invariants: protected tools are never rewritten; a placeholder is used only when shorter than
 * what the model is sent now; it stays inside the tool's envelope (exit codes survive); a
 * placeholder once sent stays word for word; the first proposal for a result wins; no two
 * rewrites hide both copies of an output (a repeat's source is never cleared while the repeat is
 * kept, and a repeat is never also a dedup source).
 */
import type { HmcConfig } from '../../config/keys.js';
import { isShorter } from '../../core/tokens.js';
import { LIST_WIDE_STRATEGIES, STRATEGY_OF_KIND } from '../../strategies/index.js';
import {
  withRecall,
  type HeldResult,
  type ListWideContext as StrategyContext,
  type SavedWords,
} from '../../strategies/list-wide/strategy.js';
import type { MessageState, Prune, PruneKind } from '../session/held.js';
import type { Protection } from '../session/protection.js';
import type { Session } from '../session/session.js';
import {
  currentStepCalls,
  fileEvents,
  fileOpFor,
  isFailed,
  keptForRecall,
  memoOf,
  outputReportsFailure,
  placeholderOf,
  readOf,
  recallIdOf,
  sentChars,
} from './facts.js';

export { fileEvents, isFailed, keptForRecall } from './facts.js';

/** The original's generic placeholder (reference §5.2), used for sweeps. */
export const SWEPT_PLACEHOLDER = '[Output removed to save context — information superseded or no longer needed]';

export interface ListWideContext {
  /** Messages from this index on were not sent yet: a repeat among them costs no cache break. */
  firstUnsent: number;
  /** The model's context window in tokens. */
  window: number;
}

export function listWideRewrites(
  s: Session,
  config: HmcConfig,
  protection: Protection,
  pass: ListWideContext,
): Map<string, Prune> {
  const wanted = new Map<string, Prune>();
  if (!config.enabled) return wanted;
  indexUpTo(s, config, s.held.messages.length);
  const automatic = !(s.meta.manual && !config.manual_mode.automatic_strategies);
  const ctx = contextOf(s, config, protection, pass, wanted);

  for (const key of s.pruning.swept) {
    const m = s.rewriteIndex.byKey.get(key)?.message;
    if (m && !protection.sweep.has(m.tool.toLowerCase()))
      ctx.propose(m, 'sweep', withRecall(SWEPT_PLACEHOLDER, ctx.recall(m)));
  }
  // Placeholders in force (in this process, or saved by an earlier one) stay, word for word.
  for (const [key, kind] of s.pruning.pruned) {
    const m = s.rewriteIndex.byKey.get(key)?.message;
    if (!m || wanted.has(key)) continue;
    if (m.prune?.strategy === kind) {
      wanted.set(key, m.prune);
      continue;
    }
    const words = savedWords(s, m, kind, ctx);
    if (words !== null) ctx.propose(m, kind, words.text, words.extra);
  }
  if (!automatic) return wanted;
  for (const strategy of LIST_WIDE_STRATEGIES) if (strategy.enabled(config)) strategy.propose(ctx);
  return wanted;
}

/** The words of a placeholder in force, as they were first sent (null when they cannot be rebuilt). */
function savedWords(s: Session, m: MessageState, kind: PruneKind, ctx: StrategyContext): SavedWords | null {
  const strategy = STRATEGY_OF_KIND.get(kind);
  if (strategy?.rewords) return strategy.rewords(kind, m, ctx);
  const text = s.pruning.prunedText.get(m.key);
  return text === undefined ? null : { text, extra: {} };
}

/** The view of the held list one pass gives the strategies, and the one way they propose. */
function contextOf(
  s: Session,
  config: HmcConfig,
  protection: Protection,
  pass: ListWideContext,
  wanted: Map<string, Prune>,
): StrategyContext {
  const index = s.rewriteIndex;
  // Every HeldResult a strategy is given is one of the session's messages.
  const held = (m: HeldResult): MessageState => m as MessageState;
  let current: Set<string> | null = null;
  return {
    config,
    style: config.prune_notification,
    turn: s.counts.turn,
    window: pass.window,
    firstUnsent: pass.firstUnsent,
    projectPath: s.meta.projectPath,
    protection,
    results: index.results,
    failedResults: index.failed,
    byKey: (key) => index.byKey.get(key),
    message: (key) => index.byKey.get(key)?.message,
    firstByText: (raw) => index.firstByText.get(raw),
    possibleDuplicates: () => index.possibleDuplicates(),
    propose: (m, kind, text, extra = {}) => propose(s, wanted, held(m), kind as PruneKind, text, extra),
    proposed: (key) => wanted.get(key)?.strategy,
    pointers: new Map(),
    inForce: (key) => s.pruning.pruned.get(key),
    savedText: (key) => s.pruning.prunedText.get(key),
    savedDetail: (key) => ({ age: s.pruning.prunedAge.get(key), stale: s.pruning.prunedStale.get(key) }),
    fileOp: (m) => fileOpFor(held(m)).op,
    readOf: (m) => readOf(held(m)),
    failed: (m) => isFailed(s, held(m)),
    reportsFailure: (m) => outputReportsFailure(held(m)),
    recallId: (m) => recallIdOf(s, held(m)),
    recall: (m) => (keptForRecall(held(m)) ? recallIdOf(s, held(m)) : undefined),
    fileEvents: () => fileEvents(s, index.results, protection, wanted),
    currentStep: () => (current ??= currentStepCalls(s)),
    sentTokens: (m) => sentChars(held(m), wanted) / 4,
    contextTokens: () => {
      let context = 0;
      for (const m of s.held.messages) context += sentChars(m, wanted) / 4;
      return context;
    },
    once: <T>(m: HeldResult, slot: string, key: string, compute: () => T): T => {
      const memo = memoOf(held(m));
      const slots = (memo.slots ??= new Map());
      const known = slots.get(slot);
      if (known && known.key === key) return known.value as T;
      const value = compute();
      slots.set(slot, { key, value });
      return value;
    },
    cached: <T>(slot: string, key: string, compute: () => T): T =>
      s.listWideAnswers.answer(slot, { version: index.version, config, manual: s.meta.manual, key }, compute),
  };
}

/**
 * Proposes `text` as `m`'s placeholder under `kind`, unless an earlier proposal took `m`; keeps it
 * only when it makes `m` shorter (isShorter on the view the model is sent now).
 */
function propose(
  s: Session,
  wanted: Map<string, Prune>,
  m: MessageState,
  strategy: PruneKind,
  text: string,
  extra: Pick<Prune, 'age' | 'stale'>,
): void {
  if (wanted.has(m.key)) return;
  // A placeholder once sent stays word for word (a later duplicate must not re-word "called 2×"
  // into "called 3×": that would rewrite an old message and break the provider's prompt cache).
  if (m.prune?.strategy === strategy) {
    wanted.set(m.key, m.prune);
    return;
  }
  // The same holds for a placeholder sent by an earlier process (Hermes -q runs one per turn).
  const sent = s.pruning.pruned.get(m.key) === strategy ? s.pruning.prunedText.get(m.key) : undefined;
  if (sent !== undefined) text = sent;
  // Proposals wait for a pass call after call: the placeholder is built and weighed once.
  const current = m.single ? m.single.content : (m.raw as string);
  const memo = memoOf(m);
  const known = memo.proposal;
  if (known && known.text === text && known.current === current) {
    if (known.content !== null) wanted.set(m.key, { strategy, text, content: known.content, ...extra });
    return;
  }
  const content = placeholderOf(m, text);
  const worth = isShorter(content, current);
  memo.proposal = { text, current, content: worth ? content : null };
  if (worth) wanted.set(m.key, { strategy, text, content, ...extra });
}

/** Indexes the held messages up to `end` (the whole list at a batch; slices of it while catching up). */
export function indexUpTo(s: Session, config: HmcConfig, end: number, warm = false): void {
  const from = s.rewriteIndex.length;
  s.rewriteIndex.update(
    s.held.messages,
    (key) => s.held.records.get(key)?.fingerprint ?? `#${key}`,
    (m) => isFailed(s, m),
    config,
    end,
  );
  if (!warm) return;
  // In the background (a big first call's catch-up), what the first pass parses of each output is
  // parsed now, so the pass in the next hook only reads it: 100 K messages left 1.5 s of parsing to
  // that hook, over the bridge's 2 s limit on a loaded machine (issue 19).
  for (let i = from; i < s.rewriteIndex.length; i++) {
    const m = s.held.messages[i];
    if (m?.role !== 'tool' || typeof m.raw !== 'string') continue;
    fileOpFor(m);
    recallIdOf(s, m);
    outputReportsFailure(m);
  }
}
