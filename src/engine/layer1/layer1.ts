/**
 * Layer 1 in the engine (issue 10, DESIGN §6): once the context passes its threshold (a share of
 * the host's own compression threshold, so HMC's pass comes first), a finished range of the
 * conversation is summarised by the host's auxiliary model, off the hook path; when the summary is
 * back, it waits for a pass (the price rule and the cache-break budget, pass.ts) and then the
 * range's first message is sent as the summary and the others as stubs. The exact messages stay
 * recoverable by recall id, and the phase lands in the session index.
 *
 * Invariants: one summary in flight per session; a summary goes out only over the very messages
 * it was made from (their digest is checked); the latest user message, the head, the recent tail,
 * protected tools' outputs and every tool call's pairing with its result stay as they are; a
 * failure or a pass that saves too little cools layer 1 down, never loses anything; nothing in
 * manual mode.
 */
import type { HmcConfig } from '../../config/keys.js';
import { chooseRange, type RangeMessage } from '../../strategies/list-wide/summary-range.js';
import type { Summariser, SummaryResult } from '../../summarise/types.js';
import { nextPassCall } from './layer1-price.js';
import { rangeVerdict } from './range-verdict.js';
import { summariseShare } from './layer1-threshold.js';
import { Pacer } from './pacer.js';
import { recallId, type RecallStore } from '../session/recall.js';
import type { MessageState, Phase } from '../session/held.js';
import type { Session } from '../session/session.js';
import { contentTokens, countTokens, overheadTokens } from '../../core/tokens.js';
import type { Message } from '../../core/message.js';
import { errorText } from '../../core/errors.js';
import { asMessage, phaseViews, rangeDigest, rawTokens, sentMessage, sentTokens } from './phase-views.js';

/** Re-exported where they were: the turn, the context engine and the tests import them from here. */
export { PHASE_HEAD, PHASE_STUB, phaseViews, rangeDigest } from './phase-views.js';

/** A range must hold at least this many tokens of new work to be summarised. */
const MIN_RANGE_TOKENS = 2000;
/** A summary is asked for this many calls ahead of the pass that can send it, at most. */
const ASK_AHEAD_CALLS = 3;
/**
 * A summary whose request went out after hook h may go out at a model call from hook
 * h + READY_AFTER_HOOKS on, not earlier, however soon it is back (issue 25: replays must give
 * the same figures on every run). A host that answers at once (a replay) writes its answer after
 * hook h + 1's request and before hook h + 2's, so it has been read before hook h + 3 whatever the
 * pipe's chunks: the call a summary goes out at depends on the hooks alone. In a tool loop
 * (pre_tool_call, post_tool_call, then the next model call) that is the very next model call.
 */
export const READY_AFTER_HOOKS = 3;
/** Near this share of the window a pass comes whatever the budget (batch.ts): a summary can go out then. */
const OVERFLOW_SHARE = 0.85;

/** A summary back from the summariser, waiting for a pass to go out. */
export interface StagedPhase {
  phase: Phase;
  /** True when it replaces an earlier summary of the same (shorter) range. */
  updated: boolean;
  /** Per message of the range: what it is sent as (null: left as it is, e.g. a protected tool's output). */
  views: { index: number; text: string }[];
  /** The first hook (by the engine's count) at whose model call it may go out (READY_AFTER_HOOKS after its request). */
  readyAt: number;
}

export interface Layer1Deps {
  /** The summariser in force (null: layer 1 is off, e.g. no auxiliary model and no endpoint). */
  summariser: () => Summariser | null;
  recall: RecallStore;
  log: (line: string) => void;
  now: () => number;
  /** A summary came back and waits for a pass: save the session now, so a process that ends first does not lose it. */
  staged?: (s: Session) => void;
}

interface Waiting {
  /** The hook (by the engine's count) after which the request's last step of preparation ran (pacer.ts). */
  askedAt: number;
  from: number;
  to: number;
  extends?: number;
  digest: string;
  tokensBefore: number;
}

interface Counters {
  /** Model calls (replies) before which no new summary starts. */
  cooldownUntil: number;
  passes: number;
  failures: number;
  lastFailure: string;
  tokensIn: number;
  tokensOut: number;
  /** Summaries asked for and answered (the mean answer estimates the next one's length). */
  answered: number;
  /** Ranges not asked for because the summary would not pay for itself. */
  declined: number;
  /** What the summariser's tokens cost so far, in main-model input tokens. */
  spent: number;
  /** The prices the host stated with its last answer (null: it stated none). */
  hostPrice: { input: number; output: number } | null;
}

