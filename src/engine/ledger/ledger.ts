/**
 * The savings ledger of one session: input tokens over all model calls with and without HMC, per
 * strategy and per tool, the context as sent now, and a per-turn timeline.
 *
 * A model call is counted when it is sent (`accountSend`, from `pre_model_call`: its input is every
 * message held plus the fixed part sent with every call, the system prompt and the tool schemas), or,
 * for hosts that never call `pre_model_call`, once per assistant reply when the reply shows up
 * (`accountCall`: its input is every message before it). A re-sent or rewritten history never
 * counts twice. Per message, the savings of each strategy are the token drop of its own step, so
 * they add up to raw minus sent exactly (DESIGN §7). What one message costs is `messageTokens`
 * (tokens.ts, here via message-tokens.ts), the same rule a test applies to the requests recorded on the wire.
 *
 * Token counting is real BPE and therefore not free: hooks only queue jobs; `settle()` runs them
 * (ledger-jobs.ts: after the hook answered, or when figures are read, in slices; issue 19).
 */
import type { Saved } from '../../core/savings.js';
import type { TurnPoint } from '../../store/types.js';
import { JobQueue } from './ledger-jobs.js';
import { tokensOf, type MessageCost, type MessageTokens, type ViewSteps } from './message-tokens.js';
import {
  fullPoint,
  isCallPoint,
  isTurnPoint,
  num,
  numbers,
  positive,
  type CallPoint,
  type SendInfo,
} from './ledger-points.js';

export type { BreakCause, CallPoint, SendInfo } from './ledger-points.js';

export interface LedgerTotals {
  inputRaw: number;
  inputHmc: number;
  byStrategy: Saved;
  byTool: Saved;
  modelCalls: number;
  contextTokens: number;
  contextRawTokens: number;
  contextPeak: number;
  /**
   * HMC's model of the provider's prompt cache (DESIGN §6, docs/glossary.md "cache model"): of
   * inputRaw and inputHmc, the tokens a provider could read from its cache (the rest is written),
   * and the input of calls counted without a cache model (`plain*`: priced as plain input).
   */
  cachedRaw: number;
  cachedHmc: number;
  plainRaw: number;
  plainHmc: number;
}

export interface LedgerSnapshot extends LedgerTotals {
  timeline: TurnPoint[];
  /** The latest model calls (bounded), oldest first. */
  calls?: CallPoint[];
  /** Savings in the context now, per strategy (so a new process shows them with the total). */
  contextByStrategy?: Saved;
}

/** Model calls kept for the per-call record (the session file shows the latest ones). */
const MAX_CALLS = 2000;

export class Ledger {
  inputRaw = 0;
  inputHmc = 0;
  byStrategy: Saved = {};
  byTool: Saved = {};
  modelCalls = 0;
  contextPeak = 0;
  cachedRaw = 0;
  cachedHmc = 0;
  plainRaw = 0;
  plainHmc = 0;
  timeline: TurnPoint[] = [];
  calls: CallPoint[] = [];
  /** Context now, as sent and as it would be raw: sums over `messages`. */
  private sentNow = 0;
  private rawNow = 0;
  private strategyNow: Saved = {};
  private toolNow: Saved = {};
  private messages: MessageTokens[] = [];
  /** Tokens sent with every call besides the messages: the system prompt and the tool schemas. */
  private fixed: Record<'system' | 'tools', number> = { system: 0, tools: 0 };
  private jobs = new JobQueue();
  /** The context as an earlier process last saw it, shown until this one holds messages again. */
  private restored: { sent: number; raw: number; byStrategy: Saved | null } = { sent: 0, raw: 0, byStrategy: {} };

