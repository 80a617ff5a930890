/**
 * The engine: the host contract (DESIGN §3) over per-session state. Tool results are compressed
 * once, when they first appear (post_tool_call, or the first pre_llm_call that shows them);
 * rewrites of older messages (dedup, error purge, sweep) are batched so the provider's prompt
 * cache breaks rarely and only when it pays (DESIGN §6).
 *
 * Invariants: every method answers and none throws (but `ResyncError` for an unknown base); the
 * edits returned are complete and relative to the raw messages; raw contents are never mutated.
 */
import type { HmcConfig } from '../config/keys.js';
import type { EventSink } from '../events/types.js';
import type { PhaseIndex } from '../store/phase-types.js';
import type { SessionRecord, SessionRecorder } from '../store/types.js';
import { argsFingerprint } from '../strategies/dedup.js';
import type {
  CommandParams,
  ControlParams,
  Edit,
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
} from './api.js';
import { ResyncError } from './api.js';
import { compressOutput, type CompressContext, type Compression } from './compress.js';
import { controlAction, commandText, type ControlDeps } from './control.js';
import { parseArgs } from './envelope.js';
import { helloAnswer } from './hello.js';
import { applyListWide, DEFAULT_CONTEXT_WINDOW } from './batch.js';
import { Layer1, type StagedPhase } from './layer1.js';
import type { PhaseEntry } from '../store/phase-types.js';
import type { Summariser } from '../summarise/types.js';
import { protectionFor } from './protection.js';
import { countCallAtSend, modelCallView, sortedEdits } from './model-call.js';
import { cleanupRecall, recallId, RecallStore } from './recall.js';
import * as catchUp from './catch-up.js';
import { SessionFiles } from './session-files.js';
import { hash, replySignature, safeJson, Session, type MessageState, type ToolRecord } from './session.js';
import { countTokens, messageExtra } from './tokens.js';
import type { Message } from './types.js';

/** The hint appended once per session (the original's text, reference §9). */
export const SYSTEM_CONTEXT = 'Context management is handled automatically in the background. You do not need to manage context yourself.';

const MAX_POST_RESULTS = 1000;
/** Background work (accounting, catch-up) runs in slices this long, so a hook never waits longer. */
const SLICE_MS = 15;
/** How long on_session_end may work off a backlog before it records and saves in the background. */
const END_BUDGET_MS = 300;
/** Messages per accounting job (a resumed long history is accounted in many small jobs). */
const ACCOUNT_CHUNK = 256;

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
  /** Run ledger jobs right after each hook (default) or only when `settle()` is called. */
  autoSettle?: boolean;
  /** Bytes of tool output one call compresses before the rest waits (catch-up.ts; tests lower it). */
  callBudgetBytes?: number;
  /** How long on_session_end may work off a backlog before recording in the background (default 300 ms). */
  endBudgetMs?: number;
  /**
   * True while background work should wait: the sidecar says so while an answer is still on its
   * way out (a slice per event-loop turn would let a 4 MB answer out 64 KB at a time, over a second).
   */
  holdBackground?: () => boolean;
  /** Layer 1's summariser in force (null or absent: layer 1 is off). Read at each use. */
  summariser?: () => Summariser | null;
}

export class Engine implements HmcHostApi {
  readonly sessions = new Map<string, Session>();
  private lastActiveId: string | null = null;
  private settleScheduled = false;
  private postCounter = 0;
  /** Finalized sessions whose accounting, record and save still run in the background. */
  private readonly draining = new Set<Session>();
  private readonly files: SessionFiles | null;
  private readonly now: () => number;
  /** Exact copies of the outputs HMC shortened, for `hmc_control action=recall`. */
  readonly recall: RecallStore;
  /** Layer 1: summaries of finished work. */
  readonly layer1: Layer1;
  /** What the host said it can do in its `hello` (undefined: it said nothing). */
  hostCapabilities: string[] | undefined;

  constructor(private readonly opts: EngineOptions) {
    this.now = opts.now ?? Date.now;
    this.recall = new RecallStore({ stateDir: opts.stateDir, log: opts.log, now: this.now });
    this.layer1 = new Layer1({ summariser: () => opts.summariser?.() ?? null, recall: this.recall, log: opts.log, now: this.now, staged: (s) => this.save(s) });
    const stateDir = opts.stateDir;
    // Expired copies go at start-up, off the first hook's path.
    if (stateDir) setTimeout(() => cleanupRecall(stateDir), 2000).unref();
    this.files = opts.stateDir ? new SessionFiles(opts.stateDir, opts.log) : null;
  }

