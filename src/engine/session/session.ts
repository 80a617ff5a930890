/**
 * One conversation as the engine holds it: per message, its raw content, how it is compressed
 * (single-output strategies, decided once when it first appears) and whether a list-wide rewrite
 * (dedup, error purge, sweep) replaced it; plus what a new process needs to carry on (persisted).
 *
 * Invariant: only the engine's view changes; the raw contents held here are the host's, untouched.
 */
import { creditedStrategy, type MessageState, type Phase, type PruneKind, type StaleDetail, type ToolRecord } from './held.js';
import { Ledger, viewCounts, type ViewSteps } from '../ledger/ledger.js';
import { WorkTally } from './work.js';
import { WORDS_NOT_SAVED, type EngineState, type PersistedSession } from './persisted.js';
import type { Compression, ListWideCache } from './held.js';
import { RewriteIndex } from './rewrite-index.js';
import { InputIndex } from './input-index.js';
import type { UsageTrail } from '../ledger/usage-match.js';
import { newTrack, type CacheTrack } from '../ledger/cache-track.js';
import type { ToolCall } from '../../core/message.js';
import type { InputClearing } from '../../strategies/list-wide/input-clearing.js';
import type { ContextBreakdown } from '../../core/context-view.js';

export class Session {
  readonly id: string;
  startedAt: number;
  endedAt: number | null = null;
  lastActive: number;
  model = '';
  platform = '';
  /** The user the host serves this session for ('' when it names none: the machine's own; owner.ts). */
  user = '';
  projectPath = '';
  contextWindow = 0;
  manual: boolean;
  messages: MessageState[] = [];
  records = new Map<string, ToolRecord>();
  /** Compressions made at post_tool_call, reused when the result shows up in the conversation. */
  postResults = new Map<string, Compression>();
  /** Keys whose list-wide rewrite is in force, and why. */
  pruned = new Map<string, PruneKind>();
  /** How each placeholder in force was worded, so it never changes once sent (prompt cache). */
  prunedText = new Map<string, string>();
  prunedAge = new Map<string, number>();
  prunedStale = new Map<string, StaleDetail>();
  /** When the last model call was made (ms; the messages' own timestamps when they carry them). */
  lastCallAt = 0;
  /** Layer 1's summarised ranges, oldest first. */
  phases: Phase[] = [];
  /** Phases loaded from disk whose summaries are not yet back on the held messages. */
  phasesToRehold = false;
  /** Layer 1's summary waiting for a pass (also saved, so a new process need not ask again). */
  stagedPhase: { phase: Phase; updated: boolean } | null = null;
  /** The layer-1 hint last sent. */
  hintSent = '';
  /** The host's own compression threshold (0..1 of the window), when it says. */
  hostThreshold: number | undefined = undefined;
  /** The host's own measure of the request being sent now (pre_model_call `host_tokens`), raw. */
  hostTokens: number | undefined = undefined;
  /** Assistant replies among `messages`: the model calls made so far. */
  replies = 0;
  /** The newest timestamp the host's messages carried (ms), or 0 when they carry none. */
  latestStamp = 0;
  /** Keys the user swept (hmc_control sweep), applied at the next model call. */
  swept = new Set<string>();
  sweepPending = false;
  /** Assistant replies already counted as model calls (signatures). */
  accounted = new Set<string>();
  /** Messages the ledger has been told about. */
  ledgerLength = 0;
  lastBatchTurn = 0;
  pruneCount = 0;
  cacheBreaks = 0;
  toolCalls = 0;
  turn = 0;
  /** User messages among `messages`. */
  userCount = 0;
  /**
   * This process has had a pre_llm_call for the session: turns open there, so user messages the
   * host adds inside a turn (Hermes' verify-on-stop nudges) open none. Not saved.
   */
  turnHookSeen = false;
  /** Tool calls seen in assistant messages, by id: results name their call by id. */
  calls = new Map<string, { name: string; args: unknown }>();
  /** Message count at the previous pre_llm_call (what the model had already been sent). */
  previousCallLength = 0;
  contextSent = false;
  /** Model calls are counted when sent (the host calls pre_model_call before each one). */
  callsAtSend = false;
  /** The host's id of the last call counted (a retry of the same request is not counted again). */
  lastCallId = '';
  /** The system prompt and tool schemas (JSON) of the last call that sent them: a change breaks the cache. Not saved. */
  fixedSent: { system?: string | null; tools?: string } = {};
  /** The previous provider usage row, for matching and cache breaks (usage-match.ts). Not saved. */
  usageTrail: UsageTrail | undefined;
  /** Compactions HMC had made as the context engine at the previous model call (a rewrite since is HMC's). Not saved. */
  compactionsAtCall = 0;
  /** What the next counted call's cache model knows of the changes since the last one (cache-track.ts). Not saved. */
  cacheTrack: CacheTrack = newTrack();
  /** The view last answered to pre_model_call, so the next answer can be what changed since. */
  lastView: { id: number; edits: Map<number, string>; calls: Map<number, ToolCall[]> } | null = null;
  /** The last turn event sent: its turn and the input figures it showed. */
  lastTurnEvent = '';
  ledger: Ledger;
  /** Outputs per tool and program, recalls and re-reads (work.ts). */
  work: WorkTally;
  /** Tool results grouped for dedup and error purge, kept up to date as messages arrive. */
  rewriteIndex = new RewriteIndex();
  /** The list-wide strategies' answers kept from one pass to the next (list-wide/list-wide.ts). */
  readonly listWideCache: ListWideCache = new Map();
  /** Current edits: raw index → content sent. */
  edits = new Map<number, string>();
  /** Current edits of assistant messages' calls (input clearing): raw index → the calls sent (pre_model_call only). */
  callEdits = new Map<number, ToolCall[]>();
  /** The conversation's tool calls, for input clearing. */
  inputIndex = new InputIndex();
  /** Calls whose arguments are sent short, and why (saved, so a new process sends the same bytes). */
  inputsCleared = new Map<string, InputClearing>();
  /**
   * The system prompt and tool schemas the host last sent with pre_model_call, by reference (it
   * sends them only when they change): what the context view splits, when asked. Not saved.
   */
  request: { system?: string | null; tools?: readonly unknown[] } = {};
  /** The context view's breakdown an earlier process saved, shown until this one sees a request. */
  savedContext: ContextBreakdown | null = null;
  /** What HMC keeps as the host's context engine (issue 16): compactions, phase ids, usage rows. */
  engine: EngineState = { host_reduction: 0, last_phase_id: 0, compactions: 0, usage_seq: 0, usage_calls: 0 };

