/**
 * The text alternative of a chart: its data as a table, folded under a <details>.
 *
 * Invariant: every chart on the page has one, with the same values the chart draws.
 */
import { html } from 'htm/preact';

export function DataTable({ caption, columns, rows }: { caption: string; columns: string[]; rows: string[][] }) {
  return html`<details class="alt">
    <summary>Show as a table</summary>
    <div class="table-wrap">
      <table>
        <caption class="sr-only">${caption}</caption>
        <thead><tr>${columns.map((c, i) => html`<th class=${i > 0 ? 'num' : ''} scope="col">${c}</th>`)}</tr></thead>
        <tbody>${rows.map((r) => html`<tr>${r.map((c, i) => (i === 0 ? html`<th scope="row">${c}</th>` : html`<td class="num">${c}</td>`))}</tr>`)}</tbody>
      </table>
    </div>
  </details>`;
}
