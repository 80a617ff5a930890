/**
 * A ring gauge for context use (0..1): green, then amber from 60 %, red from 85 %.
 *
 * Invariant: an <svg role="img"> whose label carries the value in words.
 */
import { html } from 'htm/preact';
import { fmtPct } from '../format.js';

const R = 52;
const C = 2 * Math.PI * R;

export function Gauge({ value, label }: { value: number | null; label: string }) {
  const v = value === null || !Number.isFinite(value) ? 0 : Math.max(0, Math.min(1, value));
  const level = v >= 0.85 ? 'bad' : v >= 0.6 ? 'warn' : '';
  return html`<svg class="gauge" viewBox="0 0 132 132" role="img" aria-label=${`${label}: ${fmtPct(value)}`}>
    <title>${label}: ${fmtPct(value)}</title>
    <circle class="track" cx="66" cy="66" r=${R} fill="none" stroke-width="12" />
    <circle class=${`fill ${level}`} cx="66" cy="66" r=${R} fill="none" stroke-width="12" stroke-linecap="round"
      stroke-dasharray=${C} stroke-dashoffset=${C * (1 - v)} transform="rotate(-90 66 66)" />
    <text x="66" y="68" text-anchor="middle" font-size="26">${fmtPct(value)}</text>
    <text class="gl" x="66" y="90" text-anchor="middle" font-size="11">context</text>
  </svg>`;
}
