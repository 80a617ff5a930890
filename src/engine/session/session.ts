/**
 * One conversation as the engine holds it: per message, its raw content, how it is compressed
 * (single-output strategies, decided once when it first appears) and whether a list-wide rewrite
 * (dedup, error purge, sweep) replaced it; plus what a new process needs to carry on (persisted).
 *
 * Invariant: only the engine's view changes; the raw contents held here are the host's, untouched.
 */
import { creditedStrategy, type MessageState, type PruneKind } from './held.js';
import { ListWideAnswers } from './list-wide-answers.js';
import { Ledger } from '../ledger/ledger.js';
import { viewCounts, type ViewSteps } from '../ledger/message-tokens.js';
import { WorkTally } from './work.js';
import { WORDS_NOT_SAVED, type PersistedSession } from './persisted.js';
import { RewriteIndex } from './rewrite-index.js';
import { InputIndex } from './input-index.js';
import { SessionMeta } from './meta.js';
import { HeldConversation } from './conversation.js';
import { Pruning } from './pruning.js';
import { Layer1State } from './layer1-state.js';
import { RequestView } from './view.js';
import { CallCounts } from './counts.js';
import { ContextEngineState } from './engine-state.js';
import { CatchUpState } from './catch-up-state.js';

export class Session {
  readonly id: string;
  /** Who the session is and what the host says of it (meta.ts). */
  readonly meta: SessionMeta;
  /** The conversation as held: messages, tool records, counts over the list (conversation.ts). */
  readonly held: HeldConversation;
  /** The list-wide rewrites in force and the user's sweep (pruning.ts). */
  readonly pruning: Pruning;
  /** Layer 1's phases in force, the summary waiting, the hint sent (layer1-state.ts). */
  readonly layer1: Layer1State;
  /** The request as last shaped: edits, the view answered, the fixed part sent (view.ts). */
  readonly view: RequestView;
  /** Turns, calls, cache breaks, tool calls and the trails a call is matched against (counts.ts). */
  readonly counts: CallCounts;
  /** What HMC keeps as the host's context engine (issue 16): compactions, phase ids, usage rows. */
  readonly engine: ContextEngineState;
  readonly ledger: Ledger;
  /** Outputs per tool and program, recalls and re-reads (work.ts). */
  readonly work: WorkTally;
  /** Tool results grouped for dedup and error purge, kept up to date as messages arrive. */
  readonly rewriteIndex = new RewriteIndex();
  /** The conversation's tool calls, for input clearing. */
  readonly inputIndex = new InputIndex();
  /** The catch-up after a big first call: outputs waiting, a cache break and landing to take once (turn/catch-up.ts). */
  readonly catchUp = new CatchUpState();
  /** The list-wide strategies' answers kept from one pass to the next (list-wide/list-wide.ts). */
  readonly listWideAnswers = new ListWideAnswers();

  constructor(id: string, now: number, manual: boolean, saved?: PersistedSession) {
    this.id = id;
    this.meta = new SessionMeta(saved?.started_at ?? now, now, saved?.manual_mode ?? manual, saved);
    this.held = new HeldConversation(saved);
    this.pruning = new Pruning(saved);
    this.layer1 = new Layer1State(saved);
    this.view = new RequestView(saved?.context ?? null);
    this.counts = new CallCounts(saved);
    this.engine = new ContextEngineState(saved?.context_engine);
    this.ledger = Ledger.from(saved?.ledger);
    this.work = WorkTally.from(saved?.work);
  }

  /**
   * Host units (characters / 4, the rule Hermes measures its history by) HMC takes off the held
   * conversation as it sends it now. A process that holds nothing yet (a new `hermes -q` turn, whose
   * compaction check comes before any hook) has the figure its predecessor saved.
   */
  hostReduction(): number {
    if (this.held.messages.length === 0) return this.engine.host_reduction;
    let chars = 0;
    for (const m of this.held.messages) {
      const view = this.viewOf(m);
      if (typeof m.raw === 'string' && typeof view === 'string') chars += m.raw.length - view.length;
    }
    return Math.max(0, Math.floor(chars / 4));
  }

  /** What the model is sent for message `i`. */
  viewOf(m: MessageState): unknown {
    if (m.summary !== null) return m.summary;
    if (m.prune) return m.prune.content;
    if (m.single) return m.single.content;
    return m.raw;
  }

