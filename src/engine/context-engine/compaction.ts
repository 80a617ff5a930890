/**
 * A compaction as the host's context engine (issue 16, DESIGN §2): layer 1's work, done now and
 * for good. The finished parts of the conversation the host hands over (compaction-range.ts) are
 * each replaced by one summary message that says how to get the exact messages back (recall id);
 * the head, the latest user message and the recent tail stay as the host holds them. A part
 * layer 1 already summarised reuses that summary (as it is, or updated with what came after it),
 * so nothing is summarised twice. Each summary is a phase of the session index.
 *
 * The answer is a plan: the host's own messages by index, and the new summary messages, in order
 * (the host keeps its own message objects; HMC never sends back what it did not write).
 *
 * Invariants: nothing is lost (every replaced message is in the recall store before the plan goes
 * out); the latest user message and each tool call's pairing stay; a plan is answered only when
 * it is shorter than what it replaces; any failure answers no plan, with the reason (the host then
 * hands over to its own compressor): never a half-made compaction.
 */
import type { CompressParams, CompressResult, PlanItem } from '../../core/context-engine.js';
import type { Message } from '../../core/message.js';
import { messageTokens } from '../../core/tokens.js';
import type { HmcConfig } from '../../config/keys.js';
import type { EventSink } from '../../events/types.js';
import type { PhaseIndex } from '../../store/phase-types.js';
import {
  chooseCompaction,
  type CompactionRange,
  type HeldSummary,
} from '../../strategies/list-wide/compaction-range.js';
import type { Summariser, SummaryResult } from '../../summarise/types.js';
import { DEFAULT_CONTEXT_WINDOW } from '../list-wide/batch.js';
import { phaseEntry, phaseEvent } from '../turn/events.js';
import type { Phase } from '../session/held.js';
import { PHASE_HEAD, rangeDigest } from '../layer1/layer1.js';
import { recallId, type RecallStore } from '../session/recall.js';
import type { Session } from '../session/session.js';

/** Share of the host's threshold the kept recent tail may take (Hermes' compressor keeps 0.2 too). */
export const TAIL_SHARE = 0.2;
/** A range under this many tokens is not worth a summary (a manual compaction takes anything). */
const MIN_RANGE_TOKENS = 1000;

export interface CompactionDeps {
  config: HmcConfig;
  summariser: Summariser | null;
  recall: RecallStore;
  phases: PhaseIndex | null;
  sink: EventSink;
  now: () => number;
  log: (line: string) => void;
}

/** One range, summarised: its phase and the message that stands for it. */
interface Made {
  range: CompactionRange;
  phase: Phase;
  /** True when the phase is new or changed (it goes into the index and the recall store). */
  fresh: boolean;
  text: string;
}

