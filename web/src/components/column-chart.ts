/**
 * A column chart in plain SVG (savings per turn, per day, per month).
 *
 * Invariant: role="img" with a title and a description; each column has a tooltip <title>;
 * a data table alternative sits beside it (data-table.ts). Axis labels are exact and distinct
 * (an all-zero chart has one, 0), never a rounded half that repeats the top (issue 9: "1 / 1 / 0").
 */
import { html } from 'htm/preact';
import { useNarrow } from '../use-narrow.js';

const H = 190;
const PAD = { l: 44, r: 10, t: 10, b: 24 };

/**
 * The value axis for data peaking at `dataMax`: a round top whose half is a whole number too
 * (0–10: the next even number; above: 1, 2 or 5 × 10^k), ticks at 0, half and top; just 0 when
 * every value is 0 (or negative).
 */
export function axisTicks(dataMax: number): { top: number; ticks: number[] } {
  if (!(dataMax > 0)) return { top: 1, ticks: [0] };
  let top: number;
  if (dataMax <= 10) top = 2 * Math.ceil(dataMax / 2);
  else {
    const p = 10 ** Math.floor(Math.log10(dataMax));
    top = [1, 2, 5, 10].map((m) => m * p).find((m) => m >= dataMax) ?? 10 * p;
  }
  return { top, ticks: [0, top / 2, top] };
}

export function ColumnChart({
  items,
  title,
  desc,
  format,
  empty,
}: {
  items: { x: string; y: number }[];
  title: string;
  desc: string;
  format: (v: number) => string;
  empty: string;
}) {
  const W = useNarrow() ? 360 : 600;
  if (items.length === 0) return html`<p class="empty">${empty}</p>`;
  const { top: max, ticks } = axisTicks(Math.max(...items.map((p) => p.y)));
  const iw = W - PAD.l - PAD.r;
  const ih = H - PAD.t - PAD.b;
  const slot = iw / items.length;
  const bw = Math.max(2, Math.min(36, slot * 0.7));
  const py = (v: number): number => PAD.t + ih - (v / max) * ih;
  const step = Math.max(1, Math.ceil(items.length / (W < 600 ? 5 : 8)));
  return html`<svg class="chart" viewBox=${`0 0 ${W} ${H}`} role="img" aria-label=${`${title}. ${desc}`}>
    <title>${title}</title><desc>${desc}</desc>
    ${ticks.map(
      (v) => html`<line class="grid" x1=${PAD.l} x2=${W - PAD.r} y1=${py(v)} y2=${py(v)} />
      <text class="axis" x=${PAD.l - 6} y=${py(v) + 4} text-anchor="end">${format(v)}</text>`,
    )}
    ${items.map(
      (p, i) => html`<rect class="col" x=${PAD.l + i * slot + (slot - bw) / 2} y=${py(p.y)} width=${bw}
      height=${Math.max(0, PAD.t + ih - py(p.y))} rx="3"><title>${p.x}: ${format(p.y)}</title></rect>`,
    )}
    ${items.map((p, i) =>
      (items.length - 1 - i) % step === 0
        ? html`<text class="axis" x=${PAD.l + i * slot + slot / 2} y=${H - 6} text-anchor="middle">${p.x}</text>`
        : null,
    )}
  </svg>`;
}
