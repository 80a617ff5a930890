/**
 * Number and time formatting for the page: 12.3K / 1.23M tokens, percentages, money, clock times.
 *
 * Invariant: every formatter accepts any number (NaN, negative, null) and returns text.
 */

/** `1 turn`, `3 turns`: a count with its noun in the right number. */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}

export function fmtTokens(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '--';
  const a = Math.abs(n);
  if (a >= 1e9) return `${(n / 1e9).toFixed(2)}B`;
  if (a >= 1e6) return `${(n / 1e6).toFixed(2)}M`;
  if (a >= 1e3) return `${(n / 1e3).toFixed(1)}K`;
  return String(Math.round(n));
}

/** `fraction` is 0..1. */
export function fmtPct(fraction: number | null | undefined, digits = 0): string {
  if (fraction === null || fraction === undefined || !Number.isFinite(fraction)) return '--';
  return `${(fraction * 100).toFixed(digits)}%`;
}

/**
 * Money in its currency: whole units from 10, cents below; an amount under a cent but not zero
 * keeps two significant digits ($0.0012), so a small cost never reads as $0.00.
 */
export function fmtMoney(amount: number, currency: string): string {
  try {
    const tiny = amount !== 0 && Math.abs(amount) < 0.005;
    return new Intl.NumberFormat(
      undefined,
      tiny
        ? { style: 'currency', currency, maximumSignificantDigits: 2 }
        : { style: 'currency', currency, maximumFractionDigits: Math.abs(amount) < 10 ? 2 : 0 },
    ).format(amount);
  } catch {
    return `${amount.toFixed(2)} ${currency}`;
  }
}

// hourCycle h23, not hour12: false: with the latter some ICU builds (Node 20's among them) write
// the first hour after midnight as 24:06.
export function fmtClock(ms: number): string {
  return new Date(ms).toLocaleTimeString(undefined, {
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  });
}

export function fmtDateTime(ms: number): string {
  return new Date(ms).toLocaleString(undefined, {
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
}

export function shortId(id: string): string {
  // Both ends: Hermes ids start with a date, so their beginnings alone are all alike.
  return id.length > 16 ? `${id.slice(0, 7)}…${id.slice(-6)}` : id;
}

/** The last two segments of a path: enough to recognise a project, short enough for a phone. */
export function shortPath(path: string): string {
  if (!path) return '(no project)';
  const parts = path.split('/').filter(Boolean);
  return parts.length <= 2 ? path : `…/${parts.slice(-2).join('/')}`;
}

export function sortedEntries(rec: Record<string, number>): [string, number][] {
  return Object.entries(rec)
    .filter(([, v]) => v > 0)
    .sort((a, b) => b[1] - a[1]);
}

/**
 * "over 6 model calls", the N of input saved (docs/glossary.md); sessions recorded before HMC
 * counted calls are named rather than silently left out of N: "over 6 model calls (+14 older
 * sessions, calls not counted)". '' when the server gives no count.
 */
export function callsText(calls: number | undefined, uncounted = 0): string {
  if (calls === undefined) return '';
  const older = uncounted > 0 ? ` (+${count(uncounted, 'older session')}, calls not counted)` : '';
  return `over ${count(calls, 'model call')}${older}`;
}

/** A context window as providers name it (131,072 → 128K): the one formatter, shared with `/hmc status`. */
export { fmtWindow } from '../../src/core/window-size.js';