export class Layer1 {
  private readonly inFlight = new WeakMap<Session, Waiting>();
  private readonly ready = new WeakMap<Session, StagedPhase>();
  private readonly counters = new WeakMap<Session, Counters>();
  private readonly pacer = new Pacer();
  /** Hooks seen so far (afterHook), the clock a summary's readiness is measured by. */
  private hooks = 0;

  constructor(private readonly deps: Layer1Deps) {}

  /** A hook has answered: a summary being prepared takes its next step (pacer.ts). */
  afterHook(): void {
    this.hooks++;
    this.pacer.afterHook();
  }

  /** Figures for status, stats and replays. */
  stats(s: Session): Counters & { inFlight: boolean; phases: number } {
    return { ...this.counter(s), inFlight: this.inFlight.has(s), phases: s.layer1.phases.length };
  }

  /**
   * The summary waiting for a pass, still valid over the held messages (else dropped); one an
   * earlier process saved with the session comes back here, its views made again.
   */
  staged(s: Session, config: HmcConfig): StagedPhase | null {
    let staged = this.ready.get(s);
    if (!staged && s.layer1.stagedPhase) {
      const { phase, updated } = s.layer1.stagedPhase;
      const valid =
        phase.to < s.held.messages.length && rangeDigest(s.held.messages, phase.from, phase.to) === phase.digest;
      staged = valid ? { phase, updated, views: phaseViews(s, config, phase), readyAt: 0 } : undefined;
      if (staged) this.ready.set(s, staged);
      else s.layer1.dropStaged();
    }
    if (!staged) return null;
    const { phase } = staged;
    if (phase.to >= s.held.messages.length || rangeDigest(s.held.messages, phase.from, phase.to) !== phase.digest) {
      // The host rewrote its history meanwhile: the summary is of messages no longer there.
      this.ready.delete(s);
      s.layer1.dropStaged();
      return null;
    }
    return this.hooks >= staged.readyAt ? staged : null;
  }

  /** The staged phase went out: it is in force now. */
  applied(s: Session, staged: StagedPhase): void {
    this.ready.delete(s);
    s.layer1.dropStaged();
    const { phase } = staged;
    s.layer1.putInForce(phase);
    this.counter(s).passes++;
    this.deps.log(
      `hmc: layer 1: phase ${phase.id} of session ${s.id} went out at model call ${s.held.replies}: ${phase.tokensBefore - phase.tokensAfter} tokens fewer per call`,
    );
  }

