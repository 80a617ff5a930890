/**
 * Horizontal bars, largest first (savings per strategy or per tool).
 *
 * Invariant: each bar's value is also text; names are shown as text, whatever they contain.
 */
import { html } from 'htm/preact';
import { fmtTokens } from '../format.js';

export function BarList({
  items,
  label,
  alt = false,
  empty,
}: {
  items: [string, number][];
  label: string;
  alt?: boolean;
  empty: string;
}) {
  if (items.length === 0) return html`<p class="empty">${empty}</p>`;
  const max = Math.max(...items.map(([, v]) => v), 1);
  return html`<ul class="bars" aria-label=${label}>
    ${items.map(
      ([name, v]) => html`<li class="bar-row" key=${name}>
      <span class="bar-name" title=${name}>${name}</span>
      <span class="bar-track" aria-hidden="true"><span class=${`bar-fill ${alt ? 'alt' : ''}`} style=${{ width: `${Math.max(1, Math.round((v / max) * 100))}%`, display: 'block' }}></span></span>
      <span class="bar-val">${fmtTokens(v)}</span>
    </li>`,
    )}
  </ul>`;
}
