/**
 * Savings per day, per week (Monday to Sunday, UTC) and per month, from the analytics database:
 * the last 30 days, 12 weeks and 12 months, or every day, week and month of the chosen period
 * (range-card.ts); refetched when lifetime figures may have changed (`epoch`). Each comes with
 * its rows as CSV.
 *
 * Invariant: every chart comes with its data as a table.
 */
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { getJson, query } from '../api.js';
import { daysResponse, monthsResponse, weeksResponse } from '../schema.js';
import { fmtTokens, shortPath } from '../format.js';
import type { CsvTable } from '../csv.js';
import { CardTitle } from './card-title.js';
import { ColumnChart } from './column-chart.js';
import { DataTable } from './data-table.js';
import { rangeText, type Range } from './range-card.js';

type Row = { key: string; label: string; saved: number; input: number; sessions: number };
type Unit = 'day' | 'week' | 'month';

/** Oldest first (the store answers newest first), so time reads left to right. */
function ascending(rows: Row[]): Row[] {
  return [...rows].sort((a, b) => a.key.localeCompare(b.key));
}

/** The rows as a CSV table: the whole date (`2026-11-25`, the week's Monday, `2026-11`), exact token counts. */
export function historyCsv(rows: Row[], unit: Unit): CsvTable {
  return {
    header: [unit, 'saved_tokens', 'input_tokens', 'sessions'],
    rows: rows.map((r) => [r.key, r.saved, r.input, r.sessions]),
  };
}

const LAST: Record<Unit, string> = { day: 'the last 30 days', week: 'the last 12 weeks', month: 'the last 12 months' };
const PLURAL: Record<Unit, string> = { day: 'days', week: 'weeks', month: 'months' };

export function HistoryCharts({ epoch, project, range }: { epoch: number; project: string; range: Range }) {
  const [days, setDays] = useState<Row[]>([]);
  const [weeks, setWeeks] = useState<Row[]>([]);
  const [months, setMonths] = useState<Row[]>([]);
  const ranged = Boolean(range.since || range.until);
  useEffect(() => {
    const q = (count: Record<string, number>) =>
      query({ ...(ranged ? {} : count), project, since: range.since, until: range.until });
    const row = (key: string, label: string, r: { saved: number; input: number; sessions: number }): Row => ({
      key,
      label,
      saved: r.saved,
      input: r.input,
      sessions: r.sessions,
    });
    void getJson(`/api/days${q({ days: 30 })}`, daysResponse).then(
      (r) => r && setDays(ascending(r.days.map((d) => row(d.day, d.day.slice(5), d)))),
    );
    void getJson(`/api/weeks${q({ weeks: 12 })}`, weeksResponse).then(
      (r) => r && setWeeks(ascending(r.weeks.map((w) => row(w.week, w.week.slice(5), w)))),
    );
    void getJson(`/api/months${q({ months: 12 })}`, monthsResponse).then(
      (r) => r && setMonths(ascending(r.months.map((m) => row(m.month, m.month, m)))),
    );
  }, [epoch, project, range.since, range.until]);
  const scope = [...(project ? [shortPath(project)] : []), ...(ranged ? [rangeText(range)] : [])];
  const where = ranged ? rangeText(range) : '';
  const chart = (rows: Row[], title: string, unit: Unit) => html`<div>
    <h3>${title}</h3>
    <${ColumnChart} items=${rows.some((r) => r.saved > 0) ? rows.map((r) => ({ x: r.label, y: r.saved })) : []} title=${title} format=${fmtTokens}
      empty=${`No sessions recorded in ${ranged ? where : LAST[unit]}.`}
      desc=${`${rows.length} ${PLURAL[unit]}; ${fmtTokens(rows.reduce((s, r) => s + r.saved, 0))} saved in all.`} />
    <${DataTable} caption=${title} columns=${[unit === 'day' ? 'Day' : unit === 'week' ? 'Week of' : 'Month', 'Saved', 'Sessions']}
      rows=${rows.map((r) => [r.label, fmtTokens(r.saved), String(r.sessions)])}
      csv=${{ table: () => historyCsv(rows, unit), name: [`per-${unit}`, ...scope] }} />
  </div>`;
  return html`<section class="card span-12" aria-labelledby="hist-h" data-testid="history">
    <div class="card-head"><${CardTitle} view="history" title="History" />${project ? html`<span class="pill">${project}</span>` : null}${ranged ? html`<span class="pill">${where}</span>` : null}</div>
    <div class="card-grid three">
      ${chart(days, 'Input saved per day', 'day')}
      ${chart(weeks, 'Input saved per week', 'week')}
      ${chart(months, 'Input saved per month', 'month')}
    </div>
  </section>`;
}
