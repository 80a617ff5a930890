/**
 * The rewrites that look at the whole conversation, in the order they claim a tool result:
 * placeholders already in force (never re-worded), the user's sweeps, error purge, exact repeats of
 * an earlier output, deduplication (older copies of the same call or output), stale reads (a file
 * read later re-read, rewritten or patched), clearing of old outputs once the context passes its
 * threshold, and edit echoes (edit-echoes.ts) for the edits clearing left. Computes which tool
 * results should be sent as a placeholder; the engine decides when a change to something already
 * sent is worth its prompt-cache break (pass.ts).
 *
 * Invariants: protected tools are never rewritten; a placeholder is used only when shorter than
 * what the model is sent now; it stays inside the tool's envelope (exit codes survive); no two
 * rewrites hide both copies of an output (a repeat's source is never cleared while the repeat is
 * kept, and a repeat is never also a dedup source).
 */
import type { HmcConfig } from '../../config/keys.js';
import { planClearing, type ClearCandidate } from '../../strategies/list-wide/clearing.js';
import { findDuplicates } from '../../strategies/list-wide/dedup.js';
import { findStaleErrors } from '../../strategies/list-wide/error-purge.js';
import { fileOpOf, normalizePath, type FileOp } from '../../strategies/shared/file-ops.js';
import { clearedPlaceholder, dedupPlaceholder, errorPlaceholder, repeatPlaceholder, staleReadPlaceholder } from '../../strategies/list-wide/placeholders.js';
import { reportsFailure } from '../../strategies/shared/signals.js';
import { findStaleReads, type FileEvent, type StaleRead } from '../../strategies/list-wide/stale-reads.js';
import { echoWords, editEchoes, type ResultFacts } from './edit-echoes.js';
import { parseEnvelope, placeholderBuilder } from '../../hosts/outputs/envelope.js';
import type { Protection } from '../session/protection.js';
import { recallId } from '../session/recall.js';
import { isShorter } from '../../core/tokens.js';
import type { IndexedResult } from '../session/rewrite-index.js';
import type { MessageState, Prune, PruneKind } from '../session/held.js';
import type { Session } from '../session/session.js';

/** The original's generic placeholder (reference §5.2), used for sweeps. */
export const SWEPT_PLACEHOLDER = '[Output removed to save context — information superseded or no longer needed]';

/**
 * Outputs below this many estimated tokens are not worth clearing: a marker is ~30 tokens, so a
 * cleared output saves at least two thirds of itself. (150 before: mini-swe-agent's many short
 * shell outputs stayed; at 100 its input saved rose 0.8 points, claude-code's and codex's 0.1.)
 */
export const MIN_CLEAR_TOKENS = 100;

export interface ListWideContext {
  /** Messages from this index on were not sent yet: a repeat among them costs no cache break. */
  firstUnsent: number;
  /** The model's context window in tokens. */
  window: number;
}

/** How to put a placeholder inside each message's envelope (parsed once per message). */
const builders = new WeakMap<MessageState, (text: string) => string>();
/** The last placeholder weighed for each message: its words, and its content when it saves tokens. */
const proposals = new WeakMap<MessageState, { text: string; current: string; content: string | null }>();
/** Each tool result's recall id (a hash), and whether its text reports a failure: worked out once per message. */
const recallIds = new WeakMap<MessageState, string>();
const failures = new WeakMap<MessageState, boolean>();

function recallIdOf(s: Session, m: MessageState): string {
  let id = recallIds.get(m);
  if (id === undefined) recallIds.set(m, (id = recallId(s.id, m.key)));
  return id;
}

function outputReportsFailure(m: MessageState): boolean {
  let failed = failures.get(m);
  if (failed === undefined) failures.set(m, (failed = typeof m.raw === 'string' && reportsFailure(m.raw)));
  return failed;
}
/** What each tool result did to a file (parsed once per message). */
const fileOps = new WeakMap<MessageState, { op: FileOp | null; shows: boolean }>();
/** The last dedup answer per session, reused while no duplicate group changed. */
const dedupCache = new WeakMap<Session, { version: number; config: HmcConfig; manual: boolean; excluded: number; found: Map<string, Prune> }>();

