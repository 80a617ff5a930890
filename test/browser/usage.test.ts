/**
 * The provider's usage on a session's page in real Chromium (issue 16): the cache reads and
 * writes the host reported, summed from the stored calls, beside HMC's cache model, the models by
 * name and every call in a table; the API answers the same figures; a session the host reported
 * nothing for says so; a model name holding markup stays text. The Provider vs HMC card stands
 * apart from the per-call table above it, and the fold of its costliest calls names its question
 * (seen on issue 24's screenshots: the heading sat on the table's fold line, the fold said "Show
 * as a table" under no chart).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { ensureBuilt, HAS_CHROMIUM, launch, openLive, seed, type Seeded } from './harness.js';
import { openStore } from '../../src/store/index.js';
import type { UsageRecord } from '../../src/store/usage.js';
import { fmtPct, fmtTokens } from '../../web/src/format.js';
import { sessionsResponse, usageResponse } from '../../web/src/schema.js';

const EVIL = '<img src=x onerror=alert(1)>claude';

function calls(sessionId: string): UsageRecord[] {
  return Array.from({ length: 12 }, (_, i) => {
    const prompt = 20_000 + i * 1_700;
    const read = i === 0 ? 0 : prompt - 1_900 - (i % 3) * 200;
    return {
      session_id: sessionId,
      seq: i + 1,
      at: Date.UTC(2026, 10, 20, 9, i),
      model: i < 9 ? 'claude-sonnet-4' : EVIL,
      provider: 'anthropic',
      prompt_tokens: prompt,
      completion_tokens: 300 + i,
      cache_read_tokens: read,
      cache_write_tokens: prompt - read,
      reasoning_tokens: 0,
      hmc_input: i === 5 ? null : prompt - 900,
      raw_input: i === 5 ? null : prompt + 4_000,
      hmc_cached: i === 5 ? null : i === 0 ? 0 : prompt - 2_600,
    };
  });
}

describe.skipIf(!HAS_CHROMIUM)('provider usage in Chromium', () => {
  let browser: Browser;
  let s: Seeded;
  let withUsage = '';
  let without = '';
  let rows: UsageRecord[] = [];

  beforeAll(async () => {
    await ensureBuilt();
    s = await seed();
    browser = await launch();
    const api: unknown = await (await fetch(`${s.dash.url}api/sessions?limit=20&sort=started_at&order=desc`)).json();
    if (!sessionsResponse(api)) throw new Error('bad API answer');
    withUsage = api.rows[1]?.session_id ?? '';
    without = api.rows[2]?.session_id ?? '';
    rows = calls(withUsage);
    const store = openStore(s.dbPath);
    store.recordUsage(rows);
    store.close();
  });
  afterAll(async () => {
    await browser?.close();
    await s?.done();
  });

  const sum = (key: keyof UsageRecord): number =>
    rows.reduce((n, r) => n + (typeof r[key] === 'number' ? (r[key] as number) : 0), 0);

  it('should answer the stored figures from the API', async () => {
    const body: unknown = await (
      await fetch(`${s.dash.url}api/sessions/${encodeURIComponent(withUsage)}/usage`)
    ).json();
    if (!usageResponse(body) || !body.usage) throw new Error('bad API answer');
    expect(body.usage.totals).toEqual({
      calls: 12,
      prompt_tokens: sum('prompt_tokens'),
      completion_tokens: sum('completion_tokens'),
      cache_read_tokens: sum('cache_read_tokens'),
      cache_write_tokens: sum('cache_write_tokens'),
      reasoning_tokens: 0,
      hmc_calls: 11,
      hmc_input: sum('hmc_input'),
      hmc_cached: sum('hmc_cached'),
      unseen_calls: 1,
      breaks: 0,
    });
    // Reconcile (issue 24): the same calls, measured beside modelled; the call HMC never saw apart.
    expect(body.reconcile).toMatchObject({
      calls: 12,
      unseen_calls: 1,
      measured: { prompt_tokens: sum('prompt_tokens') },
    });
    expect(body.usage.models).toEqual([
      { model: 'claude-sonnet-4', calls: 9 },
      { model: EVIL, calls: 3 },
    ]);
    expect(body.usage.calls.map((c) => c.seq)).toEqual(rows.map((r) => r.seq));
    const none: unknown = await (await fetch(`${s.dash.url}api/sessions/${encodeURIComponent(without)}/usage`)).json();
    expect(none).toEqual({ session_id: without, usage: null, reconcile: null });
  });

  it('should show the cache reads and writes beside HMC\u2019s model, every call, and markup as text', async () => {
    const { page, problems, dialogs } = await openLive(
      browser,
      `${s.dash.url}#/session/${encodeURIComponent(withUsage)}`,
      { width: 1280, height: 900 },
    );
    const usage = page.getByTestId('usage');
    await usage.waitFor();
    expect(await usage.getByTestId('usage-calls').textContent()).toBe('12');
    expect(await usage.getByTestId('usage-prompt').textContent()).toBe(fmtTokens(sum('prompt_tokens')));
    expect(await usage.getByTestId('usage-read').textContent()).toBe(fmtTokens(sum('cache_read_tokens')));
    expect(await usage.getByTestId('usage-write').textContent()).toBe(fmtTokens(sum('cache_write_tokens')));
    expect(await usage.getByTestId('usage-model').textContent()).toBe(fmtPct(sum('hmc_cached') / sum('hmc_input')));
    expect(
      await usage.getByText(`read from cache (${fmtPct(sum('cache_read_tokens') / sum('prompt_tokens'))})`).count(),
    ).toBe(1);
    await usage.locator('summary', { hasText: 'Show each call (12)' }).click();
    expect(await usage.locator('tbody').first().locator('tr').count()).toBe(12);
    expect(await usage.locator('tbody').first().locator('tr').nth(5).locator('td').nth(4).textContent()).toBe('--'); // a call HMC did not count
    // Provider vs HMC: the money measured and modelled, and why the costliest calls cost the most.
    const rec = usage.getByTestId('reconcile');
    expect(await rec.getByTestId('reconcile-measured').textContent()).toMatch(/^[0-9.]+ USD$/);
    expect(await rec.getByTestId('reconcile-breaks').textContent()).toBe('0');
    // Its heading stands apart from the per-call table above (it sat on that table's fold line), and
    // the fold of the costliest calls says what it holds (it said "Show as a table", under no chart).
    const gap = await rec.evaluate(
      (el) => el.getBoundingClientRect().top - (el.previousElementSibling?.getBoundingClientRect().bottom ?? 0),
    );
    expect(gap).toBeGreaterThanOrEqual(12);
    await rec.locator('summary', { hasText: 'Why did these calls cost the most? (the 5 costliest calls)' }).click();
    expect(await rec.locator('tbody tr').count()).toBe(5);
    expect(await usage.getByText(EVIL).count()).toBeGreaterThan(0);
    expect(await page.locator('img').count()).toBe(0);
    expect(dialogs).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('should say so when the host reported no usage', async () => {
    const { page, problems } = await openLive(browser, `${s.dash.url}#/session/${encodeURIComponent(without)}`, {
      width: 1280,
      height: 900,
    });
    await page.getByTestId('usage-none').waitFor();
    expect(await page.getByTestId('usage-none').textContent()).toContain('post_api_request');
    expect(problems).toEqual([]);
    await page.close();
  });
});
