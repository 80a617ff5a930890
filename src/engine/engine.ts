/**
 * The engine: the host contract (DESIGN §3) over per-session state. Tool results are compressed
 * once, when they first appear (post_tool_call, or the first pre_llm_call that shows them);
 * rewrites of older messages (dedup, error purge, sweep) are batched so the provider's prompt
 * cache breaks rarely and only when it pays (DESIGN §6). This class holds the hooks; what they do
 * is in the modules beside it: tool-result.ts (a tool's result), call.ts (before a model call),
 * sync.ts (the held conversation), session-table.ts (the sessions held), settle.ts (background
 * work), endings.ts and events.ts (what is reported), control.ts (hmc_control, /hmc).
 *
 * Invariants: every method answers and none throws (but `ResyncError` for an unknown base); the
 * edits returned are complete and relative to the raw messages; raw contents are never mutated.
 */
import type { HmcConfig } from '../config/keys.js';
import { errorText } from '../core/errors.js';
import { finishesSession, ResyncError } from '../core/host-api.js';
import type {
  CommandParams, ControlParams, HelloParams, HelloResult, HmcHostApi, PostToolCallParams, PostToolCallResult, PreLlmCallParams,
  PreLlmCallResult, PreModelCallParams, PreModelCallResult, PreToolCallParams, SessionEndParams, SessionFinalizeParams,
} from '../core/host-api.js';
import type { Message } from '../core/message.js';
import type {
  CompressParams, CompressResult, ContextEngineApi, EngineSessionParams, ShouldCompressParams, ShouldCompressResult, UpdateFromResponseParams,
} from '../core/context-engine.js';
import { ContextEngineMethods } from './context-engine/context-engine.js';
import { helloAnswer } from './hello.js';
import { hostCapabilities } from '../hosts/capabilities.js';
import type { EventSink } from '../events/types.js';
import type { PhaseIndex } from '../store/phase-types.js';
import type { SessionRecorder } from '../store/types.js';
import type { Summariser } from '../summarise/types.js';
import { conversationOf, prepareCall, turnAnswer, type CallDeps, type CallHook } from './turn/call.js';
import { commandText, controlAction, controlDepsOf, type ControlDeps } from './control/control.js';
import { turnAt } from './turn/events.js';
import { reportEnd, type EndDeps } from './saving/endings.js';
import { Layer1 } from './layer1/layer1.js';
import { modelCallView } from './turn/model-call.js';
import { Persistence } from './saving/persistence.js';
import { Intake } from './turn/intake.js';
import { RecallStore } from './session/recall.js';
import type { Session } from './session/session.js';
import { SessionTable } from './session/session-table.js';
import { takeToolResult } from './turn/tool-result.js';
import { END_BUDGET_MS, Settler } from './turn/settle.js';
import { syncConversation, toolRecord } from './turn/sync.js';

export interface EngineOptions {
  /** The config in force (read on every call, so file edits apply while running). */
  config: () => HmcConfig;
  /** Where sessions are persisted; null keeps everything in memory. */
  stateDir: string | null;
  sink: EventSink;
  recorder: SessionRecorder | null;
  /** The session index of summarised phases (layer 1); absent in bare engines. */
  phases?: PhaseIndex;
  log: (line: string) => void;
  now?: () => number;
  /** The host process' project (its working directory's real path). */
  projectPath?: string;
  /** Controls for `hmc_control dashboard` and `analytics`; absent in bare engines. */
  control?: Partial<ControlDeps>;
  /** Run queued work right after each hook (default) or only when `settle()` is called. */
  autoSettle?: boolean;
  /** Bytes of tool output one call compresses before the rest waits (catch-up.ts; tests lower it). */
  callBudgetBytes?: number;
  /** How long past 256 KB of output one call keeps compressing (default 50 ms; catch-up.ts). */
  callBudgetMs?: number;
  /** How long on_session_end may work off a backlog before recording in the background (default 300 ms). */
  endBudgetMs?: number;
  /** True while background work should wait (the sidecar: an answer is still on its way out). */
  holdBackground?: () => boolean;
  /** Layer 1's summariser in force (null or absent: layer 1 is off). Read at each use. */
  summariser?: () => Summariser | null;
}

