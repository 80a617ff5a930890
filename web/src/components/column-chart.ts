/**
 * A column chart in plain SVG (savings per turn, per day, per month).
 *
 * Invariant: role="img" with a title and a description; each column has a tooltip <title>;
 * a data table alternative sits beside it (data-table.ts).
 */
import { html } from 'htm/preact';
import { useNarrow } from '../use-narrow.js';

const H = 190;
const PAD = { l: 44, r: 10, t: 10, b: 24 };

export function ColumnChart({ items, title, desc, format, empty }: {
  items: { x: string; y: number }[]; title: string; desc: string; format: (v: number) => string; empty: string;
}) {
  const W = useNarrow() ? 360 : 600;
  if (items.length === 0) return html`<p class="empty">${empty}</p>`;
  const max = Math.max(...items.map((p) => p.y), 1);
  const iw = W - PAD.l - PAD.r;
  const ih = H - PAD.t - PAD.b;
  const slot = iw / items.length;
  const bw = Math.max(2, Math.min(36, slot * 0.7));
  const py = (v: number): number => PAD.t + ih - (v / max) * ih;
  const step = Math.max(1, Math.ceil(items.length / (W < 600 ? 5 : 8)));
  return html`<svg class="chart" viewBox=${`0 0 ${W} ${H}`} role="img" aria-label=${`${title}. ${desc}`}>
    <title>${title}</title><desc>${desc}</desc>
    ${[0, 0.5, 1].map((f) => html`<line class="grid" x1=${PAD.l} x2=${W - PAD.r} y1=${py(f * max)} y2=${py(f * max)} />
      <text class="axis" x=${PAD.l - 6} y=${py(f * max) + 4} text-anchor="end">${format(f * max)}</text>`)}
    ${items.map((p, i) => html`<rect class="col" x=${PAD.l + i * slot + (slot - bw) / 2} y=${py(p.y)} width=${bw}
      height=${Math.max(0, PAD.t + ih - py(p.y))} rx="3"><title>${p.x}: ${format(p.y)}</title></rect>`)}
    ${items.map((p, i) => ((items.length - 1 - i) % step === 0
      ? html`<text class="axis" x=${PAD.l + i * slot + slot / 2} y=${H - 6} text-anchor="middle">${p.x}</text>` : null))}
  </svg>`;
}