  hello(params: HelloParams): HelloResult {
    if (Array.isArray(params.capabilities)) this.hostCapabilities = params.capabilities.filter((c): c is string => typeof c === 'string');
    return helloAnswer(params);
  }

  preToolCall(p: PreToolCallParams): Record<string, never> {
    this.guard('pre_tool_call', () => {
      const s = this.session(p.session_id);
      if (!s || !this.opts.config().enabled) return;
      const id = typeof p.tool_call_id === 'string' && p.tool_call_id ? p.tool_call_id : '';
      if (id && !s.records.has(id)) s.records.set(id, this.newRecord(p.tool_name, p.args, s.turn, false));
    });
    return {};
  }

  postToolCall(p: PostToolCallParams): PostToolCallResult {
    return this.guard('post_tool_call', () => {
      const config = this.opts.config();
      const s = this.session(p.session_id);
      if (!s || !config.enabled) return {};
      const tool = typeof p.tool_name === 'string' ? p.tool_name : '';
      const id = typeof p.tool_call_id === 'string' && p.tool_call_id ? p.tool_call_id : `#post${++this.postCounter}`;
      const hostError = p.is_error === true || p.status === 'error' || p.status === 'blocked';
      const record = s.records.get(id) ?? this.newRecord(tool, p.args, s.turn, hostError);
      record.isError = record.isError || hostError;
      s.records.set(id, record);
      s.toolCalls++;
      const turn = s.turn;
      s.ledger.defer(() => s.ledger.countToolCall(turn));
      if (typeof p.result !== 'string') return {};
      const comp = compressOutput(p.result, { tool, args: p.args, hostError }, this.compressContext(s, config, id));
      this.keepForRecall(s, id, tool, comp);
      record.isError = record.isError || comp.isError;
      s.postResults.set(id, comp);
      if (s.postResults.size > MAX_POST_RESULTS) s.postResults.delete(s.postResults.keys().next().value as string);
      this.deferToolEvent(s, id, tool, comp.raw, comp.content, comp.steps.map((x) => x.strategy), record.isError, config);
      this.scheduleSettle();
      return comp.content !== p.result ? { replace: comp.content } : {};
    }, {});
  }

  preLlmCall(p: PreLlmCallParams): PreLlmCallResult {
    return this.view('pre_llm_call', p, null);
  }

  preModelCall(p: PreModelCallParams): PreModelCallResult {
    return this.view('pre_model_call', p, p);
  }

