/**
 * A plain table of figures in a sideways-scrolling box: a header row, one row per item, the first
 * cell a row header, the rest right-aligned numbers.
 *
 * Invariant: every cell is text (escaped by Preact) or a node the caller built; no HTML strings.
 */
import { html } from 'htm/preact';
import type { ComponentChildren } from 'preact';
import { ScrollWrap } from './scroll-wrap.js';

export function FigureTable({
  caption,
  columns,
  rows,
  testid,
}: {
  caption: string;
  columns: string[];
  rows: ComponentChildren[][];
  testid?: string;
}) {
  return html`<${ScrollWrap} label=${caption}><table class="figures" data-testid=${testid}>
    <caption class="sr-only">${caption}</caption>
    <thead><tr>${columns.map((c, i) => html`<th class=${i > 0 ? 'num' : ''} scope="col">${c}</th>`)}</tr></thead>
    <tbody>${rows.map((r) => html`<tr>${r.map((c, i) => (i === 0 ? html`<th scope="row">${c}</th>` : html`<td class="num">${c}</td>`))}</tr>`)}</tbody>
  </table><//>`;
}