export function listWideRewrites(s: Session, config: HmcConfig, protection: Protection, ctx: ListWideContext): Map<string, Prune> {
  const wanted = new Map<string, Prune>();
  if (!config.enabled) return wanted;
  const index = s.rewriteIndex;
  indexUpTo(s, config, s.held.messages.length);
  const automatic = !(s.meta.manual && !config.manual_mode.automatic_strategies);
  const style = config.prune_notification;
  const message = (key: string): MessageState | undefined => index.byKey.get(key)?.message;
  const recall = (m: MessageState): string | undefined => (keptForRecall(m) ? recallIdOf(s, m) : undefined);

  const propose = (m: MessageState, strategy: PruneKind, text: string, extra: Pick<Prune, 'age' | 'stale'> = {}): void => {
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
    const known = proposals.get(m);
    if (known && known.text === text && known.current === current) {
      if (known.content !== null) wanted.set(m.key, { strategy, text, content: known.content, ...extra });
      return;
    }
    let build = builders.get(m);
    if (!build) builders.set(m, (build = placeholderBuilder(m.raw as string)));
    const content = build(text);
    const worth = isShorter(content, current);
    proposals.set(m, { text, current, content: worth ? content : null });
    if (worth) wanted.set(m.key, { strategy, text, content, ...extra });
  };

  for (const key of s.pruning.swept) {
    const m = message(key);
    if (m && !protection.sweep.has(m.tool.toLowerCase())) propose(m, 'sweep', withRecall(SWEPT_PLACEHOLDER, recall(m)));
  }
  // Placeholders in force (in this process, or saved by an earlier one) stay, word for word.
  for (const [key, kind] of s.pruning.pruned) {
    const m = message(key);
    if (!m || wanted.has(key)) continue;
    if (m.prune?.strategy === kind) {
      wanted.set(key, m.prune);
      continue;
    }
    const words = savedWords(s, m, kind, style, recall(m));
    if (words !== null) propose(m, kind, words.text, words.extra);
  }
  if (!automatic) return wanted;

  if (config.strategies.purge_errors.enabled && index.failed.length > 0) {
    const entries = index.failed.map(({ message: m }) => ({ id: m.key, tool: m.tool.toLowerCase(), isError: true, turn: m.turn }));
    const stale = findStaleErrors(entries, s.counts.turn, { turns: config.strategies.purge_errors.turns, protected: protection.errorPurge });
    for (const id of stale) {
      const m = message(id) as MessageState;
      // The age an earlier process already stated, so the words come out the same.
      const age = (s.pruning.pruned.get(id) === 'error_purge' ? s.pruning.prunedAge.get(id) : undefined) ?? s.counts.turn - m.turn;
      propose(m, 'error_purge', withRecall(errorPlaceholder({ tool: m.tool, age, text: m.raw as string }, style), recall(m)), { age });
    }
  }

  const repeats = new Map<string, IndexedResult>();
  if (config.strategies.deduplication.enabled) {
    proposeRepeats(s, index.results, protection, ctx, repeats, (m, source) =>
      propose(m, 'repeat', repeatPlaceholder({ tool: m.tool, sourceCall: callIdOf(source.message), recall: recall(m) }, style)),
    );
    proposeDuplicates(s, config, protection, repeats, (m, prune) => propose(m, 'dedup', withRecall(prune, recall(m))));
  }

  if (config.strategies.stale_reads.enabled) {
    const stale = findStaleReads(fileEvents(s, index.results, protection, wanted));
    for (const [id, info] of stale) {
      const m = message(id);
      if (m && !protection.tool(m.tool)) propose(m, 'stale_reads', staleReadPlaceholder(displayed(info, m), style), { stale: { by: info.by, byCall: info.byCall } });
    }
  }

  if (config.strategies.clearing.enabled) {
    const c = config.strategies.clearing;
    const excluded = new Set([...c.exclude_tools, 'hmc_control'].map((t) => t.toLowerCase()));
    // A repeat that is kept points at its source: the source stays while the repeat does.
    const sources = new Set<string>();
    for (const [key, source] of repeats) if (!wanted.has(key) || wanted.get(key)?.strategy === 'repeat') sources.add(source.message.key);
    // The current step's results (the latest assistant message's calls) are what the model reads
    // next: never cleared, however many calls that message made.
    const current = currentStepCalls(s);
    const candidates: ClearCandidate[] = index.results.map(({ message: m }) => ({
      id: m.key,
      tokens: sentChars(m, wanted) / 4,
      locked: wanted.has(m.key) || m.prune !== null || sources.has(m.key) || current.has(m.key) || protection.tool(m.tool) || excluded.has(m.tool.toLowerCase()) || protection.file(readOf(m)?.path),
    }));
    let context = 0;
    for (const m of s.held.messages) context += sentChars(m, wanted) / 4;
    const cleared = planClearing(candidates, context, {
      trigger: c.trigger_percent * ctx.window,
      target: c.target_percent * ctx.window,
      keep: c.keep,
      minTokens: MIN_CLEAR_TOKENS,
    });
    for (const id of cleared) {
      const m = message(id) as MessageState;
      propose(m, 'clearing', clearedWords(s, m, style));
    }
  }

  // After clearing, which takes an old output whole: an edit's output it left (under its size,
  // among the last `keep`, or clearing off) still sheds the snippet of the file it echoes.
  if (config.strategies.edit_echo.enabled) {
    for (const key of editEchoes(s, config.strategies.edit_echo.keep_calls, protection, wanted, resultFacts(s, protection, wanted))) {
      const m = message(key) as MessageState;
      const words = echoWords(m, recallIdOf(s, m), style);
      if (words !== null) propose(m, 'edit_echo', words);
    }
  }
  return wanted;
}