export class Engine implements HmcHostApi, ContextEngineApi {
  /** The sessions held in this process, by id. */
  readonly sessions: Map<string, Session>;
  /** Exact copies of the outputs HMC shortened, for `hmc_control action=recall`. */
  readonly recall: RecallStore;
  /** Layer 1: summaries of finished work. */
  readonly layer1: Layer1;
  /** What the host said it can do in its `hello` (undefined: it said nothing). */
  hostCapabilities: string[] | undefined;
  /** The host applies `tool_calls` edits (its list, else what its name is known for; hosts/capabilities.ts). */
  appliesToolCalls = false;
  private readonly table: SessionTable;
  private postCounter = 0;
  private readonly settler: Settler;
  private readonly saved: Persistence;
  private readonly intake: Intake;
  private readonly contextEngine: ContextEngineMethods;
  private readonly now: () => number;

  constructor(private readonly opts: EngineOptions) {
    this.now = opts.now ?? Date.now;
    this.recall = new RecallStore({ stateDir: opts.stateDir, log: opts.log, now: this.now });
    this.saved = new Persistence({ stateDir: opts.stateDir, config: opts.config, recorder: opts.recorder, recall: this.recall, log: opts.log });
    this.table = new SessionTable({ load: (id) => this.saved.load(id), manualMode: () => this.config.manual_mode.enabled, now: this.now, projectPath: opts.projectPath ?? '' });
    this.sessions = this.table.held;
    this.layer1 = new Layer1({ summariser: () => opts.summariser?.() ?? null, recall: this.recall, log: opts.log, now: this.now, staged: (s) => this.saved.save(s) });
    this.intake = new Intake({ recall: this.recall, layer1: this.layer1, log: opts.log, ...(opts.callBudgetBytes !== undefined ? { callBudgetBytes: opts.callBudgetBytes } : {}), ...(opts.callBudgetMs !== undefined ? { callBudgetMs: opts.callBudgetMs } : {}) });
    this.settler = new Settler({
      sessions: () => this.sessions.values(), autoSettle: opts.autoSettle !== false, endBudgetMs: opts.endBudgetMs ?? END_BUDGET_MS,
      catchUpDeps: (s, deadline) => this.intake.catchUpDeps(s, this.config, deadline), guard: (what, fn, fallback) => this.guard(what, fn, fallback),
      ...(opts.holdBackground ? { holdBackground: opts.holdBackground } : {}),
    });
    this.contextEngine = new ContextEngineMethods({
      config: () => this.config, session: (id) => this.session(id), held: (id) => this.sessions.get(id), recorder: opts.recorder, recall: this.recall,
      save: (s) => this.saved.save(s), schedule: () => this.settler.schedule(), now: this.now, log: opts.log,
      compaction: () => ({
        config: this.config, summariser: opts.summariser?.() ?? null, recall: this.recall, phases: opts.phases ?? null, sink: opts.sink, now: this.now, log: opts.log,
      }),
    });
  }

  get config(): HmcConfig {
    return this.opts.config();
  }

  hello(params: HelloParams): HelloResult {
    if (params.capabilities) this.hostCapabilities = [...params.capabilities];
    this.appliesToolCalls = hostCapabilities(params).has('tool_calls');
    return helloAnswer(params);
  }

  preToolCall(p: PreToolCallParams): Record<string, never> {
    this.guard('pre_tool_call', () => {
      const s = this.session(p.session_id);
      const id = p.tool_call_id || '';
      if (s && this.config.enabled && id && !s.held.records.has(id)) s.held.recordTool(id, toolRecord(p.tool_name, p.args, s.counts.turn, false));
    }, undefined);
    return {};
  }