  /**
   * The view one model call gets: the held conversation brought up to date, list-wide rewrites
   * applied when a batch is due, and the edits. `send` is the pre_model_call about to be sent (the
   * call is counted now, and the answer may be a delta); null is the once-per-turn pre_llm_call,
   * which may also carry the context hint.
   */
  private view(what: string, p: PreLlmCallParams, send: PreModelCallParams | null): PreLlmCallResult & PreModelCallResult {
    // ResyncError must reach the host; everything else fails open.
    const s = this.session(p.session_id);
    const config = this.opts.config();
    if (!s || !config.enabled) return { edits: [] };
    const { messages, base } = this.resolveMessages(s, p);
    return this.guard(what, () => {
      if (typeof p.model === 'string' && p.model) s.model = p.model;
      if (typeof p.platform === 'string' && p.platform) s.platform = p.platform;
      if (typeof p.context_length === 'number' && p.context_length > 0) s.contextWindow = p.context_length;
      if (typeof p.project_path === 'string' && p.project_path) s.projectPath = p.project_path;
      // From the first pre_model_call on, calls are counted when sent, never again from replies.
      if (send) s.callsAtSend = true;
      if (typeof p.compression_threshold === 'number' && p.compression_threshold > 0 && p.compression_threshold <= 1) s.hostThreshold = p.compression_threshold;
      // The host's measure describes this one request; a call without it is measured by HMC alone.
      s.hostTokens = send && typeof send.host_tokens === 'number' ? send.host_tokens : undefined;
      this.sync(s, messages, config, base);
      // Summaries an earlier process made go back on the messages they were made from (free).
      this.markChanged(s, this.layer1.rehold(s, config));
      // A stretch of a long history streamed ahead of the real call: held, no model call.
      if (p.partial !== true) catchUp.streaming(s, true);
      else {
        catchUp.held(s);
        this.scheduleSettle();
        return { edits: [] };
      }
      const previousTurn = s.turn;
      // A turn opens at pre_llm_call (once per user turn); at a pre_model_call only when this
      // process joined the session mid-turn. A nudge the host appends as a user message between
      // model calls is part of the turn (Hermes drops it from the history at the turn end).
      if (!send || !s.turnHookSeen) s.turn = Math.max(s.turn, s.userCount);
      if (!send) s.turnHookSeen = true;
      const callTime = s.latestStamp || this.now();
      // List-wide rewrites wait until a big first call is caught up (catch-up.ts); then what it left
      // for later goes out with this call, with the caught-up outputs.
      const caughtUp = catchUp.takeCacheBreak(s);
      const pass = catchUp.catchingUp(s) ? null : applyListWide(s, config, { recall: this.recall, callTime, breakingAt: catchUp.takeLanding(s), phase: this.layer1.staged(s, config) });
      if (pass && config.debug && pass.decision.costly) this.opts.log(`hmc: session ${s.id}: rewrote ${pass.decision.apply.length} outputs already sent (${pass.decision.reason}) at model call ${s.replies}`);
      if (pass?.phase) this.phaseApplied(s, pass.phase);
      s.lastCallAt = callTime;
      for (const i of pass?.changed ?? []) this.setEdit(s, i);
      // A message the previous call already sent was rewritten: the provider's cache breaks there.
      if (pass?.breaks || caughtUp) s.cacheBreaks++;
      s.previousCallLength = s.messages.length;
      if (s.turn !== previousTurn || s.ledger.timeline.length === 0) this.deferTurnStart(s);
      if (send) countCallAtSend(s, send);
      // A summary for a later pass is prepared now, off the hook path (it comes back by itself).
      if (!catchUp.catchingUp(s)) this.layer1.maybeStart(s, config, s.contextWindow || DEFAULT_CONTEXT_WINDOW, s.hostThreshold);
      this.scheduleSettle();
      if (send) return modelCallView(s, send.view);
      const result: PreLlmCallResult = { edits: sortedEdits(s.edits) };
      const context: string[] = [];
      if (!s.contextSent) {
        s.contextSent = true;
        context.push(SYSTEM_CONTEXT);
      }
      // The hint naming the summarised phases, only when it changed (hosts may store each one).
      const hint = this.layer1.hint(s);
      if (hint !== null && hint !== s.hintSent) {
        s.hintSent = hint;
        context.push(hint);
      }
      if (context.length > 0) result.context = context.join('\n');
      return result;
    }, { edits: [] });
  }

  onSessionEnd(p: SessionEndParams): Record<string, never> {
    this.guard('on_session_end', () => {
      const s = this.sessions.get(p.session_id);
      if (!s) return;
      const config = this.opts.config();
      // A host without pre_model_call sends the conversation, so the turn's replies count now.
      if (Array.isArray(p.messages)) this.sync(s, p.messages.filter(isMessage), config);
      const at = { turn: s.turn, toolCalls: s.toolCalls, cacheBreaks: s.cacheBreaks };
      this.whenSettled(s, () => {
        this.emitTurnEvent(s, config, at);
        this.recordAnalytics(s);
        this.save(s);
      });
    });
    return {};
  }

  /** The real end of a session; without a session id (Hermes' CLI exit), of every session held. */
  onSessionFinalize(p: SessionFinalizeParams): Record<string, never> {
    this.guard('on_session_finalize', () => {
      const targets = p.session_id ? [this.sessions.get(p.session_id)] : [...this.sessions.values()];
      for (const s of targets) if (s) this.finalize(s, p.messages);
    });
    return {};
  }