  constructor(id: string, now: number, manual: boolean, saved?: PersistedSession) {
    this.id = id;
    this.startedAt = saved?.started_at ?? now;
    this.lastActive = now;
    this.manual = saved?.manual_mode ?? manual;
    this.ledger = Ledger.from(saved?.ledger);
    this.work = WorkTally.from(saved?.work);
    if (saved) {
      this.model = saved.model;
      this.platform = saved.platform;
      this.user = saved.user ?? '';
      this.projectPath = saved.project_path;
      this.contextWindow = saved.context_window;
      this.lastBatchTurn = saved.last_batch_turn;
      this.pruneCount = saved.prune_count;
      this.cacheBreaks = saved.cache_breaks;
      this.toolCalls = saved.tool_calls;
      this.turn = saved.turns;
      this.contextSent = saved.context_sent;
      this.callsAtSend = saved.calls_at_send === true;
      for (const [k, v] of Object.entries(saved.records)) this.records.set(k, v);
      for (const [k, v] of Object.entries(saved.pruned)) this.pruned.set(k, v);
      for (const [k, v] of Object.entries(saved.pruned_text)) this.prunedText.set(k, v);
      for (const [k, v] of Object.entries(saved.pruned_age)) this.prunedAge.set(k, v);
      for (const [k, v] of Object.entries(saved.pruned_stale)) this.prunedStale.set(k, v);
      this.lastCallAt = saved.last_call_at;
      this.phases = saved.phases;
      this.phasesToRehold = saved.phases.length > 0;
      this.stagedPhase = saved.staged_phase ?? null;
      this.hintSent = saved.hint_sent;
      this.previousCallLength = saved.sent_length;
      for (const [k, v] of Object.entries(saved.inputs_cleared ?? {})) this.inputsCleared.set(k, v);
      for (const k of saved.swept) this.swept.add(k);
      for (const k of saved.accounted) this.accounted.add(k);
      if (saved.context_engine) this.engine = { ...saved.context_engine };
      this.savedContext = saved.context ?? null;
    }
  }

