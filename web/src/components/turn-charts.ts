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

/** Where this session's context is acted on, from its latest turn event (0..1 of the window). */
export interface Thresholds {
  /** HMC's layer 1 summarises older turns past this (engine/layer1/layer1-threshold.ts). */
  summarise_at?: number | undefined;
  /** The host's own compression threshold, when the host sent it. */
  host_compress_at?: number | undefined;
}

/**
 * The dashed line of "Context used per turn": where this session's layer 1 summarises, as the
 * engine computed it (the lower of compress.max_context_percent and threshold_share of the host's
 * threshold: 40 % with Hermes' default 0.5), never a fixed 80 %. A session whose events do not
 * say (an older HMC, layer 1 off, manual mode) gets no line rather than a wrong one.
 */
export function summariseLine(t: Thresholds): { value: number; label: string; meaning: string } | undefined {
  const at = t.summarise_at;
  if (at === undefined || !(at > 0 && at <= 1)) return undefined;
  const host =
    t.host_compress_at !== undefined && t.host_compress_at > 0 && t.host_compress_at <= 1
      ? t.host_compress_at
      : undefined;
  const why =
    host === undefined
      ? "the lower of compress.max_context_percent and background_compression.threshold_share of the host's compression threshold, which the host did not send: HMC assumes background_compression.host_threshold"
      : `the lower of compress.max_context_percent and background_compression.threshold_share of the host's own compression threshold, ${fmtPct(host)}`;
  return {
    value: at,
    label: `${fmtPct(at)}: HMC summarises from here`,
    meaning: `A dashed line marks ${fmtPct(at)} of the window: past this context use HMC summarises older turns (${why}).`,
  };
}

const orDash = (n: number | undefined, f: (n: number) => string): string => (n === undefined ? '--' : f(n));

export function TurnCharts({
  series,
  label,
  sessionId,
  thresholds = {},
}: {
  series: TurnSeries[];
  label: string;
  sessionId: string;
  thresholds?: Thresholds | undefined;
}) {
  const name = (what: string): string[] => [what, `session-${sessionId}`];
  const ctxCsv = {
    table: () => ({ header: ['turn', 'context_pct'], rows: series.map((p) => [p.turn, pct(p.context_percent)]) }),
    name: name('context-per-turn'),
  };
  const savedCsv = {
    table: () => ({
      header: ['turn', 'input_saved_tokens', 'model_calls', 'context_saved_tokens'],
      rows: series.map((p) => [p.turn, p.saved, p.calls ?? '', p.context_saved ?? '']),
    }),
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
        <${LineChart} points=${ctx} title=${`Context used per turn, ${label}`} format=${(v: number) => fmtPct(v)} yMax=${1} limit=${summariseLine(thresholds)}
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
