/**
 * The engine: the host contract (DESIGN §3) over per-session state. Tool results are compressed
 * once, when they first appear (post_tool_call, or the first pre_llm_call that shows them);
 * rewrites of older messages (dedup, error purge, sweep) are batched so the provider's prompt
 * cache breaks rarely and only when it pays (DESIGN §6). This class holds the hooks; what they do
 * is in the modules beside it: wiring.ts (its parts, built from its options, and the plumbing the
 * hooks share), tool-result.ts (a tool's result), call.ts (before a model call), sync.ts (the held
 * conversation), session-table.ts (the sessions held), settle.ts (background work), endings.ts and
 * events.ts (what is reported), control.ts (hmc_control, /hmc).
 *
 * Invariants: every method answers and none throws (but `ResyncError` for an unknown base); the
 * edits returned are complete and relative to the raw messages; raw contents are never mutated.
 */
import type { HmcConfig } from '../config/keys.js';
import { errorText } from '../core/errors.js';
import { finishesSession } from '../core/host-api.js';
import type {
  CommandParams,
  ControlParams,
  HelloParams,
  HelloResult,
  HmcHostApi,
  PostToolCallParams,
  PostToolCallResult,
  PreLlmCallParams,
  PreLlmCallResult,
  PreModelCallParams,
  PreModelCallResult,
  PreToolCallParams,
  SessionEndParams,
  SessionFinalizeParams,
} from '../core/host-api.js';
import type {
  CompressParams,
  CompressResult,
  ContextEngineApi,
  EngineSessionParams,
  ShouldCompressParams,
  ShouldCompressResult,
  UpdateFromResponseParams,
} from '../core/context-engine.js';
import type { ContextEngineMethods } from './context-engine/context-engine.js';
import { helloAnswer } from './hello.js';
import { hostCapabilities } from '../hosts/capabilities.js';
import { turnAnswer } from './turn/call.js';
import { commandText, controlAction, controlDepsOf } from './control/control.js';
import { turnAt } from './turn/events.js';
import { reportEnd } from './saving/endings.js';
import type { Layer1 } from './layer1/layer1.js';
import { modelCallView } from './turn/model-call.js';
import type { Persistence } from './saving/persistence.js';
import type { Intake } from './turn/intake.js';
import type { RecallStore } from './session/recall.js';
import type { Session } from './session/session.js';
import type { SessionTable } from './session/session-table.js';
import { takeToolResult } from './turn/tool-result.js';
import type { Settler } from './turn/settle.js';
import { syncConversation, toolRecord } from './turn/sync.js';
import { engineParts, type EngineOptions, type EngineParts, type Guard } from './wiring.js';

export type { EngineOptions } from './wiring.js';

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
  private readonly guard: Guard;
  private readonly session: EngineParts['session'];
  private readonly prepare: EngineParts['prepare'];
  private readonly release: EngineParts['release'];
  private readonly endDeps: EngineParts['endDeps'];

  constructor(private readonly opts: EngineOptions) {
    const w = engineParts(opts);
    this.now = w.now;
    this.recall = w.recall;
    this.saved = w.saved;
    this.table = w.table;
    this.sessions = w.table.held;
    this.layer1 = w.layer1;
    this.intake = w.intake;
    this.settler = w.settler;
    this.contextEngine = w.contextEngine;
    this.guard = w.guard;
    this.session = w.session;
    this.prepare = w.prepare;
    this.release = w.release;
    this.endDeps = w.endDeps;
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
    this.guard(
      'pre_tool_call',
      () => {
        const s = this.session(p.session_id);
        const id = p.tool_call_id || '';
        if (s && this.config.enabled && id && !s.held.records.has(id))
          s.held.recordTool(id, toolRecord(p.tool_name, p.args, s.counts.turn, false));
      },
      undefined,
    );
    return {};
  }

  postToolCall(p: PostToolCallParams): PostToolCallResult {
    return this.guard(
      'post_tool_call',
      () => {
        const s = this.session(p.session_id);
        if (!s || !this.config.enabled) return {};
        const answer = takeToolResult(s, p, p.tool_call_id || `#post${++this.postCounter}`, {
          config: this.config,
          intake: this.intake,
          sink: this.opts.sink,
          now: this.now,
        });
        this.settler.schedule();
        return answer;
      },
      {},
    );
  }

  preLlmCall(p: PreLlmCallParams): PreLlmCallResult {
    const s = this.prepare(p, { name: 'pre_llm_call' }, this.appliesToolCalls);
    return s ? this.guard('pre_llm_call', () => turnAnswer(s, this.layer1), { edits: [] }) : { edits: [] };
  }

  preModelCall(p: PreModelCallParams): PreModelCallResult {
    const s = this.prepare(p, { name: 'pre_model_call', params: p }, this.appliesToolCalls);
    return s
      ? this.guard('pre_model_call', () => modelCallView(s, p.view, this.appliesToolCalls), { edits: [] })
      : { edits: [] };
  }

  onSessionEnd(p: SessionEndParams): Record<string, never> {
    this.guard(
      'on_session_end',
      () => {
        const s = this.sessions.get(p.session_id);
        if (!s) return;
        const config = this.config;
        // A host without pre_model_call sends the conversation, so the turn's replies count now.
        if (p.messages) syncConversation(s, p.messages, this.intake.syncDeps(config));
        const at = turnAt(s);
        this.settler.whenSettled(s, () => reportEnd(s, at, config, this.endDeps()));
      },
      undefined,
    );
    return {};
  }

  /**
   * The host lets a session go: finished (ended) or, when its process only exits (`reason`
   * `shutdown` or none, finishesSession), idle until it is resumed. Without a session id (Hermes'
   * CLI exit), every session held.
   */
  onSessionFinalize(p: SessionFinalizeParams): Record<string, never> {
    this.guard(
      'on_session_finalize',
      () => {
        const state = finishesSession(p.reason) ? 'ended' : 'idle';
        const targets = p.session_id
          ? [this.sessions.get(p.session_id) ?? (state === 'ended' ? this.table.saved(p.session_id) : undefined)]
          : [...this.sessions.values()];
        for (const s of targets) if (s) this.release(s, p.messages, state);
      },
      undefined,
    );
    return {};
  }

  /**
   * The host went away without letting its sessions go (the sidecar's input closed: the host
   * exited or was killed): every session a hook touched here becomes idle, once.
   */
  hostGone(): void {
    this.guard(
      'host_gone',
      () => {
        for (const s of [...this.sessions.values()]) this.release(s, undefined, 'idle');
      },
      undefined,
    );
  }

  // ——— as the host's context engine (context-engine.ts) ———

  shouldCompress(p: ShouldCompressParams): ShouldCompressResult {
    return this.contextEngine.shouldCompress(p);
  }

  compress(p: CompressParams): Promise<CompressResult> {
    return this.contextEngine.compress(p);
  }

  updateFromResponse(p: UpdateFromResponseParams): Record<string, never> {
    return this.contextEngine.updateFromResponse(p);
  }

  engineSession(p: EngineSessionParams): Record<string, never> {
    return this.contextEngine.engineSession(p);
  }

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
  ownerOf(sessionId: string): string | null {
    return this.table.ownerOf(sessionId);
  }

  /** How many owners the sessions held have (a gateway: one per user; owner.ts). */
  ownersHeld(): number {
    return this.table.owners();
  }

  /** Waits until every session save in flight has reached the disk. */
  flushSaves(): Promise<void> {
    return this.saved.flush();
  }

  /** Flushes the saves and gives the failed ones a last try (process exit). */
  closeSaves(): Promise<void> {
    return this.saved.close();
  }
}