  private finalize(s: Session, messages: Message[] | undefined): void {
    const config = this.opts.config();
    // A host that still has the conversation sends it, so the last replies count as model calls.
    if (Array.isArray(messages)) this.sync(s, messages.filter(isMessage), config);
    s.endedAt = this.now();
    const at = { turn: s.turn, toolCalls: s.toolCalls, cacheBreaks: s.cacheBreaks };
    const settled = this.whenSettled(s, () => {
      this.emitTurnEvent(s, config, at);
      this.recordAnalytics(s);
      const t = s.ledger.totals();
      if (config.enabled && (s.toolCalls > 0 || t.modelCalls > 0)) {
        this.opts.sink.emit({
          type: 'session_end',
          session_id: s.id,
          turns: s.turn,
          tool_calls: s.toolCalls,
          total_saved: t.inputRaw - t.inputHmc,
          by_strategy: t.byStrategy,
          by_tool: t.byTool,
          input_tokens: { raw: t.inputRaw, hmc: t.inputHmc },
        });
      }
      this.save(s);
    });
    if (!settled) this.draining.add(s);
    this.sessions.delete(s.id);
    if (this.lastActiveId === s.id) this.lastActiveId = null;
  }

  async control(params: ControlParams): Promise<Record<string, unknown>> {
    try {
      return await controlAction(this, params.session_id, params.args ?? {}, this.controlDeps());
    } catch (err) {
      this.opts.log(`hmc: hmc_control failed: ${errorText(err)}`);
      return { error: `hmc_control failed: ${errorText(err)}` };
    }
  }

  async command(params: CommandParams): Promise<string> {
    try {
      return await commandText(this, params.session_id, typeof params.raw_args === 'string' ? params.raw_args : '', this.controlDeps());
    } catch (err) {
      return `hmc: ${errorText(err)}`;
    }
  }

  /**
   * Runs the queued background work (accounting, catch-up of a big first call): all of it (reports,
   * tests, the end of a replay), or until `deadline` (a performance.now() time). Returns true when
   * nothing is left.
   */
  settle(deadline = Number.POSITIVE_INFINITY): boolean {
    let done = true;
    for (const s of [...this.sessions.values(), ...this.draining]) {
      // A history still streaming in: its calls come first; the work waits for the real call.
      if (deadline !== Number.POSITIVE_INFINITY && catchUp.streaming(s)) continue;
      const caught = catchUp.advance(s, this.catchUpDeps(s, deadline));
      const settled = s.ledger.settle(deadline);
      if (caught && settled) this.draining.delete(s);
      done &&= caught && settled;
      if (!done && performance.now() >= deadline) return false;
    }
    return done;
  }

  /**
   * At exit, when the deadline left work undone: every session still owed a record and a save gets
   * them with what is accounted so far (the next process accounts the rest; nothing counts twice).
   */
  saveUnsettled(): void {
    for (const s of [...this.sessions.values(), ...this.draining]) {
      if (s.ledger.pending === 0 && !catchUp.catchingUp(s)) continue;
      this.recordAnalytics(s);
      this.save(s);
    }
  }

  get config(): HmcConfig {
    return this.opts.config();
  }

  /**
   * The session a control call means: the one named, else the most recently active one. Never an
   * earlier process' session: `/hmc status` in a brand-new Hermes session is about that session
   * (`hmc control` in a terminal names the latest saved one itself).
   */
  resolveSession(id: string | undefined): Session | null {
    if (id && this.sessions.has(id)) return this.sessions.get(id) as Session;
    if (id) return this.session(id);
    if (this.lastActiveId && this.sessions.has(this.lastActiveId)) return this.sessions.get(this.lastActiveId) as Session;
    if (this.sessions.size === 1) return [...this.sessions.values()][0] as Session;
    return null;
  }

  sessionRecord(s: Session): SessionRecord {
    const t = s.ledger.totals();
    return {
      session_id: s.id,
      project_path: s.projectPath,
      platform: s.platform,
      model: s.model,
      started_at: s.startedAt,
      ended_at: s.endedAt,
      turns: s.turn,
      tool_calls: s.toolCalls,
      input_tokens_raw: t.inputRaw,
      input_tokens_hmc: t.inputHmc,
      context_peak: t.contextPeak,
      by_strategy: t.byStrategy,
      by_tool: t.byTool,
      timeline: s.ledger.snapshot().timeline,
    };
  }

  // ——— internals ———

  private session(id: unknown): Session | null {
    if (typeof id !== 'string' || id.length === 0) return null;
    let s = this.sessions.get(id);
    if (!s) {
      s = new Session(id, this.now(), this.opts.config().manual_mode.enabled, this.load(id) ?? undefined);
      if (!s.projectPath) s.projectPath = this.opts.projectPath ?? '';
      this.sessions.set(id, s);
    }
    s.lastActive = this.now();
    this.lastActiveId = id;
    return s;
  }

