/**
 * The current session: input saved (the big number) over its model calls, context saved now,
 * context use as a gauge, turns, tool calls, model and project (docs/glossary.md).
 *
 * Invariant: figures come from the live feed as is (the same numbers /api/summary gives).
 */
import { html } from 'htm/preact';
import type { LiveSession } from '../schema.js';
import { count, fmtPct, fmtTokens, fmtWindow, shortPath } from '../format.js';
import { Gauge } from './gauge.js';
import { statClass } from './stat-class.js';
import { CardTitle } from './card-title.js';
import { StatePill, stateOf } from './state-pill.js';

export function CurrentSession({ current }: { current: LiveSession | null }) {
  if (!current) {
    return html`<section class="card span-7" aria-labelledby="cur-h">
      <div class="card-head"><${CardTitle} view="current" title="Current session" /></div>
      <p class="empty">Waiting for the next model call… Savings appear here as soon as a session sends its first turn.</p>
    </section>`;
  }
  // N of "input saved over N model calls": only when every turn's point is here and counted them
  // (a feed joined mid-session, or events from an older HMC, would give a short N).
  const pts = current.points;
  const calls =
    pts.length > 0 && pts.length === current.turns && pts.every((p) => p.model_calls !== undefined)
      ? pts.reduce((n, p) => n + (p.model_calls ?? 0), 0)
      : null;
  const contextSaved = pts[pts.length - 1]?.context_saved ?? null;
  const pctOfInput =
    current.input_tokens.raw > 0
      ? (current.input_tokens.raw - current.input_tokens.hmc) / current.input_tokens.raw
      : null;
  return html`<section class="card span-7" aria-labelledby="cur-h" data-testid="current">
    <div class="card-head">
      <${CardTitle} view="current" title="Current session" />
      <${StatePill} state=${stateOf(current)} />
    </div>
    <div class="hero">
      <div class="hero-gauge"><${Gauge} value=${current.context_window > 0 || current.context_percent > 0 ? current.context_percent : null} label="Context used" /></div>
      <div>
        <div class="big-label">Input saved this session</div>
        <div class="big accent" data-testid="cur-saved">${fmtTokens(current.saved)}</div>
        <div class="hint" data-testid="cur-share">${pctOfInput === null ? 'of input: --' : `${fmtPct(pctOfInput, 1)} of input tokens`}${calls === null ? '' : `, over ${count(calls, 'model call')}`}${contextSaved === null ? '' : `; context saved now: ${fmtTokens(contextSaved)}`}</div>
      </div>
    </div>
    <div class="stats">
      <div class="stat"><div class="v" data-testid="cur-turns">${current.turns}</div><div class="k">turns</div></div>
      <div class="stat"><div class="v" data-testid="cur-tools">${current.tool_calls}</div><div class="k">tool calls</div></div>
      <div class="stat"><div class="v">${fmtTokens(current.context_tokens)}</div><div class="k">context tokens${current.context_window ? ` of ${fmtWindow(current.context_window)}` : ''}</div></div>
      <div class=${statClass(current.model)}><div class="v small name" data-testid="cur-model" title=${current.model}>${current.model || '--'}</div><div class="k">model</div></div>
    </div>
    <div class="meta">
      <span>project <b title=${current.project_path}>${shortPath(current.project_path)}</b></span>
      <span>session <b class="path">${current.session_id}</b></span>
      ${current.platform ? html`<span>via <b>${current.platform}</b></span>` : null}
    </div>
  </section>`;
}
