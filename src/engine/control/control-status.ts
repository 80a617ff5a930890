/**
 * The status line and the stats answer of `hmc_control` (status, stats; `/hmc status`, `hmc control
 * status`), built from one session's ledger, held records and layer 1's counters. Read only: nothing
 * here writes a Session field; a session with no model call yet is named as such, never shown an
 * older session's figures.
 */
import type { HmcConfig } from '../../config/keys.js';
import type { Saved } from '../../core/savings.js';
import { fmtWindow } from '../../core/window-size.js';
import type { Layer1 } from '../layer1/layer1.js';
import type { Session } from '../session/session.js';

/** What the status needs of the engine (a ControlTarget is one). */
export interface StatusTarget {
  readonly config: HmcConfig;
  readonly layer1: Pick<Layer1, 'stats'>;
}

/** Nothing happened in the session yet: no turn, no tool call, no model call (here or saved). */
export function untouched(s: Session): boolean {
  return s.counts.turn === 0 && s.held.records.size === 0 && s.ledger.totals().modelCalls === 0;
}

function layer1Stats(engine: StatusTarget, s: Session): Record<string, unknown> {
  const l = engine.layer1.stats(s);
  return {
    phases: l.phases,
    passes: l.passes,
    failures: l.failures,
    last_failure: l.lastFailure || null,
    in_progress: l.inFlight,
    summariser_tokens: { in: l.tokensIn, out: l.tokensOut },
    summariser_cost: Math.round(l.spent),
    declined: l.declined,
  };
}

/** Layer 1 in one line, once it did something: phases, passes, failures, what the summaries cost. */
function layer1Line(engine: StatusTarget, s: Session): string {
  const l = engine.layer1.stats(s);
  if (l.phases === 0 && l.failures === 0 && !l.inFlight) return '';
  const failed = l.failures > 0 ? `, ${l.failures} failed (last: ${l.lastFailure.slice(0, 80)})` : '';
  const busy = l.inFlight ? ', one summary in progress' : '';
  return `  layer 1: ${l.phases} phase${l.phases === 1 ? '' : 's'} summarised${failed}${busy}; summariser tokens ${fmt(l.tokensIn)} in, ${fmt(l.tokensOut)} out`;
}

/**
 * The two savings, named as docs/glossary.md names them (issue 17, finding 3: the original's
 * `tokens_saved_estimate` beside `tokens_kept_out_estimate` read as one figure twice): context saved
 * (the context now, against the same context without HMC) and input saved over N model calls.
 */
export function statsAnswer(engine: StatusTarget, s: Session): Record<string, unknown> {
  const t = s.ledger.totals();
  const now = known(s.ledger.contextSavings());
  return {
    session_id: s.id,
    context_saved: {
      tokens: now.total,
      by_strategy: now.byStrategy,
      context_tokens: t.contextTokens,
      context_tokens_raw: t.contextRawTokens,
    },
    input_saved: {
      tokens: t.inputRaw - t.inputHmc,
      model_calls: t.modelCalls,
      by_strategy: t.byStrategy,
      by_tool: t.byTool,
      input_tokens: { raw: t.inputRaw, sent: t.inputHmc },
    },
    work: { recalls: s.work.recalls, rereads: s.work.rereads, elided: s.elidedCount() },
    total_prune_count: s.pruning.pruneCount,
    cache_breaks: s.counts.cacheBreaks,
    manual_mode: s.meta.manual,
    background_compression: layer1Stats(engine, s),
  };
}

/**
 * The status, the one place it is built (the tool's `status` answer, `/hmc status`, `hmc control
 * status`): `HMC [auto] | ctx: 42% of 128K | input saved: 15.0K tokens over 12 model calls (38.1%) |
 * context saved now: 3.1K tokens | tools: 20 tracked, 4 pruned`, then one indented line per
 * detail (the breakdown per strategy; layer 1 once it did something). A session with no model
 * call yet says so, never an older session's figures.
 */
export function statusText(engine: StatusTarget, s: Session | null): string {
  // A brand-new session (nothing held or saved for it yet): say so, never an older session's figures.
  if (!s || untouched(s))
    return `HMC [${(s?.meta.manual ?? engine.config.manual_mode.enabled) ? 'manual' : 'auto'}] | no model call in this session yet (figures appear after the first message)`;
  const t = s.ledger.totals();
  const saved = t.inputRaw - t.inputHmc;
  const pct = s.meta.contextWindow
    ? `${Math.round((t.contextTokens / s.meta.contextWindow) * 100)}% of ${fmtWindow(s.meta.contextWindow)}`
    : '--';
  const share = t.inputRaw > 0 ? ` (${((saved / t.inputRaw) * 100).toFixed(1)}%)` : '';
  const calls = `${t.modelCalls} model call${t.modelCalls === 1 ? '' : 's'}`;
  const now = known(s.ledger.contextSavings()).total;
  const context = now === null ? '--' : `${fmt(now)} tokens`;
  const lines = [
    `HMC [${s.meta.manual ? 'manual' : 'auto'}] | ctx: ${pct} | input saved: ${fmt(saved)} tokens over ${calls}${share} | context saved now: ${context} | tools: ${s.held.records.size} tracked, ${s.pruning.pruneCount} pruned`,
  ];
  const parts = Object.entries(t.byStrategy)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k}: ${fmt(v)}`);
  lines.push(`  input saved by strategy: ${parts.length ? parts.join(', ') : 'none yet'}`);
  const layer1 = layer1Line(engine, s);
  if (layer1) lines.push(layer1);
  return lines.join('\n');
}

export function fmt(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(2)}M`;
  if (n >= 1000) return `${(n / 1000).toFixed(1)}K`;
  return String(Math.round(n));
}

/**
 * The context savings to show: with their breakdown, or neither when only an old session file's
 * total is known (then the figures return at the next model call in this process).
 */
export function known(now: { total: number; byStrategy: Saved | null }): {
  total: number | null;
  byStrategy: Saved | null;
} {
  return now.byStrategy === null ? { total: null, byStrategy: null } : now;
}