/** The words of a placeholder in force, as they were first sent (null when they cannot be rebuilt). */
function savedWords(s: Session, m: MessageState, kind: PruneKind, style: HmcConfig['prune_notification'], recall: string | undefined): { text: string; extra: Pick<Prune, 'age' | 'stale'> } | null {
  switch (kind) {
    case 'error_purge': {
      const age = s.pruning.prunedAge.get(m.key);
      return age === undefined ? null : { text: withRecall(errorPlaceholder({ tool: m.tool, age, text: m.raw as string }, style), recall), extra: { age } };
    }
    case 'stale_reads': {
      const stale = s.pruning.prunedStale.get(m.key);
      const read = readOf(m);
      return stale && read ? { text: staleReadPlaceholder({ path: read.path, span: read.span, tool: m.tool, ...stale }, style), extra: { stale } } : null;
    }
    case 'clearing':
      return { text: clearedWords(s, m, style), extra: {} };
    case 'edit_echo': {
      const text = echoWords(m, recallIdOf(s, m), style);
      return text === null ? null : { text, extra: {} };
    }
    default: {
      const text = s.pruning.prunedText.get(m.key);
      return text === undefined ? null : { text, extra: {} };
    }
  }
}

/** A cleared output's marker: how to read a file again, else its recall id (a failure keeps its reason). */
function clearedWords(s: Session, m: MessageState, style: HmcConfig['prune_notification']): string {
  const read = readOf(m);
  if (read) return clearedPlaceholder({ tool: m.tool, read: { path: read.path, span: read.span } }, style);
  // An output that reports a failure keeps why, even when the call itself succeeded ("3 failed").
  const failed = isFailed(s, m) || outputReportsFailure(m);
  return clearedPlaceholder({ tool: m.tool, recall: recallIdOf(s, m), ...(failed ? { failedText: m.raw as string } : {}) }, style);
}

