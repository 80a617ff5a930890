/**
 * Context use and tokens saved per turn for one session (the current one, or the one opened
 * in the sessions table), from live points or the stored timeline.
 *
 * Invariant: both charts come with their data as a table, and as CSV.
 */
import { html } from 'htm/preact';
import { count, fmtPct, fmtTokens } from '../format.js';
import { LineChart } from './line-chart.js';
import { ColumnChart } from './column-chart.js';
import { DataTable } from './data-table.js';
import { pct } from '../csv.js';

export interface TurnSeries {
  turn: number;
  context_percent: number;
  /** Input saved over the turn's model calls (docs/glossary.md). */
  saved: number;
  /** The turn's model calls and its context saved at the end; absent from older records. */
  calls?: number | undefined;
  context_saved?: number | undefined;
}

/**
 * The dashed line of "Context used per turn": compress.max_context_percent's default, the context
 * use by which HMC's layer 1 summarises older turns (it fires at the lower of this and a share of
 * the host's own threshold; docs/engine.md). The page does not read the config: a changed setting
 * is not drawn (docs/dashboard.md).
 */
const SUMMARISE_BY = {
  value: 0.8,
  label: '80%: HMC summarises by here',
  meaning: 'A dashed line marks 80% of the window: by this context use HMC starts summarising older turns (compress.max_context_percent, 0.8 by default; earlier when the host compresses earlier).',
};

const orDash = (n: number | undefined, f: (n: number) => string): string => (n === undefined ? '--' : f(n));

export function TurnCharts({ series, label, sessionId }: { series: TurnSeries[]; label: string; sessionId: string }) {
  const name = (what: string): string[] => [what, `session-${sessionId}`];
  const ctxCsv = { table: () => ({ header: ['turn', 'context_pct'], rows: series.map((p) => [p.turn, pct(p.context_percent)]) }), name: name('context-per-turn') };
  const savedCsv = {
    table: () => ({ header: ['turn', 'input_saved_tokens', 'model_calls', 'context_saved_tokens'], rows: series.map((p) => [p.turn, p.saved, p.calls ?? '', p.context_saved ?? '']) }),
    name: name('saved-per-turn'),
  };
  const ctx = series.map((p) => ({ x: `T${p.turn}`, y: p.context_percent }));
  const saved = series.map((p) => ({ x: `T${p.turn}`, y: p.saved }));
  const peak = series.reduce((m, p) => Math.max(m, p.context_percent), 0);
  const total = series.reduce((s, p) => s + p.saved, 0);
  return html`<div class="span-12 charts-pair">
    <div class="card-grid">
      <div>
        <h3>Context used per turn</h3>
        <${LineChart} points=${ctx} title=${`Context used per turn, ${label}`} format=${(v: number) => fmtPct(v)} yMax=${1} limit=${SUMMARISE_BY}
          desc=${`${count(series.length, 'turn')}; peak ${fmtPct(peak)}; latest ${fmtPct(series[series.length - 1]?.context_percent ?? null)}.`} />
        <${DataTable} caption="Context used per turn" columns=${['Turn', 'Context']} rows=${series.map((p) => [String(p.turn), fmtPct(p.context_percent, 1)])} csv=${ctxCsv} />
      </div>
      <div>
        <h3>Input saved per turn</h3>
        <${ColumnChart} items=${saved} title=${`Input saved per turn, ${label}`} format=${fmtTokens} empty="No turns yet."
          desc=${`${count(series.length, 'turn')}; ${fmtTokens(total)} input saved in all, each turn over its model calls.`} />
        <${DataTable} caption="Input saved per turn" columns=${['Turn', 'Input saved', 'Model calls', 'Context saved']}
          rows=${series.map((p) => [String(p.turn), fmtTokens(p.saved), orDash(p.calls, String), orDash(p.context_saved, fmtTokens)])} csv=${savedCsv} />
        <p class="hint">Input saved adds up over a turn's model calls; context saved is how much smaller the context was at the turn's end.</p>
      </div>
    </div>
  </div>`;
}