  postToolCall(p: PostToolCallParams): PostToolCallResult {
    return this.guard('post_tool_call', () => {
      const s = this.session(p.session_id);
      if (!s || !this.config.enabled) return {};
      const answer = takeToolResult(s, p, p.tool_call_id || `#post${++this.postCounter}`, {
        config: this.config, intake: this.intake, sink: this.opts.sink, now: this.now,
      });
      this.settler.schedule();
      return answer;
    }, {});
  }

  preLlmCall(p: PreLlmCallParams): PreLlmCallResult {
    const s = this.prepare(p, { name: 'pre_llm_call' });
    return s ? this.guard('pre_llm_call', () => turnAnswer(s, this.layer1), { edits: [] }) : { edits: [] };
  }

  preModelCall(p: PreModelCallParams): PreModelCallResult {
    const s = this.prepare(p, { name: 'pre_model_call', params: p });
    return s ? this.guard('pre_model_call', () => modelCallView(s, p.view, this.appliesToolCalls), { edits: [] }) : { edits: [] };
  }

  onSessionEnd(p: SessionEndParams): Record<string, never> {
    this.guard('on_session_end', () => {
      const s = this.sessions.get(p.session_id);
      if (!s) return;
      const config = this.config;
      // A host without pre_model_call sends the conversation, so the turn's replies count now.
      if (p.messages) syncConversation(s, p.messages, this.intake.syncDeps(config));
      const at = turnAt(s);
      this.settler.whenSettled(s, () => reportEnd(s, at, config, this.endDeps()));
    }, undefined);
    return {};
  }

  /**
   * The host lets a session go: finished (ended) or, when its process only exits (`reason`
   * `shutdown` or none, finishesSession), idle until it is resumed. Without a session id (Hermes'
   * CLI exit), every session held.
   */
  onSessionFinalize(p: SessionFinalizeParams): Record<string, never> {
    this.guard('on_session_finalize', () => {
      const state = finishesSession(p.reason) ? 'ended' : 'idle';
      const targets = p.session_id ? [this.sessions.get(p.session_id) ?? (state === 'ended' ? this.table.saved(p.session_id) : undefined)] : [...this.sessions.values()];
      for (const s of targets) if (s) this.release(s, p.messages, state);
    }, undefined);
    return {};
  }

  /**
   * The host went away without letting its sessions go (the sidecar's input closed: the host
   * exited or was killed): every session a hook touched here becomes idle, once.
   */
  hostGone(): void {
    this.guard('host_gone', () => {
      for (const s of [...this.sessions.values()]) this.release(s, undefined, 'idle');
    }, undefined);
  }

  // ——— as the host's context engine (context-engine.ts) ———

  shouldCompress(p: ShouldCompressParams): ShouldCompressResult { return this.contextEngine.shouldCompress(p); }

  compress(p: CompressParams): Promise<CompressResult> { return this.contextEngine.compress(p); }

  updateFromResponse(p: UpdateFromResponseParams): Record<string, never> { return this.contextEngine.updateFromResponse(p); }

  engineSession(p: EngineSessionParams): Record<string, never> { return this.contextEngine.engineSession(p); }

  async control(params: ControlParams): Promise<Record<string, unknown>> {
    try {
      return await controlAction(this, params.session_id, params.args ?? {}, controlDepsOf(this.opts));
    } catch (err) {
      this.opts.log(`hmc: hmc_control failed: ${errorText(err)}`);
      return { error: `hmc_control failed: ${errorText(err)}` };
    }
  }

  async command(params: CommandParams): Promise<string> {
    try {
      return await commandText(this, params.session_id, params.raw_args, controlDepsOf(this.opts));
    } catch (err) {
      return `hmc: ${errorText(err)}`;
    }
  }