/** New results (not sent yet) that repeat an earlier output exactly become a pointer to it. */
function proposeRepeats(
  s: Session,
  results: readonly IndexedResult[],
  protection: Protection,
  ctx: ListWideContext,
  repeats: Map<string, IndexedResult>,
  propose: (m: MessageState, source: IndexedResult) => void,
): void {
  const firstByText = s.rewriteIndex.firstByText;
  for (const item of results) {
    const m = item.message;
    // In force from an earlier call: its source is still the first of its text.
    const inForce = m.prune?.strategy === 'repeat' || s.pruning.pruned.get(m.key) === 'repeat';
    if (!inForce && item.index < ctx.firstUnsent) continue;
    if (typeof m.raw !== 'string' || protection.dedup.has(m.tool.toLowerCase())) continue;
    const source = firstByText.get(m.raw);
    if (!source || source === item || source.message.tool.toLowerCase() !== m.tool.toLowerCase()) continue;
    // The source must still be shown: a source that is itself a placeholder points nowhere.
    if (source.message.prune !== null && source.message.prune.strategy !== 'repeat') continue;
    repeats.set(m.key, source);
    propose(m, source);
  }
}

/** Older copies of the same call or output (the latest copy that is shown stays whole). */
function proposeDuplicates(
  s: Session,
  config: HmcConfig,
  protection: Protection,
  repeats: ReadonlyMap<string, IndexedResult>,
  propose: (m: MessageState, text: string) => void,
): void {
  const index = s.rewriteIndex;
  const style = config.prune_notification;
  const cached = dedupCache.get(s);
  if (cached && cached.version === index.version && cached.config === config && cached.manual === s.meta.manual && cached.excluded === repeats.size) {
    for (const [key, prune] of cached.found) {
      const m = index.byKey.get(key)?.message;
      if (m) propose(m, prune.text);
    }
    return;
  }
  // A repeat already points at an earlier copy: it takes no part in dedup (both copies would go).
  const possible = index.possibleDuplicates().filter((e) => !repeats.has(e.id));
  const duplicates = possible.length > 0 ? findDuplicates(possible, { normalize: config.strategies.deduplication.normalize, protected: protection.dedup }) : new Map();
  const found = new Map<string, Prune>();
  for (const [id, dup] of duplicates) {
    const m = index.byKey.get(id)?.message as MessageState;
    const text = dedupPlaceholder({ tool: m.tool, count: dup.groupSize, by: dup.by }, style);
    found.set(id, { strategy: 'dedup', text, content: '' });
    propose(m, text);
  }
  dedupCache.set(s, { version: index.version, config, manual: s.meta.manual, excluded: repeats.size, found });
}

/** The file events of the conversation, in order, for stale reads and input clearing. */
export function fileEvents(s: Session, results: readonly IndexedResult[], protection: Protection, wanted: ReadonlyMap<string, Prune>): FileEvent[] {
  const events: FileEvent[] = [];
  for (const { message: m } of results) {
    const parsed = fileOpFor(m);
    if (!parsed.op) continue;
    const paths = parsed.op.op === 'read' ? [parsed.op.path] : parsed.op.paths;
    const read = parsed.op.op === 'read';
    if (read && protection.file(parsed.op.op === 'read' ? parsed.op.path : undefined)) continue;
    const prune = wanted.get(m.key) ?? m.prune;
    events.push({
      id: m.key,
      callId: callIdOf(m),
      tool: m.tool,
      op: parsed.op,
      paths: paths.map((p) => normalizePath(p, s.meta.projectPath)),
      failed: isFailed(s, m),
      // A read now sent as a placeholder (a repeat, a dedup) shows no lines to supersede others with.
      showsLines: parsed.shows && (prune === undefined || prune === null),
    });
  }
  return events;
}

function fileOpFor(m: MessageState): { op: FileOp | null; shows: boolean } {
  let parsed = fileOps.get(m);
  if (!parsed) {
    if (typeof m.raw !== 'string') parsed = { op: null, shows: false };
    else {
      const output = parseEnvelope(m.raw, { tool: m.tool, args: m.args }).output;
      const op = fileOpOf(output);
      parsed = { op, shows: op?.op === 'read' && (output.fileLines !== undefined ? output.fileLines.end > output.fileLines.start : output.text.trim().length > 0) };
    }
    fileOps.set(m, parsed);
  }
  return parsed;
}