  /** The conversation for this call: the whole list, or the held base plus what was appended. */
  private resolveMessages(s: Session, p: PreLlmCallParams): { messages: Message[]; base: number } {
    if (Array.isArray(p.messages)) return { messages: p.messages.filter(isMessage), base: 0 };
    if (typeof p.base === 'number' && Array.isArray(p.append)) {
      if (!Number.isInteger(p.base) || p.base < 0 || p.base > s.messages.length) {
        throw new ResyncError(`base ${p.base} does not match the ${s.messages.length} messages held for session ${s.id}`);
      }
      return { messages: p.append.filter(isMessage), base: p.base };
    }
    return { messages: [], base: 0 };
  }

  /**
   * Brings the held conversation in line with the host's, compressing what is new. `messages`
   * starts at index `base` (the host vouches the first `base` held messages are unchanged).
   */
  private sync(s: Session, messages: Message[], config: HmcConfig, base = 0): void {
    const held = s.messages;
    let first = base;
    while (first < held.length && first - base < messages.length && sameMessage(held[first] as MessageState, messages[first - base] as Message)) first++;
    if (first < held.length) {
      // The host rewrote its history from `first` on (its own compressor, an edit): start over there.
      held.length = first;
      s.rewriteIndex.invalidate();
      for (const [i] of s.edits) if (i >= first) s.edits.delete(i);
      const from = first;
      catchUp.truncate(s, from);
      this.markChanged(s, this.layer1.truncate(s, from));
      s.ledger.defer(() => s.ledger.truncate(from));
      s.ledgerLength = Math.min(s.ledgerLength, first);
      s.previousCallLength = Math.min(s.previousCallLength, first);
      s.userCount = countRole(held, 'user');
      s.replies = countRole(held, 'assistant');
    }
    for (let i = first - base; i < messages.length; i++) indexCalls(s.calls, messages[i] as Message);
    let users = s.userCount;
    const budget = new catchUp.CompressBudget(this.opts.callBudgetBytes ?? catchUp.CALL_BUDGET_BYTES);
    for (let i = first; i < base + messages.length; i++) {
      const m = messages[i - base] as Message;
      if (m.role === 'user') users++;
      if (m.role === 'assistant') s.replies++;
      const stamp = timestampOf(m.timestamp);
      if (stamp > s.latestStamp) s.latestStamp = stamp;
      const key = m.role === 'tool' ? (typeof m.tool_call_id === 'string' && m.tool_call_id ? m.tool_call_id : `#${i}`) : '';
      const call = key ? s.calls.get(key) : undefined;
      const tool = m.role === 'tool' ? toolName(m, call?.name) : '';
      if (m.role === 'tool' && !s.records.has(key)) s.records.set(key, this.newRecord(tool, call?.args ?? {}, Math.max(users, 1), m.is_error === true));
      const state: MessageState = { role: m.role, raw: m.content, key, tool, args: call?.args ?? {}, turn: Math.max(users, 1), single: null, prune: null, extra: messageExtra(m), summary: null, source: { ...m } };
      if (m.role === 'tool' && typeof m.content === 'string') {
        const cached = s.postResults.get(key);
        const record = s.records.get(key);
        if (cached && cached.raw === m.content) state.single = cached;
        else if (budget.allows(m.content.length)) {
          state.single = compressOutput(m.content, { tool, args: call?.args ?? {}, hostError: record?.isError === true || m.is_error === true }, this.compressContext(s, config, key));
          this.keepForRecall(s, key, tool, state.single);
        }
        // Over this call's budget: sent raw now, compressed between hooks (a big first call).
        else catchUp.wait(s, i, state, call?.args ?? {});
        if (record && state.single?.isError) record.isError = true;
      }
      held.push(state);
    }
    s.userCount = users;
    const countReplies = !s.callsAtSend;
    const start = s.ledgerLength;
    const end = held.length;
    const views = held.slice(start, end).map((m, k) => ({ index: start + k, m, steps: s.stepsOf(m), signature: m.role === 'assistant' ? replySignature(messages[start + k - base] ?? heldMessage(m), start + k) : '' }));
    // Small jobs, so a long history is accounted in slices between hooks.
    for (let from = 0; from < views.length; from += ACCOUNT_CHUNK) {
      const chunk = views.slice(from, from + ACCOUNT_CHUNK);
      s.ledger.defer(() => {
        for (const { index, m, steps, signature } of chunk) {
          if (m.role === 'assistant' && !s.accounted.has(signature)) {
            s.accounted.add(signature);
            if (countReplies) s.ledger.accountCall(index, m.turn);
          }
          s.ledger.addMessage(index, steps, m.tool, m.extra);
        }
      });
    }
    s.ledgerLength = end;
    for (let i = first; i < held.length; i++) this.setEdit(s, i);
  }