  /**
   * Runs the queued background work (accounting, catch-up of a big first call): all of it (reports,
   * tests, the end of a replay), or until `deadline` (a performance.now() time). True when nothing is left.
   */
  settle(deadline = Number.POSITIVE_INFINITY): boolean {
    return this.settler.settle(deadline);
  }

  /**
   * At exit, when the deadline left work undone: every session still owed a record and a save gets
   * them with what is accounted so far (the next process accounts the rest; nothing counts twice).
   */
  saveUnsettled(): void {
    for (const s of this.settler.unsettled()) {
      this.saved.record(s);
      this.saved.save(s);
    }
  }

  /** The session a control call means (session-table.ts). */
  resolveSession(id: string | undefined): Session | null {
    return this.table.resolve(id);
  }

  /** The host plays the session again from its first message (`hmc replay --record`): it starts afresh, so its record replaces the old one. */
  startOver(id: string): void {
    this.table.startOver(id);
  }

  /** Whose a session is (owner.ts): held here, else as its saved file says; null when neither knows it. */
  ownerOf(sessionId: string): string | null { return this.table.ownerOf(sessionId); }

  /** How many owners the sessions held have (a gateway: one per user; owner.ts). */
  ownersHeld(): number { return this.table.owners(); }

  /** Waits until every session save in flight has reached the disk. */
  flushSaves(): Promise<void> {
    return this.saved.flush();
  }

  /** Flushes the saves and gives the failed ones a last try (process exit). */
  closeSaves(): Promise<void> {
    return this.saved.close();
  }

  // ——— internals ———

  /** The session brought up to this call, or null when no view is answered (off, or a streamed stretch). */
  private prepare(p: PreLlmCallParams, hook: CallHook): Session | null {
    const s = this.session(p.session_id);
    const config = this.config;
    if (!s || !config.enabled) return null;
    // ResyncError must reach the host; everything else fails open.
    const { messages, base } = conversationOf(s, p);
    const deps: CallDeps = {
      config, layer1: this.layer1, recall: this.recall, sync: this.intake.syncDeps(config), now: this.now, log: this.opts.log,
      sink: this.opts.sink, phases: this.opts.phases ?? null, toolCalls: this.appliesToolCalls,
    };
    const ready = this.guard(hook.name, () => {
      const viewed = prepareCall(s, p, hook, messages, base, deps);
      this.settler.schedule();
      return viewed;
    }, false);
    return ready ? s : null;
  }

  private session(id: string | undefined, hook = true): Session | null {
    // Layer 1's summary in preparation takes a step after every hook (pacer.ts).
    if (hook) this.layer1.afterHook();
    return this.table.get(id, hook);
  }

  /**
   * The session leaves this process: `ended` (finished: `ended_at` set, one `session_end`) or
   * `idle` (its process exits; one `session_idle`, unless no hook touched it here: a session
   * only read by `/hmc` needs no record).
   */
  private release(s: Session, messages: Message[] | undefined, state: 'ended' | 'idle'): void {
    const hooked = this.table.leave(s);
    if (state === 'idle' && !hooked) return;
    const config = this.config;
    // A host that still has the conversation sends it, so the last replies count as model calls.
    if (messages) syncConversation(s, messages, this.intake.syncDeps(config));
    s.meta.markEnded(state === 'ended' ? this.now() : null);
    const at = turnAt(s);
    const settled = this.settler.whenSettled(s, () => reportEnd(s, at, config, this.endDeps(), state));
    if (!settled) this.settler.draining.add(s);
  }

  private endDeps(): EndDeps {
    return { sink: this.opts.sink, saved: this.saved };
  }

  private guard<T>(what: string, fn: () => T, fallback: T): T {
    try {
      return fn();
    } catch (err) {
      if (err instanceof ResyncError) throw err;
      this.opts.log(`hmc: ${what} failed, passing through untouched: ${errorText(err)}`);
      if (this.config.debug && err instanceof Error && err.stack) this.opts.log(err.stack);
      return fallback;
    }
  }
}