  /** What message `m`'s tool calls, call id and name cost as sent (its calls' arguments may be cleared). */
  extraOf(m: MessageState): string {
    return m.inputs ? m.inputs.extra : m.extra;
  }

  /** Message `i`'s edit follows its view (none when it is sent as it is). */
  refreshEdit(i: number): void {
    const m = this.held.messages[i];
    if (!m) return;
    const view = this.viewOf(m);
    this.view.follow(
      i,
      typeof view === 'string' && view !== m.raw ? view : undefined,
      m.inputs ? m.inputs.calls : undefined,
    );
  }

  /** Message `i`'s view changed after it was taken in: its edit follows and the ledger counts it again. */
  viewChanged(i: number): void {
    this.refreshEdit(i);
    const m = this.held.messages[i];
    if (m && i < this.held.ledgerLength) {
      const steps = this.stepsOf(m);
      this.ledger.defer(() => this.ledger.changeMessage(i, steps, m.extra), viewCounts(steps, m.extra));
    }
  }

  /**
   * Tool outputs HMC has shortened: when they arrived, or since (a list-wide rewrite or a layer-1
   * summary in force). The denominator of "recalls and re-reads per 100 elided outputs".
   */
  elided(key: string): boolean {
    if (this.held.records.get(key)?.shortened === true || this.pruning.pruned.has(key)) return true;
    return this.held.messages.some((m) => m.key === key && m.role === 'tool' && m.summary !== null);
  }

  elidedCount(): number {
    let n = 0;
    const summarised = new Set(
      this.held.messages.filter((m) => m.role === 'tool' && m.summary !== null).map((m) => m.key),
    );
    for (const [key, r] of this.held.records)
      if (r.shortened === true || this.pruning.pruned.has(key) || summarised.has(key)) n++;
    return n;
  }

  stepsOf(m: MessageState): ViewSteps {
    const steps: ViewSteps['steps'][number][] = m.single ? [...m.single.steps] : [];
    if (m.prune) steps.push({ strategy: creditedStrategy(m.prune.strategy), content: m.prune.content });
    if (m.inputs) steps.push({ strategy: 'input_clearing', content: m.raw, extra: m.inputs.extra });
    if (m.summary !== null) steps.push({ strategy: 'background_compression', content: m.summary });
    return { raw: m.raw, steps };
  }

  persist(): PersistedSession {
    const { meta, held, pruning, layer1, counts } = this;
    return {
      version: 1,
      session_id: this.id,
      started_at: meta.startedAt,
      ended_at: meta.endedAt,
      model: meta.model,
      platform: meta.platform,
      ...(meta.user ? { user: meta.user } : {}),
      project_path: meta.projectPath,
      context_window: meta.contextWindow,
      manual_mode: meta.manual,
      last_batch_turn: pruning.lastBatchTurn,
      prune_count: pruning.pruneCount,
      cache_breaks: counts.cacheBreaks,
      tool_calls: counts.toolCalls,
      turns: counts.turn,
      records: Object.fromEntries(held.records),
      pruned: Object.fromEntries(pruning.pruned),
      pruned_text: Object.fromEntries(
        [...pruning.prunedText].filter(([k]) => !WORDS_NOT_SAVED.has(pruning.pruned.get(k) as PruneKind)),
      ),
      pruned_age: Object.fromEntries(pruning.prunedAge),
      pruned_stale: Object.fromEntries(pruning.prunedStale),
      last_call_at: counts.lastCallAt,
      phases: layer1.phases.map((p) => ({ ...p })),
      ...(layer1.stagedPhase
        ? { staged_phase: { phase: { ...layer1.stagedPhase.phase }, updated: layer1.stagedPhase.updated } }
        : {}),
      hint_sent: layer1.hintSent,
      sent_length: held.previousCallLength,
      inputs_cleared: Object.fromEntries(pruning.inputsCleared),
      swept: [...pruning.swept],
      // Bounded: signatures of the latest replies are what a re-sent history can repeat.
      accounted: [...held.accounted].slice(-20_000),
      context_sent: counts.contextSent,
      calls_at_send: counts.callsAtSend,
      context_engine: this.engine.snapshot(this.hostReduction()),
      ledger: this.ledger.snapshot(),
      work: this.work.snapshot(),
    };
  }
}