  /** Views changed outside a pass (summaries put back or dropped): edits and the ledger follow. */
  private markChanged(s: Session, indices: readonly number[]): void {
    for (const i of indices) {
      this.setEdit(s, i);
      const m = s.messages[i];
      if (m && i < s.ledgerLength) {
        const steps = s.stepsOf(m);
        s.ledger.defer(() => s.ledger.changeMessage(i, steps, m.extra));
      }
    }
  }

  /** A layer-1 summary went out: its phase is in force, kept in the index, shown live. */
  private phaseApplied(s: Session, staged: StagedPhase): void {
    this.layer1.applied(s, staged);
    const p = staged.phase;
    const entry: PhaseEntry = {
      session_id: s.id,
      phase_id: p.id,
      message_from: p.from,
      message_to: p.to,
      turn_from: p.turnFrom,
      turn_to: p.turnTo,
      topic: p.topic,
      summary: p.summary,
      tokens_before: p.tokensBefore,
      tokens_after: p.tokensAfter,
      recall_id: p.recallId,
      model: p.model,
      created_at: p.createdAt,
      updates: p.updates,
    };
    this.opts.phases?.record(entry);
    if (this.opts.config().debug) this.opts.log(`hmc: session ${s.id}: phase ${p.id} summarised (messages ${p.from}-${p.to}, about ${p.tokensBefore} → ${p.tokensAfter} tokens${staged.updated ? ', updated' : ''})`);
    this.opts.sink.emit({
      type: 'phase',
      session_id: s.id,
      phase_id: p.id,
      topic: p.topic,
      turn_from: p.turnFrom,
      turn_to: p.turnTo,
      tokens_before: p.tokensBefore,
      tokens_after: p.tokensAfter,
      recall_id: p.recallId,
      updated: staged.updated,
    });
  }

  private setEdit(s: Session, i: number): void {
    const m = s.messages[i];
    if (!m) return;
    const view = s.viewOf(m);
    if (typeof view === 'string' && view !== m.raw) s.edits.set(i, view);
    else s.edits.delete(i);
  }

  private compressContext(s: Session, config: HmcConfig, key: string): CompressContext {
    return { config, protection: protectionFor(config), manual: s.manual, log: this.opts.log, recallId: recallId(s.id, key) };
  }

  /** A shortened output other than a file read is kept, so its markers' recall id answers. */
  private keepForRecall(s: Session, key: string, tool: string, comp: Compression): void {
    if (comp.content !== comp.raw && comp.kind !== 'file') this.recall.put(s.id, recallId(s.id, key), tool, comp.raw);
  }

  /** A user turn began: its timeline point, with the context as it will be sent. */
  private deferTurnStart(s: Session): void {
    const turn = s.turn;
    const time = this.now();
    // As of this hook: read when the job runs, the count would include tool calls made after it,
    // and the live count ran one ahead of the store's (issue 11).
    const toolCalls = s.toolCalls;
    s.ledger.defer(() => s.ledger.startTurn(turn, time, s.contextWindow || DEFAULT_CONTEXT_WINDOW, toolCalls));
  }