/**
 * A placeholder of this result names a recall id: anything but a file read, which is read again.
 * An output numbered like a read (an edit's that echoes the file) is kept when `kind`'s marker
 * names a recall id whatever the output (clearing's, edit echo's).
 */
export function keptForRecall(m: MessageState, kind?: PruneKind): boolean {
  return readOf(m) === undefined && (m.single?.kind !== 'file' || kind === 'clearing' || kind === 'edit_echo');
}

/** The read this tool result is, if it is one. */
function readOf(m: MessageState): { path: string; span: { first: number; last: number } } | undefined {
  const op = fileOpFor(m).op;
  return op?.op === 'read' ? { path: op.path, span: op.span } : undefined;
}

/** The stale read as its marker shows it: the path as the agent wrote it. */
function displayed(info: StaleRead, m: MessageState): StaleRead {
  return { ...info, path: readOf(m)?.path ?? info.path };
}

/** The characters a message is sent with after `wanted` (an estimate's input: chars / 4 ≈ tokens). */
function sentChars(m: MessageState, wanted: ReadonlyMap<string, Prune>): number {
  const planned = m.role === 'tool' ? wanted.get(m.key) : undefined;
  const view = planned ? planned.content : m.prune ? m.prune.content : m.single ? m.single.content : m.raw;
  const extra = m.inputs ? m.inputs.extra : m.extra;
  return typeof view === 'string' ? view.length + extra.length : extra.length + 200;
}

function withRecall(text: string, id: string | undefined): string {
  return id ? `${text} (recall id=${id})` : text;
}

/** What edit-echoes.ts asks of each result, as this file works it out once per message. */
function resultFacts(s: Session, protection: Protection, wanted: ReadonlyMap<string, Prune>): ResultFacts {
  return {
    fileOp: (m) => fileOpFor(m).op,
    failed: (m) => isFailed(s, m),
    reportsFailure: outputReportsFailure,
    current: currentStepCalls(s),
    events: () => fileEvents(s, s.rewriteIndex.results, protection, wanted),
  };
}

/** The ids of the calls of the latest assistant message that made any (the current step). */
function currentStepCalls(s: Session): Set<string> {
  for (let i = s.held.messages.length - 1; i >= 0; i--) {
    const m = s.held.messages[i] as MessageState;
    const calls = m.role === 'assistant' ? m.source.tool_calls : undefined;
    if (Array.isArray(calls) && calls.length > 0) return new Set(calls.map((c) => (typeof c?.id === 'string' ? c.id : '')).filter((id) => id !== ''));
  }
  return new Set();
}

/** The id the model saw for the call (the result's key, unless it had none). */
function callIdOf(m: MessageState): string {
  return m.key.startsWith('#') ? '' : m.key;
}

/** Indexes the held messages up to `end` (the whole list at a batch; slices of it while catching up). */
export function indexUpTo(s: Session, config: HmcConfig, end: number, warm = false): void {
  const from = s.rewriteIndex.length;
  s.rewriteIndex.update(s.held.messages, (key) => s.held.records.get(key)?.fingerprint ?? `#${key}`, (m) => isFailed(s, m), config, end);
  if (!warm) return;
  // In the background (a big first call's catch-up), what the first pass parses of each output is
  // parsed now, so the pass in the next hook only reads it: 100 K messages left 1.5 s of parsing to
  // that hook, over the bridge's 2 s limit on a loaded machine (issue 19).
  for (let i = from; i < s.rewriteIndex.length; i++) {
    const m = s.held.messages[i];
    if (!m || m.role !== 'tool' || typeof m.raw !== 'string') continue;
    fileOpFor(m);
    if (!builders.has(m)) builders.set(m, placeholderBuilder(m.raw));
    recallIdOf(s, m);
    outputReportsFailure(m);
  }
}

/** The call of this result failed (the host said so, or its output reports it). */
export function isFailed(s: Session, m: MessageState): boolean {
  return s.held.records.get(m.key)?.isError === true || m.single?.isError === true;
}
