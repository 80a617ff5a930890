/**
 * A line (area) chart in plain SVG, e.g. context use per turn.
 *
 * Invariant: role="img" with a title and a description summarising the series; a data table
 * alternative sits beside it (data-table.ts). A reference line (`limit`) is labelled on the chart
 * and said in the description, so a screen reader hears what a sighted reader sees (issue 27,
 * finding 6: the dashed 80 % line had no label).
 */
import { html } from 'htm/preact';
import { useNarrow } from '../use-narrow.js';

const H = 190;
const PAD = { l: 44, r: 10, t: 10, b: 24 };

export function LineChart({
  points,
  title,
  desc,
  format,
  yMax,
  limit,
}: {
  points: { x: string; y: number }[];
  title: string;
  desc: string;
  format: (v: number) => string;
  yMax?: number;
  /** A dashed reference line: its value, its label on the chart, and what it means, said to screen readers. */
  limit?: { value: number; label: string; meaning: string };
}) {
  const W = useNarrow() ? 360 : 600;
  if (points.length === 0) return html`<p class="empty">No turns yet.</p>`;
  const max = Math.max(yMax ?? 0, ...points.map((p) => p.y), 1e-9);
  const iw = W - PAD.l - PAD.r;
  const ih = H - PAD.t - PAD.b;
  const px = (i: number): number => PAD.l + (points.length === 1 ? iw / 2 : (i / (points.length - 1)) * iw);
  const py = (v: number): number => PAD.t + ih - (v / max) * ih;
  const line = points.map((p, i) => `${i === 0 ? 'M' : 'L'}${px(i).toFixed(1)},${py(p.y).toFixed(1)}`).join(' ');
  const area = `${line} L${px(points.length - 1).toFixed(1)},${PAD.t + ih} L${px(0).toFixed(1)},${PAD.t + ih} Z`;
  const ticks = [0, 0.5, 1].map((f) => f * max);
  const step = Math.max(1, Math.ceil(points.length / (W < 600 ? 5 : 8)));
  const shownLimit = limit !== undefined && limit.value <= max ? limit : null;
  const said = shownLimit ? `${desc} ${shownLimit.meaning}` : desc;
  return html`<svg class="chart" viewBox=${`0 0 ${W} ${H}`} role="img" aria-label=${`${title}. ${said}`}>
    <title>${title}</title><desc>${said}</desc>
    ${ticks.map(
      (t) => html`<line class="grid" x1=${PAD.l} x2=${W - PAD.r} y1=${py(t)} y2=${py(t)} />
      <text class="axis" x=${PAD.l - 6} y=${py(t) + 4} text-anchor="end">${format(t)}</text>`,
    )}
    <path class="area" d=${area} />
    <path class="line" d=${line} />
    ${
      shownLimit
        ? html`<line class="limit" x1=${PAD.l} x2=${W - PAD.r} y1=${py(shownLimit.value)} y2=${py(shownLimit.value)} />
      <text class="limit-label" x=${W - PAD.r - 2} y=${py(shownLimit.value) - 5} text-anchor="end">${shownLimit.label}</text>`
        : null
    }
    ${points.length <= 60 ? points.map((p, i) => html`<circle class="dot" cx=${px(i)} cy=${py(p.y)} r="3"><title>${p.x}: ${format(p.y)}</title></circle>`) : null}
    ${points.map((p, i) => ((points.length - 1 - i) % step === 0 ? html`<text class="axis" x=${px(i)} y=${H - 6} text-anchor="middle">${p.x}</text>` : null))}
  </svg>`;
}