  /**
   * The turn's figures once its model calls are counted (at its end): `delta_saved` is what this
   * turn's calls saved, read from its timeline point, so it is right in a new process too.
   * `at` is the turn, its tool calls and cache breaks as of the hook that ended it.
   */
  private emitTurnEvent(s: Session, config: HmcConfig, at: { turn: number; toolCalls: number; cacheBreaks: number }): void {
    const { turn, toolCalls, cacheBreaks } = at;
    if (!config.enabled || turn === 0) return;
    const t = s.ledger.totals();
    const key = `${turn}:${t.inputRaw}:${t.inputHmc}:${toolCalls}`;
    if (key === s.lastTurnEvent) return;
    s.lastTurnEvent = key;
    const window = s.contextWindow || DEFAULT_CONTEXT_WINDOW;
    this.opts.sink.emit({
      type: 'turn',
      session_id: s.id,
      turn,
      model: s.model,
      platform: s.platform,
      project_path: s.projectPath,
      context_tokens: t.contextTokens,
      context_window: window,
      context_percent: Math.min(1, t.contextTokens / window),
      delta_saved: s.ledger.turnSaved(turn),
      cumulative_saved: t.inputRaw - t.inputHmc,
      by_strategy: t.byStrategy,
      by_tool: t.byTool,
      input_tokens: { raw: t.inputRaw, hmc: t.inputHmc },
      tool_calls: toolCalls,
      cache_breaks: cacheBreaks,
    });
  }

  private deferToolEvent(s: Session, id: string, tool: string, before: string, after: string, strategies: string[], isError: boolean, config: HmcConfig): void {
    const turn = s.turn;
    s.ledger.defer(() => {
      const tokensBefore = countTokens(before);
      const tokensAfter = after === before ? tokensBefore : countTokens(after);
      const t = s.ledger.totals();
      const window = s.contextWindow || DEFAULT_CONTEXT_WINDOW;
      const inspectId = `${s.id}:${id}`;
      const kept = config.dashboard.inspector && after !== before;
      if (kept) {
        const cap = 256 * 1024;
        this.opts.sink.inspect({
          id: inspectId,
          session_id: s.id,
          tool_call_id: id,
          tool_name: tool,
          time: this.now(),
          strategies,
          tokens_before: tokensBefore,
          tokens_after: tokensAfter,
          before: before.length > cap ? before.slice(0, cap) : before,
          after: after.length > cap ? after.slice(0, cap) : after,
          before_truncated: before.length > cap,
        });
      }
      this.opts.sink.emit({
        type: 'tool',
        session_id: s.id,
        turn,
        tool_name: tool,
        tool_call_id: id,
        is_error: isError,
        tokens_before: tokensBefore,
        tokens_after: tokensAfter,
        strategies,
        delta_saved: Math.max(0, tokensBefore - tokensAfter),
        cumulative_saved: t.inputRaw - t.inputHmc,
        by_strategy: t.byStrategy,
        context_tokens: t.contextTokens,
        context_percent: Math.min(1, t.contextTokens / window),
        ...(kept ? { inspect_id: inspectId } : {}),
      });
    });
  }

  /** Background work in slices of SLICE_MS, yielding to the hooks in between. */
  private scheduleSettle(): void {
    if (this.opts.autoSettle === false || this.settleScheduled) return;
    this.settleScheduled = true;
    setImmediate(() => {
      if (this.opts.holdBackground?.()) {
        setTimeout(() => {
          this.settleScheduled = false;
          this.scheduleSettle();
        }, 1);
        return;
      }
      this.settleScheduled = false;
      if (!this.guard('accounting', () => this.settle(performance.now() + SLICE_MS), false)) this.scheduleSettle();
    });
  }

  /**
   * Runs `then` once the session's queued work is done: now, when that takes under
   * END_BUDGET_MS (the usual case), else queued behind it in the background. True when it ran now.
   */
  private whenSettled(s: Session, then: () => void): boolean {
    const deadline = this.opts.autoSettle === false ? Number.POSITIVE_INFINITY : performance.now() + (this.opts.endBudgetMs ?? END_BUDGET_MS);
    const caught = catchUp.advance(s, this.catchUpDeps(s, deadline));
    if (caught && s.ledger.settle(deadline)) {
      then();
      return true;
    }
    s.ledger.defer(then);
    this.scheduleSettle();
    return false;
  }

  private catchUpDeps(s: Session, deadline: number): catchUp.AdvanceDeps {
    const config = this.opts.config();
    return {
      config,
      compress: (m, args, hostError) => {
        const comp = compressOutput(m.raw as string, { tool: m.tool, args, hostError }, this.compressContext(s, config, m.key));
        this.keepForRecall(s, m.key, m.tool, comp);
        return comp;
      },
      deadline,
      sentLength: s.previousCallLength,
      changed: (index, m) => {
        this.setEdit(s, index);
        if (index < s.ledgerLength) {
          const steps = s.stepsOf(m);
          s.ledger.defer(() => s.ledger.changeMessage(index, steps, m.extra));
        }
      },
    };
  }

