/**
 * Number formatting for HMC's tab in Hermes' dashboard: the same forms as HMC's own page
 * (web/src/format.ts), kept here so the tab's bundle imports nothing from the page.
 *
 * Invariant: pure; every function returns text for any number.
 */
export function fmtTokens(n: number): string {
  const a = Math.abs(n);
  if (a >= 1e9) return `${(n / 1e9).toFixed(2)}B`;
  if (a >= 1e6) return `${(n / 1e6).toFixed(2)}M`;
  if (a >= 1e3) return `${(n / 1e3).toFixed(1)}K`;
  return String(Math.round(n));
}

export function fmtMoney(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency, maximumFractionDigits: Math.abs(amount) < 10 ? 2 : 0 }).format(amount);
  } catch {
    return `${amount.toFixed(2)} ${currency}`;
  }
}

/** `?since=YYYY-MM-DD` for the last `days` UTC days including today, '' for all time. */
export function sinceQuery(days: number, now = Date.now()): string {
  return days > 0 ? `?since=${new Date(now - (days - 1) * 86_400_000).toISOString().slice(0, 10)}` : '';
}