export async function compact(s: Session, p: CompressParams, deps: CompactionDeps): Promise<CompressResult> {
  const { config } = deps;
  if (!config.enabled) return { plan: null, reason: 'HMC is off (enabled: false)' };
  const messages = p.messages;
  const held = messages.map((m) => ({ role: m.role, raw: m.content }));
  const sizes = messages.map((m) => ({ role: m.role, tokens: messageTokens(m) }));
  const reusable = heldSummaries(s).filter(
    (ph) => ph.to < messages.length && rangeDigest(held, ph.from, ph.to) === ph.digest,
  );
  const threshold =
    p.threshold_tokens ??
    (s.meta.contextWindow || DEFAULT_CONTEXT_WINDOW) * config.background_compression.host_threshold;
  const ranges = chooseCompaction(
    sizes,
    reusable.map((ph): HeldSummary => ({ id: ph.id, from: ph.from, to: ph.to })),
    {
      tailTokens: Math.max(2000, Math.floor(threshold * TAIL_SHARE)),
      minTokens: p.force ? 1 : MIN_RANGE_TOKENS,
    },
  );
  if (ranges.length === 0)
    return {
      plan: null,
      reason: 'nothing finished to summarise (the head, the latest user message and the recent tail stay)',
    };
  const summariser = deps.summariser;
  if (!summariser && ranges.some((r) => r.reuse === undefined))
    return {
      plan: null,
      reason: 'no summariser (no auxiliary model from the host and no background_compression.endpoint)',
    };

  let nextId = Math.max(
    s.engine.last_phase_id,
    ...s.layer1.phases.map((ph) => ph.id),
    ...(deps.phases?.list(s.id) ?? []).map((e) => e.phase_id),
  );
  const compaction = s.engine.compactions + 1;
  const tokens = { in: 0, out: 0 };
  const results = await Promise.all(
    ranges.map(async (range): Promise<Made | string> => {
      const previous = reusable.find((ph) => ph.id === (range.reuse ?? range.extends));
      if (range.reuse !== undefined && previous)
        return { range, phase: previous, fresh: false, text: summaryText(previous) };
      const from = previous ? previous.to + 1 : range.from;
      const request = {
        sessionId: s.id,
        messages: messages.slice(from, range.to + 1),
        maxTokens: config.background_compression.max_summary_tokens,
        ...(previous ? { previous: previous.summary } : {}),
        ...(p.focus_topic ? { focus: p.focus_topic } : {}),
        ...(p.memory_context ? { notes: p.memory_context } : {}),
      };
      const result: SummaryResult = summariser
        ? await summariser.summarise(request)
        : { ok: false, reason: 'no summariser', retryable: false, tokensIn: 0 };
      tokens.in += result.tokensIn;
      if (!result.ok) return result.reason;
      tokens.out += result.tokensOut;
      const id = previous?.id ?? ++nextId;
      const phase: Phase = {
        id,
        from: range.from,
        to: range.to,
        digest: rangeDigest(held, range.from, range.to),
        recallId: recallId(s.id, `compaction:${compaction}:phase:${id}:${range.from}-${range.to}`),
        topic: result.topic,
        summary: result.text,
        tokensBefore: range.tokens,
        tokensAfter: 0,
        updates: previous ? previous.updates + 1 : 0,
        model: result.model,
        createdAt: previous?.createdAt ?? deps.now(),
        turnFrom: turnOf(messages, range.from),
        turnTo: turnOf(messages, range.to),
      };
      const text = summaryText(phase);
      phase.tokensAfter = messageTokens({ content: text });
      return { range, phase, fresh: true, text };
    }),
  );
  const failed = results.filter((r): r is string => typeof r === 'string');
  const summariser_tokens = { in: tokens.in, out: tokens.out };
  if (failed.length > 0)
    return { plan: null, reason: `the summariser failed: ${failed.join('; ')}`, summariser_tokens };
  const made = results.filter((r): r is Made => typeof r !== 'string');
  const before = made.reduce((n, m) => n + m.range.tokens, 0);
  const after = made.reduce((n, m) => n + messageTokens({ content: m.text }), 0);
  if (after >= before)
    return {
      plan: null,
      reason: `the summaries (${after} tokens) would not be shorter than what they replace (${before})`,
      summariser_tokens,
    };

  // Nothing goes out before every replaced message is kept for recall.
  for (const m of made) {
    if (!m.fresh) continue;
    deps.recall.put(s.id, m.phase.recallId, '(phase)', JSON.stringify(messages.slice(m.range.from, m.range.to + 1)));
    const staged = { phase: m.phase, updated: m.phase.updates > 0, views: [], readyAt: 0 };
    deps.phases?.record(phaseEntry(s, staged));
    deps.sink.emit(phaseEvent(s, staged));
  }
  s.engine.compacted(
    compaction,
    made.map((m) => m.phase.id),
  );
  const plan = planOf(messages.length, made);
  const reused = made.filter((m) => !m.fresh).length;
  deps.log(
    `hmc: session ${s.id}: compacted as the context engine (compaction ${compaction}): ${messages.length} messages -> ${plan.length}, ` +
      `${before} -> ${after} tokens in ${made.length} summar${made.length === 1 ? 'y' : 'ies'} (${reused} reused from layer 1); summariser tokens ${tokens.in} in, ${tokens.out} out`,
  );
  return {
    plan,
    reason: `${made.length} range${made.length === 1 ? '' : 's'} summarised (${before} -> ${after} tokens)`,
    summarised: made.length - reused,
    reused,
    summariser_tokens,
    recall_ids: made.map((m) => m.phase.recallId),
  };
}

/** The summaries the session holds: layer 1's phases in force, and one back from the summariser not yet sent. */
function heldSummaries(s: Session): Phase[] {
  return s.layer1.stagedPhase ? [...s.layer1.phases, s.layer1.stagedPhase.phase] : [...s.layer1.phases];
}

/** The message that stands for a phase: layer 1's summary head (it names the recall id), then the summary. */
function summaryText(phase: Phase): string {
  return `${PHASE_HEAD} (phase ${phase.id}; its exact messages: hmc_control action=recall id=${phase.recallId})]\n${phase.summary}`;
}

/** User turns up to message `i` (1 for the first turn's messages). */
function turnOf(messages: readonly Message[], i: number): number {
  let turn = 0;
  for (let k = 0; k <= i && k < messages.length; k++) if (messages[k]?.role === 'user') turn++;
  return Math.max(1, turn);
}

/** The compacted list: the host's messages by index, each range replaced by its summary. */
function planOf(length: number, made: readonly Made[]): PlanItem[] {
  const plan: PlanItem[] = [];
  const byStart = new Map(made.map((m) => [m.range.from, m] as const));
  for (let i = 0; i < length; i++) {
    const m = byStart.get(i);
    if (!m) {
      plan.push({ keep: i });
      continue;
    }
    plan.push({ message: { role: m.range.role, content: m.text } });
    i = m.range.to;
  }
  return plan;
}