  /**
   * Host units (characters / 4, the rule Hermes measures its history by) HMC takes off the held
   * conversation as it sends it now. A process that holds nothing yet (a new `hermes -q` turn, whose
   * compaction check comes before any hook) has the figure its predecessor saved.
   */
  hostReduction(): number {
    if (this.messages.length === 0) return this.engine.host_reduction;
    let chars = 0;
    for (const m of this.messages) {
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
    const m = this.messages[i];
    if (!m) return;
    const view = this.viewOf(m);
    if (typeof view === 'string' && view !== m.raw) this.edits.set(i, view);
    else this.edits.delete(i);
    if (m.inputs) this.callEdits.set(i, m.inputs.calls);
    else this.callEdits.delete(i);
  }

  /** Message `i`'s view changed after it was taken in: its edit follows and the ledger counts it again. */
  viewChanged(i: number): void {
    this.refreshEdit(i);
    const m = this.messages[i];
    if (m && i < this.ledgerLength) {
      const steps = this.stepsOf(m);
      this.ledger.defer(() => this.ledger.changeMessage(i, steps, m.extra), viewCounts(steps, m.extra));
    }
  }

  /**
   * Tool outputs HMC has shortened: when they arrived, or since (a list-wide rewrite or a layer-1
   * summary in force). The denominator of "recalls and re-reads per 100 elided outputs".
   */
  elided(key: string): boolean {
    if (this.records.get(key)?.shortened === true || this.pruned.has(key)) return true;
    return this.messages.some((m) => m.key === key && m.role === 'tool' && m.summary !== null);
  }

  elidedCount(): number {
    let n = 0;
    const summarised = new Set(this.messages.filter((m) => m.role === 'tool' && m.summary !== null).map((m) => m.key));
    for (const [key, r] of this.records) if (r.shortened === true || this.pruned.has(key) || summarised.has(key)) n++;
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
    return {
      version: 1,
      session_id: this.id,
      started_at: this.startedAt,
      ended_at: this.endedAt,
      model: this.model,
      platform: this.platform,
      ...(this.user ? { user: this.user } : {}),
      project_path: this.projectPath,
      context_window: this.contextWindow,
      manual_mode: this.manual,
      last_batch_turn: this.lastBatchTurn,
      prune_count: this.pruneCount,
      cache_breaks: this.cacheBreaks,
      tool_calls: this.toolCalls,
      turns: this.turn,
      records: Object.fromEntries(this.records),
      pruned: Object.fromEntries(this.pruned),
      pruned_text: Object.fromEntries([...this.prunedText].filter(([k]) => !WORDS_NOT_SAVED.has(this.pruned.get(k) as PruneKind))),
      pruned_age: Object.fromEntries(this.prunedAge),
      pruned_stale: Object.fromEntries(this.prunedStale),
      last_call_at: this.lastCallAt,
      phases: this.phases.map((p) => ({ ...p })),
      ...(this.stagedPhase ? { staged_phase: { phase: { ...this.stagedPhase.phase }, updated: this.stagedPhase.updated } } : {}),
      hint_sent: this.hintSent,
      sent_length: this.previousCallLength,
      inputs_cleared: Object.fromEntries(this.inputsCleared),
      swept: [...this.swept],
      // Bounded: signatures of the latest replies are what a re-sent history can repeat.
      accounted: [...this.accounted].slice(-20_000),
      context_sent: this.contextSent,
      calls_at_send: this.callsAtSend,
      context_engine: { ...this.engine, host_reduction: this.hostReduction() },
      ledger: this.ledger.snapshot(),
      work: this.work.snapshot(),
    };
  }
}
