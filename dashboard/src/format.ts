/**
 * Number formatting and the period (since/until, UTC days) for HMC's tab in Hermes' dashboard: the
 * same forms as HMC's own page (web/src/format.ts, range-card.ts), kept here so the tab's bundle
 * imports nothing from the page.
 *
 * Invariant: pure; every function returns text for any input.
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
    return new Intl.NumberFormat(undefined, {
      style: 'currency',
      currency,
      maximumFractionDigits: Math.abs(amount) < 10 ? 2 : 0,
    }).format(amount);
  } catch {
    return `${amount.toFixed(2)} ${currency}`;
  }
}

/** A period of UTC days, both included; neither: all time (HMC's API takes the same since/until). */
export interface Range {
  since?: string;
  until?: string;
}

/** `YYYY-MM-DD` of the UTC day `days` before today. */
export function daysAgo(days: number, now = Date.now()): string {
  return new Date(now - days * 86_400_000).toISOString().slice(0, 10);
}

/** Whether `text` is a real calendar day written YYYY-MM-DD. */
export function isDay(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const d = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === text;
}

/** What is wrong with a chosen since/until ('' when it can be applied). */
export function rangeProblem(since: string, until: string): string {
  if ((since && !isDay(since)) || (until && !isDay(until))) return 'Give each day as YYYY-MM-DD.';
  if (since && until && since > until) return 'The first day is after the last.';
  return '';
}

/** How a range reads: "all time", "since 2026-11-01", "until …", "2026-11-01 to 2026-11-26". */
export function rangeText(r: Range): string {
  if (r.since && r.until) return r.since === r.until ? r.since : `${r.since} to ${r.until}`;
  if (r.since) return `since ${r.since}`;
  if (r.until) return `until ${r.until}`;
  return 'all time';
}

/** The query of HMC's API for a range and other parameters: '' or `?since=…&until=…&…`. */
export function rangeQuery(r: Range, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams();
  if (r.since) q.set('since', r.since);
  if (r.until) q.set('until', r.until);
  for (const [k, v] of Object.entries(extra)) q.set(k, v);
  const text = q.toString();
  return text ? `?${text}` : '';
}

/** The words of a failed fetchJSON ("503: {\"error\": \"…\"}"): the JSON's error when it has one. */
export function failure(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const body = message.slice(message.indexOf(':') + 1).trim();
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed === 'object' && parsed !== null) {
      const words = 'error' in parsed ? parsed.error : 'detail' in parsed ? parsed.detail : undefined;
      if (typeof words === 'string' && words) return words;
    }
  } catch {
    // Not JSON: the message as it is.
  }
  return message;
}
