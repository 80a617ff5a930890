/**
 * Savings per day (last 30 days) and per month (last 12 months), from the analytics database;
 * refetched when lifetime figures may have changed (`epoch`).
 *
 * Invariant: both charts come with their data as a table.
 */
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { getJson } from '../api.js';
import { daysResponse, monthsResponse } from '../schema.js';
import { fmtTokens } from '../format.js';
import { ColumnChart } from './column-chart.js';
import { DataTable } from './data-table.js';

type Row = { key: string; label: string; saved: number; sessions: number };

/** Oldest first (the store answers newest first), so time reads left to right. */
function ascending(rows: Row[]): Row[] {
  return [...rows].sort((a, b) => a.key.localeCompare(b.key));
}

export function HistoryCharts({ epoch, project }: { epoch: number; project: string }) {
  const [days, setDays] = useState<Row[]>([]);
  const [months, setMonths] = useState<Row[]>([]);
  useEffect(() => {
    const p = project ? `&project=${encodeURIComponent(project)}` : '';
    void getJson(`/api/days?days=30${p}`, daysResponse).then((r) => r && setDays(ascending(r.days.map((d) => ({ key: d.day, label: d.day.slice(5), saved: d.saved, sessions: d.sessions })))));
    void getJson(`/api/months?months=12${p}`, monthsResponse).then((r) => r && setMonths(ascending(r.months.map((m) => ({ key: m.month, label: m.month, saved: m.saved, sessions: m.sessions })))));
  }, [epoch, project]);
  const chart = (rows: Row[], title: string, unit: string) => html`<div>
    <h3>${title}</h3>
    <${ColumnChart} items=${rows.some((r) => r.saved > 0) ? rows.map((r) => ({ x: r.label, y: r.saved })) : []} title=${title} format=${fmtTokens}
      empty=${`No sessions recorded in the last ${unit}.`}
      desc=${`${rows.length} ${unit === '30 days' ? 'days' : 'months'} with sessions; ${fmtTokens(rows.reduce((s, r) => s + r.saved, 0))} saved in all.`} />
    <${DataTable} caption=${title} columns=${[unit === '30 days' ? 'Day' : 'Month', 'Saved', 'Sessions']}
      rows=${rows.map((r) => [r.label, fmtTokens(r.saved), String(r.sessions)])} />
  </div>`;
  return html`<section class="card span-12" aria-labelledby="hist-h" data-testid="history">
    <div class="card-head"><h2 id="hist-h">History</h2>${project ? html`<span class="pill">${project}</span>` : null}</div>
    <div class="card-grid">
      ${chart(days, 'Tokens saved per day', '30 days')}
      ${chart(months, 'Tokens saved per month', '12 months')}
    </div>
  </section>`;
}
