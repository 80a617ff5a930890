/**
 * A model's context window as providers name it (issue 27, finding 6: a 131,072-token window
 * showed as "131.1K"): a multiple of 1,000 in K (or M) of 1,000 (128,000 → 128K, 200,000 → 200K,
 * 1,000,000 → 1M); otherwise a multiple of 1,024 in K (or M) of 1,024 (131,072 → 128K,
 * 163,840 → 160K, 1,048,576 → 1M); anything else rounded to a tenth of a K of 1,000 (131,100 →
 * 131.1K). The one function every place that shows a window uses: the page (web/src/format.ts
 * re-exports it) and the `/hmc status` line (engine/control/control.ts).
 *
 * Invariant: pure, no imports (the page's bundle takes it as is); any number gives text ('--' for
 * none, 0, a negative or NaN).
 */

/** Up to three decimals, no trailing zeros: 1.5, 1.536, 2. */
const trim = (n: number): string => String(Math.round(n * 1000) / 1000);

export function fmtWindow(tokens: number | null | undefined): string {
  if (tokens === null || tokens === undefined || !Number.isFinite(tokens) || tokens <= 0) return '--';
  const t = Math.round(tokens);
  const base = t % 1000 === 0 ? 1000 : t % 1024 === 0 ? 1024 : 0;
  if (base === 0) return t >= 1000 ? `${(t / 1000).toFixed(1)}K` : String(t);
  const k = t / base;
  return k >= base ? `${trim(k / base)}M` : `${k}K`;
}
