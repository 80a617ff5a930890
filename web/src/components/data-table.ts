/**
 * The text alternative of a chart: its data as a table, folded under a <details>, and beside it
 * the same rows as a CSV file (exact figures, csv.ts) when the chart passes them. A table with no
 * chart above it names what it holds in its fold's summary instead of "Show as a table".
 *
 * Invariant: every chart on the page has one, with the same values the chart draws.
 */
import { html } from 'htm/preact';
import type { CsvTable } from '../csv.js';
import { CsvButton } from './csv-button.js';
import { ScrollWrap } from './scroll-wrap.js';

export function DataTable({
  caption,
  columns,
  rows,
  csv,
  summary = 'Show as a table',
}: {
  caption: string;
  columns: string[];
  rows: string[][];
  /** What the fold says when it is the only view of its rows (no chart above it to be the text of). */
  summary?: string;
  /** The rows as exact values, and the file name's parts. */
  csv?: { table: () => CsvTable; name: string[] };
}) {
  return html`<div class="alt-row">
    <details class="alt">
      <summary>${summary}</summary>
      <${ScrollWrap} label=${caption}>
        <table>
          <caption class="sr-only">${caption}</caption>
          <thead><tr>${columns.map((c, i) => html`<th class=${i > 0 ? 'num' : ''} scope="col">${c}</th>`)}</tr></thead>
          <tbody>${rows.map((r) => html`<tr>${r.map((c, i) => (i === 0 ? html`<th scope="row">${c}</th>` : html`<td class="num">${c}</td>`))}</tr>`)}</tbody>
        </table>
      <//>
    </details>
    ${csv ? html`<${CsvButton} what=${caption} name=${csv.name} disabled=${rows.length === 0} build=${csv.table} />` : null}
  </div>`;
}