  /** Restores totals saved by an earlier process (the per-message part is rebuilt from messages). */
  static from(snapshot: Partial<LedgerSnapshot> | undefined): Ledger {
    const ledger = new Ledger();
    if (!snapshot) return ledger;
    ledger.inputRaw = num(snapshot.inputRaw);
    ledger.inputHmc = Math.min(num(snapshot.inputHmc), ledger.inputRaw);
    ledger.byStrategy = numbers(snapshot.byStrategy);
    ledger.byTool = numbers(snapshot.byTool);
    ledger.modelCalls = num(snapshot.modelCalls);
    ledger.contextPeak = num(snapshot.contextPeak);
    // A file from before the cache model was kept: its calls had none (priced as plain input).
    const modelled = snapshot.cachedRaw !== undefined || snapshot.plainRaw !== undefined;
    ledger.cachedRaw = Math.min(num(snapshot.cachedRaw), ledger.inputRaw);
    ledger.cachedHmc = Math.min(num(snapshot.cachedHmc), ledger.inputHmc);
    ledger.plainRaw = modelled ? num(snapshot.plainRaw) : ledger.inputRaw;
    ledger.plainHmc = modelled ? num(snapshot.plainHmc) : ledger.inputHmc;
    ledger.timeline = Array.isArray(snapshot.timeline) ? snapshot.timeline.filter(isTurnPoint).map(fullPoint) : [];
    ledger.calls = Array.isArray(snapshot.calls) ? snapshot.calls.filter(isCallPoint) : [];
    const sent = num(snapshot.contextTokens);
    const raw = Math.max(num(snapshot.contextRawTokens), sent);
    // A file from before the breakdown was saved: the total alone cannot be split (null = unknown).
    const byStrategy =
      snapshot.contextByStrategy === undefined ? (raw > sent ? null : {}) : numbers(snapshot.contextByStrategy);
    ledger.restored = { sent, raw, byStrategy };
    return ledger;
  }

  /** Queues work for the next `settle()`; `counts`: the contents it counts tokens of (`JobQueue.defer`). */
  defer(run: () => void, counts: readonly unknown[] = []): void {
    this.jobs.defer(run, counts);
  }

  get pending(): number {
    return this.jobs.pending;
  }

  /** Runs the queued jobs, all or until `deadline` (`JobQueue.settle`); true when nothing is left. */
  settle(deadline = Number.POSITIVE_INFINITY): boolean {
    return this.jobs.settle(deadline);
  }

  /** Message `index` joined the conversation (indices arrive in order, from `length`). */
  addMessage(index: number, view: ViewSteps, tool: string, extra: string): void {
    const entry = tokensOf(view, tool, extra);
    this.messages[index] = entry;
    this.add(entry, 1);
  }

  /** Message `index` is now sent differently (a batch rewrote it). */
  changeMessage(index: number, view: ViewSteps, extra: string): void {
    const old = this.messages[index];
    if (!old) return;
    const entry = tokensOf(view, old.tool, extra);
    this.add(old, -1);
    this.messages[index] = entry;
    this.add(entry, 1);
  }

  /** Forgets messages from `index` on (the host rewrote its history from there). */
  truncate(index: number): void {
    for (let i = this.messages.length - 1; i >= index; i--) {
      const entry = this.messages[i];
      if (entry) this.add(entry, -1);
    }
    this.messages.length = Math.min(this.messages.length, index);
  }

  /** A model call whose input was messages [0, index): credited from the running prefix sums. */
  accountCall(index: number, turn: number): void {
    let raw = 0;
    let sent = 0;
    const byStrategy: Saved = {};
    const byTool: Saved = {};
    // Prefix sums: usually index equals the message count (the call is the latest one).
    if (index >= this.messages.length) {
      raw = this.rawNow;
      sent = this.sentNow;
      Object.assign(byStrategy, this.strategyNow);
      Object.assign(byTool, this.toolNow);
    } else {
      for (let i = 0; i < index; i++) {
        const m = this.messages[i];
        if (!m) continue;
        raw += m.raw;
        sent += m.sent;
        for (const [k, v] of Object.entries(m.byStrategy)) byStrategy[k] = (byStrategy[k] ?? 0) + v;
        if (m.raw !== m.sent) byTool[m.tool] = (byTool[m.tool] ?? 0) + (m.raw - m.sent);
      }
    }
    this.credit(turn, raw, sent, byStrategy, byTool);
  }