  private newRecord(tool: string, args: unknown, turn: number, isError: boolean): ToolRecord {
    const name = typeof tool === 'string' ? tool : '';
    return { tool: name, fingerprint: hash(argsFingerprint(name, parseArgs(args))), turn, isError };
  }

  /** Hands the session's picture to analytics (an upsert: re-recording never double counts). */
  private recordAnalytics(s: Session): void {
    const config = this.opts.config();
    if (!this.opts.recorder || !config.analytics.enabled || !config.enabled) return;
    const t = s.ledger.totals();
    if (s.toolCalls === 0 && t.modelCalls === 0) return;
    this.opts.recorder.record(this.sessionRecord(s));
  }

  private load(id: string) {
    return this.files?.load(id) ?? null;
  }

  /** Atomic, private, off the hook path (session-files.ts). */
  private save(s: Session): void {
    if (!this.files || !this.opts.config().enabled) return;
    this.files.save(s.id, JSON.stringify(s.persist()));
  }

  /** Waits until every session save in flight has reached the disk. */
  async flushSaves(): Promise<void> {
    await Promise.all([this.files?.flush(), this.recall.flush()]);
  }

  /** Flushes the saves and gives the failed ones a last try (process exit). */
  async closeSaves(): Promise<void> {
    await Promise.all([this.files?.close(), this.recall.flush()]);
  }

  private controlDeps(): ControlDeps {
    return {
      log: this.opts.log,
      stateDir: this.opts.stateDir,
      projectPath: this.opts.projectPath ?? '',
      dashboard: this.opts.control?.dashboard ?? null,
      analytics: this.opts.control?.analytics ?? null,
      configIssues: this.opts.control?.configIssues ?? (() => []),
      phases: this.opts.phases ?? null,
    };
  }

  private guard<T>(what: string, fn: () => T, fallback?: T): T {
    try {
      return fn();
    } catch (err) {
      if (err instanceof ResyncError) throw err;
      this.opts.log(`hmc: ${what} failed, passing through untouched: ${errorText(err)}`);
      if (this.opts.config().debug && err instanceof Error && err.stack) this.opts.log(err.stack);
      return fallback as T;
    }
  }
}

function isMessage(value: unknown): value is Message {
  return typeof value === 'object' && value !== null && typeof (value as { role?: unknown }).role === 'string';
}

function countRole(messages: readonly { role: string }[], role: string): number {
  let n = 0;
  for (const m of messages) if (m.role === role) n++;
  return n;
}

/** A message's own timestamp in ms (ISO text, or seconds / ms since the epoch), or 0. */
function timestampOf(value: unknown): number {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value > 1e12 ? value : value * 1000;
  if (typeof value === 'string' && value.length >= 10) {
    const t = Date.parse(value);
    return Number.isFinite(t) ? t : 0;
  }
  return 0;
}

function sameMessage(held: MessageState, m: Message): boolean {
  if (held.role !== m.role) return false;
  if (held.raw === m.content) return true;
  if (typeof held.raw === 'string' || typeof m.content === 'string') return false;
  return safeJson(held.raw) === safeJson(m.content);
}

/** A held message rebuilt for the incremental path (only role, content and tool ids matter). */
function heldMessage(m: MessageState): Message {
  const out: Message = { role: m.role, content: m.raw };
  if (m.role === 'tool' && !m.key.startsWith('#')) out.tool_call_id = m.key;
  if (m.tool) out.name = m.tool;
  return out;
}

/** Remembers the tool calls of an assistant message (results name their call by id). */
function indexCalls(index: Map<string, { name: string; args: unknown }>, m: Message): void {
  if (m.role !== 'assistant' || !Array.isArray(m.tool_calls)) return;
  for (const call of m.tool_calls) {
    if (typeof call?.id !== 'string') continue;
    index.set(call.id, { name: typeof call.function?.name === 'string' ? call.function.name : '', args: call.function?.arguments ?? {} });
  }
}

function toolName(m: Message, fromCall: string | undefined): string {
  if (typeof m.name === 'string' && m.name) return m.name;
  if (typeof m.tool_name === 'string' && m.tool_name) return m.tool_name;
  return fromCall ?? '';
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
