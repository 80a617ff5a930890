/**
 * Lifetime totals from the analytics database: tokens saved, sessions, share of input, and the
 * estimated cost saved (always marked as an estimate).
 *
 * Invariant: shows zeros, not an error, when there is no database yet.
 */
import { html } from 'htm/preact';
import type { AnalyticsResponse } from '../schema.js';
import { callsText, fmtMoney, fmtTokens } from '../format.js';
import { CardTitle } from './card-title.js';

export function Lifetime({ data }: { data: AnalyticsResponse | null }) {
  return html`<section class="card span-5" aria-labelledby="life-h" data-testid="lifetime">
    <div class="card-head"><${CardTitle} view="lifetime" title="Lifetime" />
      ${data && data.store !== 'ok' ? html`<span class="pill">no analytics yet</span>` : null}</div>
    <div class="big-label">Input saved, all sessions</div>
    <div class="big" data-testid="life-saved">${fmtTokens(data?.total_saved ?? 0)}</div>
    <div class="stats">
      <div class="stat"><div class="v" data-testid="life-sessions">${data?.total_sessions ?? 0}</div><div class="k">sessions</div></div>
      <div class="stat"><div class="v" data-testid="life-pct">${(data?.savings_pct ?? 0).toFixed(1)}%</div><div class="k">of input tokens</div></div>
      <div class="stat"><div class="v" data-testid="life-cost">${data ? fmtMoney(data.estimated_cost_saved.amount, data.estimated_cost_saved.currency) : '--'}</div>
        <div class="k">cost saved <span class="estimate" title=${data?.estimated_cost_saved.basis ?? 'estimate'}>estimate</span></div></div>
    </div>
    <p class="hint" data-testid="life-calls">${data ? `Input saved ${callsText(data.model_calls, data.sessions_without_model_calls)}${data.model_calls === undefined ? '' : '; '}input seen: ${fmtTokens(data.total_input)}. Cost is an estimate from the price table (with the prompt cache), not a bill.` : 'Loading…'}</p>
  </section>`;
}