  /**
   * A model call sent now: its input is every message held plus the fixed part (DESIGN §7). The
   * first `info.stable` messages were sent unchanged by the previous call (-1: unknown): they and
   * the fixed part are what HMC's cache model counts as read from the provider's cache; the raw
   * request likewise with `info.rawStable` (its messages as the host gave them).
   */
  accountSend(turn: number, info: SendInfo = { stable: -1, rawStable: -1 }): void {
    const fixed = this.fixed.system + this.fixed.tools;
    const prefix = (n: number, side: 'raw' | 'sent'): number | undefined => {
      if (n < 0) return undefined;
      if (n === 0 || info.fixedChanged) return 0;
      let t = fixed;
      for (let i = 0; i < Math.min(n, this.messages.length); i++) t += this.messages[i]?.[side] ?? 0;
      return t;
    };
    const cached = prefix(info.stable, 'sent');
    const cachedRaw = prefix(info.rawStable, 'raw');
    const meta = {
      ...(info.id ? { id: info.id } : {}),
      ...(info.at ? { at: info.at } : {}),
      ...(info.cause ? { cause: info.cause } : {}),
    };
    this.credit(
      turn,
      this.rawNow + fixed,
      this.sentNow + fixed,
      this.strategyNow,
      this.toolNow,
      cached,
      cachedRaw,
      meta,
    );
  }

  /** What is sent with every call besides the messages (tokens; `messageTokens` of the system message, `toolsTokens`). */
  setFixed(part: 'system' | 'tools', tokens: number): void {
    this.fixed[part] = Math.max(0, tokens);
  }

  /** Input tokens the turn's model calls were not sent (0 for a turn without a timeline point). */
  turnSaved(turn: number): number {
    const point = this.timeline.find((p) => p.turn === turn);
    return point ? Math.max(0, point.input_raw - point.input_hmc) : 0;
  }

  private credit(
    turn: number,
    raw: number,
    sent: number,
    byStrategy: Saved,
    byTool: Saved,
    cached?: number,
    cachedRaw?: number,
    meta: Partial<CallPoint> = {},
  ): void {
    const hmc = Math.min(sent, raw);
    this.modelCalls++;
    this.inputRaw += raw;
    this.inputHmc += hmc;
    // Both sides modelled, or neither: a call priced with the cache on one side only would skew the saving.
    const modelled = cached !== undefined && cachedRaw !== undefined;
    const cache = modelled ? { hmc: Math.min(cached, hmc), raw: Math.min(cachedRaw, raw) } : null;
    if (cache) {
      this.cachedHmc += cache.hmc;
      this.cachedRaw += cache.raw;
    } else {
      this.plainRaw += raw;
      this.plainHmc += hmc;
    }
    for (const [k, v] of Object.entries(byStrategy)) if (v !== 0) this.byStrategy[k] = (this.byStrategy[k] ?? 0) + v;
    for (const [k, v] of Object.entries(byTool)) if (v !== 0) this.byTool[k] = (this.byTool[k] ?? 0) + v;
    const point = this.timeline.find((p) => p.turn === turn);
    if (point) {
      point.input_raw += raw;
      point.input_hmc += hmc;
      point.model_calls = (point.model_calls ?? 0) + 1;
      if (cache) {
        point.cached_raw = (point.cached_raw ?? 0) + cache.raw;
        point.cached_hmc = (point.cached_hmc ?? 0) + cache.hmc;
      }
    }
    this.calls.push({ turn, raw, hmc, ...(cache ? { cached: cache.hmc, cached_raw: cache.raw } : {}), ...meta });
    if (this.calls.length > MAX_CALLS) this.calls.splice(0, this.calls.length - MAX_CALLS);
    this.contextPeak = Math.max(this.contextPeak, sent);
  }

  /** A user turn began: a timeline point, its context as it stands (set again at the turn's end). */
  startTurn(turn: number, time: number, contextWindow: number, toolCalls: number): void {
    const existing = this.timeline.find((p) => p.turn === turn);
    const point: TurnPoint = existing ?? {
      turn,
      time,
      context_tokens: 0,
      context_raw_tokens: 0,
      context_percent: 0,
      input_raw: 0,
      input_hmc: 0,
      model_calls: 0,
      tool_calls: 0,
    };
    this.setContext(point, contextWindow);
    point.tool_calls = toolCalls;
    if (!existing) {
      this.timeline.push(point);
      // Bounded: long sessions keep their latest 2,000 turns.
      if (this.timeline.length > 2000) this.timeline.splice(0, this.timeline.length - 2000);
    }
  }

