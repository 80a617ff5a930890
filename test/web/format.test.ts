/**
 * Money as the page writes it (web/src/format.ts): a cost under a cent keeps two significant
 * digits, never "$0.00" for a cost that is not zero (issue 24's screenshots: 150 output tokens of
 * gpt-4.1, $0.0012, read "$0.00"); cents below 10, whole units from 10, other currencies alike.
 */
import { describe, expect, it } from 'vitest';
import { fmtClock, fmtDateTime, fmtMoney } from '../../web/src/format.js';

const usd = (x: number): string => fmtMoney(x, 'USD');

describe('fmtMoney', () => {
  it('keeps a cost under a cent visible', () => {
    expect(usd(0.0012)).toMatch(/0\.0012/);
    expect(usd(-0.0002)).toMatch(/0\.0002/);
    expect(usd(0.0012)).not.toMatch(/0\.00$/);
  });
  it('writes zero, cents and whole units as before', () => {
    expect(usd(0)).toMatch(/0\.00$/);
    expect(usd(0.17)).toMatch(/0\.17$/);
    expect(usd(0.005)).toMatch(/0\.01$/);
    expect(usd(6.95)).toMatch(/6\.95$/);
    expect(usd(1234.4)).toMatch(/1,?234$/);
  });
  it('falls back to the amount and the code for a currency Intl does not know', () => {
    expect(fmtMoney(0.5, 'not a currency')).toBe('0.50 not a currency');
  });
});

describe('clock times', () => {
  // CI ran at 00:04 UTC and Node 20 wrote the page's time as "Nov 28, 24:06" (hour12: false).
  const afterMidnight = new Date(2026, 10, 28, 0, 6, 9).getTime();

  it('writes the hour after midnight as 00, in the date and time and in the clock', () => {
    expect(fmtDateTime(afterMidnight)).toMatch(/\b00:06\b/);
    expect(fmtDateTime(afterMidnight)).not.toMatch(/24:/);
    expect(fmtClock(afterMidnight)).toMatch(/^00:06:09$/);
  });

  it('keeps the afternoon on the 24-hour clock', () => {
    expect(fmtClock(new Date(2026, 10, 28, 13, 5, 0).getTime())).toBe('13:05:00');
  });
});
