/**
 * Savings per day (last 30 days) and per month (last 12 months), from the analytics database;
 * refetched when lifetime figures may have changed (`epoch`). Each comes with its rows as CSV.
 *
 * Invariant: both charts come with their data as a table.
 */
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { getJson } from '../api.js';
import { daysResponse, monthsResponse } from '../schema.js';
import { fmtTokens, shortPath } from '../format.js';
import type { CsvTable } from '../csv.js';
import { CardTitle } from './card-title.js';
import { ColumnChart } from './column-chart.js';
import { DataTable } from './data-table.js';

type Row = { key: string; label: string; saved: number; input: number; sessions: number };

/** Oldest first (the store answers newest first), so time reads left to right. */
function ascending(rows: Row[]): Row[] {
  return [...rows].sort((a, b) => a.key.localeCompare(b.key));
}

/** The rows as a CSV table: the whole date (`2026-11-25`, `2026-11`), exact token counts. */
export function historyCsv(rows: Row[], unit: 'day' | 'month'): CsvTable {
  return { header: [unit, 'saved_tokens', 'input_tokens', 'sessions'], rows: rows.map((r) => [r.key, r.saved, r.input, r.sessions]) };
}

export function HistoryCharts({ epoch, project }: { epoch: number; project: string }) {
  const [days, setDays] = useState<Row[]>([]);
  const [months, setMonths] = useState<Row[]>([]);
  useEffect(() => {
    const p = project ? `&project=${encodeURIComponent(project)}` : '';
    void getJson(`/api/days?days=30${p}`, daysResponse).then((r) => r && setDays(ascending(r.days.map((d) => ({ key: d.day, label: d.day.slice(5), saved: d.saved, input: d.input, sessions: d.sessions })))));
    void getJson(`/api/months?months=12${p}`, monthsResponse).then((r) => r && setMonths(ascending(r.months.map((m) => ({ key: m.month, label: m.month, saved: m.saved, input: m.input, sessions: m.sessions })))));
  }, [epoch, project]);
  const scope = project ? [shortPath(project)] : [];
  const chart = (rows: Row[], title: string, unit: 'day' | 'month') => html`<div>
    <h3>${title}</h3>
    <${ColumnChart} items=${rows.some((r) => r.saved > 0) ? rows.map((r) => ({ x: r.label, y: r.saved })) : []} title=${title} format=${fmtTokens}
      empty=${`No sessions recorded in the last ${unit === 'day' ? '30 days' : '12 months'}.`}
      desc=${`${rows.length} ${unit === 'day' ? 'days' : 'months'} with sessions; ${fmtTokens(rows.reduce((s, r) => s + r.saved, 0))} saved in all.`} />
    <${DataTable} caption=${title} columns=${[unit === 'day' ? 'Day' : 'Month', 'Saved', 'Sessions']}
      rows=${rows.map((r) => [r.label, fmtTokens(r.saved), String(r.sessions)])}
      csv=${{ table: () => historyCsv(rows, unit), name: [unit === 'day' ? 'per-day' : 'per-month', ...scope] }} />
  </div>`;
  return html`<section class="card span-12" aria-labelledby="hist-h" data-testid="history">
    <div class="card-head"><${CardTitle} view="history" title="History" />${project ? html`<span class="pill">${project}</span>` : null}</div>
    <div class="card-grid">
      ${chart(days, 'Tokens saved per day', 'day')}
      ${chart(months, 'Tokens saved per month', 'month')}
    </div>
  </section>`;
}