  /**
   * The turn ended: its point takes the context as it stands now, the figure the turn's live
   * event shows. At the turn's start the system prompt and tool schemas were not known yet (they
   * come with the first model call), so turn 1 was stored as the user's message alone: 49 tokens
   * where the live chart showed 7 % (issue 17, finding 3).
   */
  endTurn(turn: number, contextWindow: number): TurnPoint | undefined {
    const point = this.timeline.find((p) => p.turn === turn);
    if (point) this.setContext(point, contextWindow);
    return point;
  }

  private setContext(point: TurnPoint, contextWindow: number): void {
    const context = this.contextNow();
    this.contextPeak = Math.max(this.contextPeak, context.sent);
    point.context_tokens = context.sent;
    point.context_raw_tokens = Math.max(context.raw, context.sent);
    point.context_percent = contextWindow > 0 ? Math.min(1, context.sent / contextWindow) : 0;
  }

  /** Tool calls made during a turn, counted into its timeline point. */
  countToolCall(turn: number): void {
    const point = this.timeline.find((p) => p.turn === turn);
    if (point) point.tool_calls++;
  }

  totals(): LedgerTotals {
    const context = this.contextNow();
    return {
      inputRaw: this.inputRaw,
      inputHmc: this.inputHmc,
      byStrategy: positive(this.byStrategy),
      byTool: positive(this.byTool),
      modelCalls: this.modelCalls,
      contextTokens: context.sent,
      contextRawTokens: context.raw,
      contextPeak: Math.max(this.contextPeak, context.sent),
      cachedRaw: this.cachedRaw,
      cachedHmc: this.cachedHmc,
      plainRaw: this.plainRaw,
      plainHmc: this.plainHmc,
    };
  }

  /** Each held message's tokens, and the fixed part (for the context view; read-only). */
  perMessage(): {
    messages: readonly (MessageCost | undefined)[];
    fixed: Readonly<Record<'system' | 'tools', number>>;
  } {
    return { messages: this.messages, fixed: this.fixed };
  }

  /** The context as the next call would send it (the fixed part included), raw and with HMC. */
  private contextNow(): { sent: number; raw: number } {
    if (this.messages.length === 0) return this.restored;
    const fixed = this.fixed.system + this.fixed.tools;
    return { sent: this.sentNow + fixed, raw: this.rawNow + fixed };
  }

  /**
   * Savings in the context as it stands now, per strategy; in a process that does not hold the
   * messages yet, as the last process saved them. `byStrategy` is null when only the total is
   * known (a session file from before the breakdown was saved): a total is never shown beside a
   * breakdown that does not add up to it (issue 11).
   */
  contextSavings(): { total: number; byStrategy: Saved | null } {
    if (this.messages.length === 0)
      return { total: this.restored.raw - this.restored.sent, byStrategy: this.restored.byStrategy };
    return { total: Math.max(0, this.rawNow - this.sentNow), byStrategy: positive(this.strategyNow) };
  }

  snapshot(): LedgerSnapshot {
    const now = this.contextSavings();
    return {
      ...this.totals(),
      timeline: this.timeline.map((p) => ({ ...p })),
      calls: this.calls.map((c) => ({ ...c })),
      ...(now.byStrategy ? { contextByStrategy: now.byStrategy } : {}),
    };
  }

  private add(entry: MessageTokens, sign: 1 | -1): void {
    this.rawNow += sign * entry.raw;
    this.sentNow += sign * entry.sent;
    for (const [k, v] of Object.entries(entry.byStrategy)) this.strategyNow[k] = (this.strategyNow[k] ?? 0) + sign * v;
    if (entry.raw !== entry.sent)
      this.toolNow[entry.tool] = (this.toolNow[entry.tool] ?? 0) + sign * (entry.raw - entry.sent);
  }
}
