/**
 * The views of issue 17, finding 7 on the page in real Chromium: a period (since / until) that the
 * address carries and every windowed card follows, the week chart, cost per model with the cache
 * model and the provider's own usage apart, saved per tool / kind / program, and the agent's
 * recalls and re-reads; each card's figures are the API's for the same window.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { ensureBuilt, HAS_CHROMIUM, launch, openLive, seed, type Seeded } from './harness.js';
import { openStore } from '../../src/store/index.js';
import { rec } from '../store/fixtures/five.js';
import { fmtMoney, fmtTokens } from '../../web/src/format.js';
import { analyticsResponse, modelsResponse, outputsResponse, workResponse } from '../../web/src/schema.js';
import type { Guard } from '../../web/src/guards.js';
import { turnPayload } from '../server/helpers.js';
import { modelCalls } from '../../web/src/components/models-card.js';

const DAY = 86_400_000;
const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

async function api<T>(s: Seeded, path: string, guard: Guard<T>): Promise<T> {
  const body: unknown = await (await fetch(`${s.dash.url}${path.slice(1)}`)).json();
  if (!guard(body)) throw new Error(`bad answer from ${path}`);
  return body;
}

async function cells(table: Locator): Promise<string[][]> {
  return table
    .locator('tbody tr')
    .evaluateAll((trs) => trs.map((tr) => Array.from(tr.children).map((c) => (c.textContent ?? '').trim())));
}

const hash = (page: Page): Promise<string> => page.evaluate(() => window.location.hash);

describe.skipIf(!HAS_CHROMIUM)('the views of finding 7 in Chromium', () => {
  let browser: Browser;
  let s: Seeded;
  const now = Date.now();

  beforeAll(async () => {
    await ensureBuilt();
    s = await seed();
    browser = await launch();
    // Two sessions counted with issue 17's figures: model calls, the cache model, tool outputs, recalls and re-reads.
    const store = openStore(s.dbPath);
    const work = (recalls: number, rereads: number, elided: number) => ({
      recalls,
      rereads,
      elided,
      outputs: [
        { tool: 'terminal', program: 'pytest', kind: 'shell', outputs: 4, tokens_raw: 12_000, tokens_sent: 3_000 },
        { tool: 'terminal', program: 'git status', kind: 'shell', outputs: 2, tokens_raw: 900, tokens_sent: 500 },
        { tool: 'read_file', program: '', kind: 'read', outputs: 3, tokens_raw: 6_000, tokens_sent: 4_200 },
      ],
    });
    store.recordSessions([
      rec({
        session_id: 'counted-a',
        started_at: now - 2 * DAY,
        model: 'claude-sonnet-4',
        project_path: '/home/ada/src/hmc',
        turns: 3,
        tool_calls: 9,
        input_tokens_raw: 90_000,
        input_tokens_hmc: 60_000,
        model_calls: 6,
        cached_raw: 70_000,
        cached_hmc: 40_000,
        by_strategy: { truncation: 30_000 },
        by_tool: { terminal: 22_000, read_file: 8_000 },
        work: work(1, 2, 8),
      }),
      rec({
        session_id: 'counted-b',
        started_at: now - 40 * DAY,
        model: 'gpt-4.1',
        project_path: '/home/ada/src/hmc',
        turns: 2,
        tool_calls: 4,
        input_tokens_raw: 20_000,
        input_tokens_hmc: 15_000,
        model_calls: 3,
        cached_raw: 12_000,
        cached_hmc: 9_000,
        by_strategy: { truncation: 5_000 },
        by_tool: { terminal: 5_000 },
        work: work(0, 1, 4),
      }),
    ]);
    store.recordUsage([
      {
        session_id: 'counted-a',
        seq: 1,
        at: now - 2 * DAY,
        model: 'claude-sonnet-4',
        provider: 'anthropic',
        prompt_tokens: 30_000,
        completion_tokens: 800,
        cache_read_tokens: 20_000,
        cache_write_tokens: 6_000,
        reasoning_tokens: 0,
        hmc_input: 30_000,
        raw_input: 45_000,
        hmc_cached: 20_000,
      },
    ]);
    store.close();
  });
  afterAll(async () => {
    await browser?.close();
    await s?.done();
  });

  it("should price each model as the API does, and show the provider's usage apart", async () => {
    const { page, problems } = await openLive(browser, `${s.dash.url}#/view/models`, { width: 1280, height: 900 });
    const m = await api(s, '/api/models', modelsResponse);
    const card = page.getByTestId('models');
    const table = card.getByTestId('models-table');
    await table.waitFor();
    const shown = await cells(table);
    expect(shown.map((r) => r[0]?.replace(/ \*$/, ''))).toEqual(m.models.map((r) => r.model));
    m.models.forEach((r, i) => {
      expect(shown[i]?.slice(1)).toEqual([
        String(r.sessions),
        modelCalls(r),
        fmtTokens(r.input),
        fmtTokens(r.sent),
        fmtTokens(r.saved),
        fmtMoney(r.cost.without_hmc, m.currency),
        fmtMoney(r.cost.spent, m.currency),
        fmtMoney(r.cost.saved, m.currency),
      ]);
    });
    const claude = m.models.find((r) => r.model === 'claude-sonnet-4');
    expect(claude?.model_calls).toBe(6);
    // gpt-4.1: 3 calls counted (counted-b) beside sessions that predate the count. A model none of whose sessions counted reads '--', not 0.
    expect(shown.find((r) => r[0] === 'gpt-4.1')?.[2]).toBe('3');
    const older = m.models.find((r) => r.model === 'gpt-4.1');
    if (older) expect(modelCalls({ ...older, model_calls: 0 })).toBe('--');
    expect(await card.getByTestId('provider-table').locator('tbody tr').count()).toBe(1);
    expect((await cells(card.getByTestId('provider-table')))[0]?.slice(0, 4)).toEqual([
      'claude-sonnet-4',
      '1',
      fmtTokens(30_000),
      fmtTokens(20_000),
    ]);
    expect(await card.textContent()).toContain('estimate');
    // Where the provider's figures came from: the hook in the ordinary mode (it named only the context engine).
    expect(await card.textContent()).toContain(
      'as Hermes reported it (its post_api_request hook, or HMC as its context engine)',
    );
    expect(problems).toEqual([]);
    await page.close();
  });

  it('should group tool outputs per tool, kind and program, with the saving per output', async () => {
    const { page, problems } = await openLive(browser, `${s.dash.url}#/view/outputs`, { width: 1280, height: 900 });
    const card = page.getByTestId('outputs');
    for (const by of ['tool', 'kind', 'program'] as const) {
      await card.getByRole('button', { name: `per ${by}`, exact: true }).click();
      await expect
        .poll(() => card.getByRole('button', { name: `per ${by}`, exact: true }).getAttribute('aria-pressed'))
        .toBe('true');
      const o = await api(s, `/api/outputs?by=${by}`, outputsResponse);
      expect(o.outputs.length).toBeGreaterThan(0);
      await expect
        .poll(async () => (await cells(card.getByTestId('outputs-table'))).map((r) => r[0]))
        .toEqual(o.outputs.map((r) => r.name));
      const first = (await cells(card.getByTestId('outputs-table')))[0];
      expect(first?.[4]).toBe(fmtTokens(o.outputs[0]?.saved_per_output ?? -1));
    }
    // pytest: 8 outputs in the two sessions, 24,000 tokens arrived, 6,000 first sent: 2,250 saved each.
    expect((await cells(card.getByTestId('outputs-table')))[0]?.slice(0, 5)).toEqual([
      'pytest',
      '8',
      fmtTokens(24_000),
      fmtTokens(6_000),
      fmtTokens(2_250),
    ]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('should count the recalls and re-reads against the outputs shortened, and open a session from the list', async () => {
    const { page, problems } = await openLive(browser, `${s.dash.url}#/view/work`, { width: 1280, height: 900 });
    const w = await api(s, '/api/work', workResponse);
    expect([w.recalls, w.rereads, w.elided]).toEqual([1, 3, 12]);
    const card = page.getByTestId('work');
    await expect.poll(() => card.getByTestId('work-rate').textContent()).toBe(w.per_100_elided.toFixed(1));
    expect(await card.getByTestId('work-recalls').textContent()).toBe('1');
    expect(await card.getByTestId('work-rereads').textContent()).toBe('3');
    await card.getByRole('button', { name: 'counted-a' }).click();
    await expect.poll(() => hash(page)).toBe('#/session/counted-a');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('should narrow every windowed card to the period, keep it in the address, and refuse a day that does not exist', async () => {
    const { page, problems } = await openLive(browser, `${s.dash.url}#/view/range`, { width: 1280, height: 900 });
    const since = day(now - 10 * DAY);
    const until = day(now);
    const card = page.getByTestId('range');
    await card.locator('input[name="since"]').fill(since);
    await card.locator('input[name="until"]').fill(until);
    await card.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => hash(page)).toBe(`#/view/range?since=${since}&until=${until}`);
    const a = await api(s, `/api/analytics?since=${since}&until=${until}`, analyticsResponse);
    await expect
      .poll(() => card.getByTestId('range-totals').textContent())
      .toContain(
        `${fmtTokens(a.total_saved)} input saved over ${a.model_calls} model calls (+${a.sessions_without_model_calls} older sessions, calls not counted)`,
      );
    expect(await card.getByTestId('range-text').textContent()).toBe(`${since} to ${until}`);
    // The models card follows: counted-b (40 days ago, gpt-4.1 with model calls) is out of the window.
    const m = await api(s, `/api/models?since=${since}&until=${until}`, modelsResponse);
    await expect
      .poll(async () => (await cells(page.getByTestId('models-table'))).map((r) => r[2]))
      .toEqual(m.models.map(modelCalls));
    // Sessions too: every row started in the window.
    const rows = await page.locator('tr[data-session-id]').count();
    expect(rows).toBe(a.total_sessions);
    // A reload keeps the period.
    await page.reload();
    await page
      .getByTestId('range-text')
      .filter({ hasText: `${since} to ${until}` })
      .waitFor();
    // The history's week chart lists each week of the period.
    const weeks = page.getByTestId('history').locator('details.alt').nth(1);
    await weeks.locator('summary').click();
    expect(await weeks.locator('tbody tr').count()).toBeGreaterThanOrEqual(2);
    await page.goto(`${s.dash.url}#/?since=2026-02-30`);
    await page.getByTestId('bad-link').filter({ hasText: 'since is not a calendar day' }).waitFor();
    await card.getByRole('button', { name: 'All time' }).click();
    await expect.poll(() => hash(page)).toBe('#/');
    expect(problems).toEqual([]);
    await page.close();
  });

  it("should name the current session's two savings: input saved over its model calls, and context saved now", async () => {
    const { page, problems } = await openLive(browser, s.dash.url, { width: 1280, height: 900 });
    // A session whose turn events count their model calls (2, then 3) and the context saved at each turn's end.
    s.sink.emit(
      turnPayload('named-figures', 1, 4_000, {
        delta_saved: 4_000,
        turn_model_calls: 2,
        context_saved: 1_500,
        context_raw_tokens: 22_500,
      }),
    );
    s.sink.emit(
      turnPayload('named-figures', 2, 9_000, {
        delta_saved: 5_000,
        turn_model_calls: 3,
        context_saved: 1_800,
        context_raw_tokens: 23_800,
      }),
    );
    const share = page.getByTestId('current').getByTestId('cur-share');
    await expect
      .poll(() => share.textContent())
      .toBe(`25.0% of input tokens, over 5 model calls; context saved now: ${fmtTokens(1_800)}`);
    // The turn table gives each turn's input saved with its calls and context saved.
    const box = page.getByTestId('turns').locator('details.alt').nth(1);
    await box.locator('summary').click();
    expect(await cells(box.locator('table'))).toEqual([
      ['1', fmtTokens(4_000), '2', fmtTokens(1_500)],
      ['2', fmtTokens(5_000), '3', fmtTokens(1_800)],
    ]);
    expect(problems).toEqual([]);
    await page.close();
  });
});