  /**
   * Starts a summary when the context is past the threshold and a finished range is worth it
   * (called after a view was computed; the summary comes back later, off the hook path).
   */
  maybeStart(s: Session, config: HmcConfig, window: number, hostThreshold: number | undefined): void {
    const bc = config.background_compression;
    if (!config.enabled || !bc.enabled || s.meta.manual) return;
    if (this.inFlight.has(s) || this.ready.has(s) || s.layer1.stagedPhase) return;
    const c = this.counter(s);
    if (s.held.replies < c.cooldownUntil) return;
    const trigger = window * summariseShare(config, hostThreshold);
    const sizes: RangeMessage[] = s.held.messages.map((m) => ({ role: m.role, tokens: sentTokens(s, m) }));
    let context = 0;
    for (const m of sizes) context += m.tokens;
    if (s.counts.hostTokens !== undefined) {
      // In the host's units: its measure of the raw request, less what HMC takes off it (the same
      // rough rule both sides), so the system prompt and tool schemas count as the host counts them.
      let raw = 0;
      for (const m of s.held.messages) raw += rawTokens(m);
      context = Math.max(context, s.counts.hostTokens - Math.max(0, raw - context));
    }
    if (context <= trigger) return;
    // A summary only saves once a pass sends it: ask when the cache-break budget lets one come within
    // a few calls (or the context nears overflow, when a pass comes anyway), so it is not paid for
    // long before it can save anything, and by then the session has shown it goes on.
    const nextPass = nextPassCall(
      s.held.replies,
      s.counts.cacheBreaks,
      config.cache.max_breaks_per_100_calls,
      config.cache.first_break_after,
    );
    if (nextPass - s.held.replies > ASK_AHEAD_CALLS && context <= OVERFLOW_SHARE * window) return;
    const range = chooseRange(sizes, s.layer1.phases, {
      protectTurns: bc.protect_recent_turns,
      protectCalls: bc.protect_recent_calls,
      minTokens: MIN_RANGE_TOKENS,
    });
    if (!range) return;
    const summariser = this.deps.summariser();
    if (!summariser) return;
    const previous = range.extends !== undefined ? s.layer1.phases.find((p) => p.id === range.extends) : undefined;
    // What the summariser reads: the range as the model is sent it now (a cleared output as its
    // marker, a read as the code filter left it), and of a phase being extended only what came
    // after its note, which it is given beside.
    const messages: Message[] = [];
    for (let i = previous ? previous.to + 1 : range.from; i <= range.to; i++)
      messages.push(sentMessage(s, s.held.messages[i] as MessageState));
    // Ask only when the summary pays for its own tokens under the cache model (layer1-price.ts).
    const verdict = rangeVerdict(s, config, range, messages, previous, c, this.price(s, config));
    if (!verdict.pays || verdict.removed < bc.min_savings * range.tokens) {
      c.declined++;
      c.cooldownUntil = s.held.replies + bc.cooldown_calls;
      return;
    }
    const waiting: Waiting = {
      askedAt: this.hooks,
      from: range.from,
      to: range.to,
      digest: rangeDigest(s.held.messages, range.from, range.to),
      tokensBefore: range.tokens,
      ...(previous ? { extends: previous.id } : {}),
    };
    this.inFlight.set(s, waiting);
    this.deps.log(
      `hmc: layer 1: summarising messages ${range.from}-${range.to} of session ${s.id}: ${verdict.removed} tokens fewer per call expected over ~${verdict.callsAfter} calls (~${Math.round(verdict.saving)} input tokens' worth) for ~${Math.round(verdict.price)}`,
    );
    const done = (result: SummaryResult): void => {
      this.inFlight.delete(s);
      // The host's own figure for the model that answered, when it has one, prices this and later requests.
      if (result.ok && result.price) c.hostPrice = result.price;
      const price = this.price(s, config);
      c.tokensIn += result.tokensIn;
      c.spent += result.tokensIn * price.input + (result.ok ? result.tokensOut * price.output : 0);
      if (!result.ok) {
        c.failures++;
        c.lastFailure = result.reason;
        // A failure that trying again cannot mend (the host has no such method, a bad request): off for the session.
        c.cooldownUntil = result.retryable ? s.held.replies + bc.cooldown_calls : Infinity;
        const next = result.retryable
          ? `next try after ${bc.cooldown_calls} model calls`
          : 'layer 1 stays off for this session';
        this.deps.log(
          `hmc: layer-1 summary for session ${s.id} failed (${result.reason}); nothing was replaced, ${next}`,
        );
        return;
      }
      c.tokensOut += result.tokensOut;
      c.answered++;
      this.stage(s, config, waiting, previous, result);
    };
    // Prepared in steps, one after each hook (pacer.ts), starting right after this hook's answer:
    // where the request lands among the host's hooks must not depend on the machine's speed.
    const pace = async (): Promise<void> => {
      await this.pacer.wait();
      waiting.askedAt = this.hooks;
    };
    const first = this.pacer.wait();
    this.pacer.afterHook();
    void first.then(() => {
      waiting.askedAt = this.hooks;
      void summariser
        .summarise({
          sessionId: s.id,
          messages,
          pace,
          ...(previous ? { previous: previous.summary } : {}),
          maxTokens: bc.max_summary_tokens,
        })
        .then(done, (err: unknown) => done({ ok: false, reason: errorText(err), retryable: true, tokensIn: 0 }));
    });
  }

  /** Phases saved by an earlier process go back on the held messages they were made from. */
  rehold(s: Session, config: HmcConfig): number[] {
    if (!s.layer1.phasesToRehold) return [];
    const changed: number[] = [];
    const kept: Phase[] = [];
    for (const phase of s.layer1.phases) {
      if (phase.to >= s.held.messages.length || rangeDigest(s.held.messages, phase.from, phase.to) !== phase.digest)
        continue;
      kept.push(phase);
      for (const { index, text } of phaseViews(s, config, phase)) {
        (s.held.messages[index] as MessageState).summary = text;
        changed.push(index);
      }
    }
    s.layer1.reheld(kept);
    return changed;
  }

