/**
 * The date range of the history, models, outputs, work and sessions cards (issue 17, finding 7:
 * since / until, UTC days, both included), kept in the address (route.ts) so a link carries it,
 * and the window's totals in the glossary's words: input saved over N model calls, its share,
 * and the estimated cost saved.
 *
 * Invariant: a range is applied only whole and valid (since not after until); clearing it shows
 * all time; the totals are the same query `/api/analytics` answers for that window.
 */
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { getJson, query } from '../api.js';
import { analyticsResponse, type AnalyticsResponse } from '../schema.js';
import { callsText, count, fmtMoney, fmtTokens } from '../format.js';
import { isDay } from '../route.js';
import { CardTitle } from './card-title.js';

export interface Range {
  since?: string | undefined;
  until?: string | undefined;
}

/** `YYYY-MM-DD` of the UTC day `days` before today. */
export function daysAgo(days: number, now = Date.now()): string {
  return new Date(now - days * 86_400_000).toISOString().slice(0, 10);
}

/** How a range reads: "all time", "since 2026-11-01", "2026-11-01 to 2026-11-26". */
export function rangeText(r: Range): string {
  if (r.since && r.until) return r.since === r.until ? r.since : `${r.since} to ${r.until}`;
  if (r.since) return `since ${r.since}`;
  if (r.until) return `until ${r.until}`;
  return 'all time';
}

export function RangeCard({
  range,
  project,
  epoch,
  onRange,
}: {
  range: Range;
  project: string;
  epoch: number;
  onRange: (r: Range) => void;
}) {
  const [since, setSince] = useState(range.since ?? '');
  const [until, setUntil] = useState(range.until ?? '');
  const [totals, setTotals] = useState<AnalyticsResponse | null>(null);
  useEffect(() => {
    setSince(range.since ?? '');
    setUntil(range.until ?? '');
  }, [range.since, range.until]);
  useEffect(() => {
    void getJson(`/api/analytics${query({ project, since: range.since, until: range.until })}`, analyticsResponse).then(
      (r) => r && setTotals(r),
    );
  }, [epoch, project, range.since, range.until]);
  const problem =
    (since && !isDay(since)) || (until && !isDay(until))
      ? 'Give each day as YYYY-MM-DD.'
      : since && until && since > until
        ? 'The first day is after the last.'
        : '';
  const apply = (e: Event): void => {
    e.preventDefault();
    if (!problem) onRange({ ...(since ? { since } : {}), ...(until ? { until } : {}) });
  };
  const preset = (days: number): void => onRange({ since: daysAgo(days - 1) });
  const calls = totals?.model_calls;
  return html`<section class="card span-12" aria-labelledby="range-h" data-testid="range">
    <div class="card-head"><${CardTitle} view="range" title="Period" /><span class="pill" data-testid="range-text">${rangeText(range)}</span></div>
    <form class="toolbar range-form" onSubmit=${apply}>
      <label>From <input type="date" name="since" value=${since} onInput=${(e: Event) => setSince(e.currentTarget instanceof HTMLInputElement ? e.currentTarget.value : '')} /></label>
      <label>to <input type="date" name="until" value=${until} onInput=${(e: Event) => setUntil(e.currentTarget instanceof HTMLInputElement ? e.currentTarget.value : '')} /></label>
      <button type="submit" class="btn" disabled=${Boolean(problem)}>Apply</button>
      <span class="seg" role="group" aria-label="Quick ranges">
        <button type="button" onClick=${() => preset(7)}>7 days</button>
        <button type="button" onClick=${() => preset(30)}>30 days</button>
        <button type="button" aria-pressed=${!range.since && !range.until} onClick=${() => onRange({})}>All time</button>
      </span>
      ${problem ? html`<span class="hint" role="status">${problem}</span>` : null}
    </form>
    <p class="range-totals" data-testid="range-totals">${
      totals
        ? html`<b>${fmtTokens(totals.total_saved)}</b> input saved ${callsText(calls, totals.sessions_without_model_calls)}${' '}(${totals.savings_pct.toFixed(1)}% of ${fmtTokens(totals.total_input)}) in ${count(totals.total_sessions, 'session')};
        cost saved <b>${fmtMoney(totals.estimated_cost_saved.amount, totals.estimated_cost_saved.currency)}</b>
        <span class="estimate" title=${totals.estimated_cost_saved.basis}>estimate</span>`
        : 'Loading…'
    }</p>
    <p class="hint">Days are UTC, both included; the history, cost per model, tool outputs, work and sessions below follow this period${project ? ' and the project filter' : ''}.</p>
  </section>`;
}