  /** The host rewrote its history from `from` on: phases reaching there are gone (their messages changed). */
  truncate(s: Session, from: number): number[] {
    const changed: number[] = [];
    s.layer1.keepPhases((phase) => {
      if (phase.to < from) return true;
      for (let i = phase.from; i < Math.min(from, phase.to + 1); i++) {
        const m = s.held.messages[i];
        if (m && m.summary !== null) {
          m.summary = null;
          changed.push(i);
        }
      }
      return false;
    });
    this.ready.delete(s);
    s.layer1.dropStaged();
    return changed;
  }

  /** The hint listing the summarised phases (null when there are none). */
  hint(s: Session): string | null {
    if (s.layer1.phases.length === 0) return null;
    const listed = s.layer1.phases.slice(-5).map((p) => `${p.id}: ${p.topic} (recall id=${p.recallId})`);
    const more = s.layer1.phases.length > 5 ? ` and ${s.layer1.phases.length - 5} earlier` : '';
    return `Earlier work is summarised in ${s.layer1.phases.length} phase${s.layer1.phases.length === 1 ? '' : 's'} (${listed.join('; ')}${more}). hmc_control action=recall id=<id> gives a phase's exact messages back; action=index query=<words> searches them.`;
  }

  private stage(
    s: Session,
    config: HmcConfig,
    waiting: Waiting,
    previous: Phase | undefined,
    result: Extract<SummaryResult, { ok: true }>,
  ): void {
    const bc = config.background_compression;
    const c = this.counter(s);
    if (
      waiting.to >= s.held.messages.length ||
      rangeDigest(s.held.messages, waiting.from, waiting.to) !== waiting.digest
    )
      return;
    // After the highest id ever used: a compaction's phases are no longer held, but keep their ids.
    const id = previous?.id ?? s.layer1.phases.reduce((n, p) => Math.max(n, p.id), s.engine.last_phase_id) + 1;
    s.engine.phaseNumbered(id);
    const phase: Phase = {
      id,
      from: waiting.from,
      to: waiting.to,
      digest: waiting.digest,
      recallId: recallId(s.id, `phase:${id}:${waiting.from}-${waiting.to}`),
      topic: result.topic,
      summary: result.text,
      tokensBefore: waiting.tokensBefore,
      tokensAfter: 0,
      updates: previous ? previous.updates + 1 : 0,
      model: result.model,
      createdAt: this.deps.now(),
      turnFrom: (s.held.messages[waiting.from] as MessageState).turn,
      turnTo: (s.held.messages[waiting.to] as MessageState).turn,
    };
    // Real token counts (this runs when the summary is back, off the hook path).
    const views = phaseViews(s, config, phase);
    const next = new Map(views.map((v) => [v.index, v.text] as const));
    let before = 0;
    let after = 0;
    for (let i = phase.from; i <= phase.to; i++) {
      const m = s.held.messages[i] as MessageState;
      const overhead = overheadTokens(s.extraOf(m));
      const now = contentTokens(s.viewOf(m)) + overhead;
      before += now;
      const text = next.get(i);
      after += text === undefined ? now : countTokens(text) + overhead;
    }
    phase.tokensBefore = before;
    phase.tokensAfter = after;
    // Back off when a pass would save little: the range is worth more as it is.
    if (after > (1 - bc.min_savings) * before) {
      c.cooldownUntil = s.held.replies + bc.cooldown_calls;
      this.deps.log(
        `hmc: layer-1 summary for session ${s.id} saved too little (${after} of ${before} tokens left); not used, next try after ${bc.cooldown_calls} model calls`,
      );
      return;
    }
    this.deps.recall.put(
      s.id,
      phase.recallId,
      '(phase)',
      JSON.stringify(s.held.messages.slice(phase.from, phase.to + 1).map(asMessage)),
    );
    this.ready.set(s, { phase, updated: previous !== undefined, views, readyAt: waiting.askedAt + READY_AFTER_HOOKS });
    s.layer1.stage(phase, previous !== undefined);
    this.deps.staged?.(s);
  }

  private counter(s: Session): Counters {
    let c = this.counters.get(s);
    if (!c)
      this.counters.set(
        s,
        (c = {
          cooldownUntil: 0,
          passes: 0,
          failures: 0,
          lastFailure: '',
          tokensIn: 0,
          tokensOut: 0,
          answered: 0,
          declined: 0,
          spent: 0,
          hostPrice: null,
        }),
      );
    return c;
  }

  /** The summariser's prices: the host's when it stated them (its auxiliary model's price table), else the config's. */
  private price(s: Session, config: HmcConfig): { input: number; output: number } {
    return this.counter(s).hostPrice ?? config.background_compression.summariser_price;
  }
}
