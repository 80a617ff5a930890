/**
 * HMC's tab in Hermes' own web dashboard (issue 17, finding 7; issue 27, finding 4), in a real
 * Hermes 0.19 and real Chromium: `hermes dashboard` finds dashboard/manifest.json in the plugin's
 * folder, mounts dashboard/plugin_api.py, loads the built dashboard/dist/index.js, and the tab
 * shows the figures HMC's own dashboard answers (found through <HERMES_HOME>/hmc_state/
 * dashboard.json) for the chosen period; at 390 px no table is cut without a cue (the page's
 * layout check, table-fit.ts); with HMC's dashboard stopped the tab says so and its Start button
 * starts it as `hermes hmc dashboard start` does.
 *
 * Needs a Hermes venv (hermes-host.ts): skipped with a note without one, failed under CI.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launch } from './harness.js';
import { READY, REPO, startHermes, startHmc, stop, type HermesHost } from './hermes-host.js';
import { tableFits } from './table-fit.js';
import { seedStore, UNKNOWN, type Analytics, type Models, type Price } from './hermes-tab-data.js';
import { daysAgo, fmtMoney, fmtTokens } from '../../dashboard/src/format.js';

describe.skipIf(!READY)("HMC's tab in Hermes' web dashboard", () => {
  let host: HermesHost;
  let hmc: Awaited<ReturnType<typeof startHmc>> | undefined;
  let browser: Browser;
  let cfgDir = '';
  const api = async <T>(path: string): Promise<T> => (await fetch(`${hmc?.url ?? ''}${path}`)).json() as Promise<T>;
  const hmcCli = (...args: string[]): string =>
    execFileSync(process.execPath, [join(REPO, 'bin', 'hmc.js'), ...args], { env: host.env, encoding: 'utf8' });

  beforeAll(async () => {
    // HMC's config for the dashboard the Start button starts: any free port (never a fixed one).
    cfgDir = mkdtempSync(join(tmpdir(), 'hmc-tab-config-'));
    const config = join(cfgDir, 'config.yaml');
    writeFileSync(config, 'dashboard:\n  port: 0\n');
    host = await startHermes({ env: { HMC_CONFIG: config } });
    seedStore(join(host.state, 'analytics.db'));
    hmc = await startHmc(host);
    browser = await launch();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stop(hmc?.child);
    if (host) {
      try {
        hmcCli('dashboard', 'stop', '--state-dir', host.state); // the one the Start button started
      } catch {
        // Never started.
      }
      await host.done();
    }
    if (cfgDir) rmSync(cfgDir, { recursive: true, force: true });
  });

  async function open(width: number, height: number): Promise<{ page: Page; errors: string[] }> {
    const page = await browser.newPage({ viewport: { width, height } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${host.url}/hmc`);
    await page.getByTestId('hmc-tab').waitFor({ timeout: 30_000 });
    return { page, errors };
  }

  /** The tab's summary equals HMC's /api/analytics for the same query. */
  async function expectSummary(page: Page, query: string): Promise<Analytics> {
    const a = await api<Analytics>(`api/analytics${query}`);
    await expect.poll(() => page.getByTestId('hmc-saved').textContent()).toBe(fmtTokens(a.total_saved));
    expect(await page.getByTestId('hmc-pct').textContent()).toBe(`${a.savings_pct.toFixed(1)}%`);
    // Cost saved, modelled: over the priced models (an unknown model gets no money on the tab).
    const m = await api<Models>(`api/models${query}`);
    const priced = m.models.filter((x) => !x.price.unknown_model);
    expect(await page.getByTestId('hmc-cost').textContent()).toBe(
      fmtMoney(
        priced.reduce((t, x) => t + x.cost.saved, 0),
        m.currency,
      ),
    );
    if (priced.length === m.models.length)
      expect(await page.getByTestId('hmc-cost').textContent()).toBe(
        fmtMoney(a.estimated_cost_saved.amount, a.estimated_cost_saved.currency),
      );
    expect(await page.getByTestId('hmc-sessions').textContent()).toBe(String(a.total_sessions));
    return a;
  }

  it('is listed by Hermes from dashboard/manifest.json, with its API mounted', async () => {
    const plugins: unknown = await (await fetch(`${host.url}/api/dashboard/plugins`)).json();
    const hmcTab = Array.isArray(plugins) ? plugins.find((p: { name?: string }) => p.name === 'hmc') : undefined;
    expect(hmcTab).toMatchObject({
      label: 'HMC',
      tab: { path: '/hmc' },
      entry: 'dist/index.js',
      has_api: true,
      source: 'user',
    });
    const js = await fetch(`${host.url}/dashboard-plugins/hmc/dist/index.js`);
    expect(js.status).toBe(200);
    expect(await js.text()).toBe(readFileSync(join(REPO, 'dashboard', 'dist', 'index.js'), 'utf8'));
  });

  it("shows the figures HMC's own dashboard answers (1440 px)", async () => {
    const { page, errors } = await open(1440, 900);
    const a = await expectSummary(page, '');
    const w = await api<{ recalls: number; per_100_elided: number }>('api/work');
    expect(await page.getByTestId('hmc-summary').textContent()).toContain(
      `input saved over ${a.model_calls} model calls`,
    );
    expect(await page.getByTestId('hmc-recalls').textContent()).toBe(String(w.recalls));
    expect(await page.getByTestId('hmc-rate').textContent()).toBe(w.per_100_elided.toFixed(1));
    expect((await page.getByTestId('hmc-models-table').locator('tbody th').allTextContents()).sort()).toEqual([
      UNKNOWN,
      'anthropic/claude-sonnet-4-20250514',
      'gpt-4.1',
    ]);
    const o = await api<{ outputs: { name: string }[] }>('api/outputs?by=tool&limit=10');
    expect(o.outputs.map((x) => x.name).sort()).toEqual(['read_file', 'terminal']);
    expect(await page.getByTestId('hmc-outputs-table').locator('tbody th').allTextContents()).toEqual(
      o.outputs.map((x) => x.name),
    );
    expect(await page.getByRole('link', { name: /full dashboard/ }).getAttribute('href')).toBe(hmc?.url);
    mkdirSync(join(REPO, 'test-results'), { recursive: true });
    await page.screenshot({ path: join(REPO, 'test-results', 'hermes-tab.png') });
    expect(errors).toEqual([]);
    await page.close();
  });

  it("shows money with the cache: HMC's figures (modelled) beside the provider's (measured), an unknown model named, not priced (issue 24)", async () => {
    const { page, errors } = await open(1440, 900);
    await expectSummary(page, '');
    const m = await api<Models>('api/models');
    const money = (x: { price: Price }, v: number): string =>
      x.price.unknown_model ? 'not priced' : fmtMoney(v, m.currency);
    // HMC's table: every model's tokens and its cost without and with HMC, priced with the cache model.
    const models = page.getByTestId('hmc-models');
    expect(await models.textContent()).toContain('modelled');
    expect(await page.getByTestId('hmc-models-table').locator('thead th').allTextContents()).toEqual([
      'Model',
      'Model calls',
      'Input',
      'Sent',
      'Cost without HMC',
      'Cost with HMC',
      'Cost saved',
    ]);
    const shown = await page
      .getByTestId('hmc-models-table')
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => Array.from(tr.children).map((c) => c.textContent ?? '')));
    expect(shown).toEqual(
      m.models.map((x) => [
        x.model,
        String(x.model_calls),
        fmtTokens(x.input),
        fmtTokens(x.sent),
        money(x, x.cost.without_hmc),
        money(x, x.cost.spent),
        money(x, x.cost.saved),
      ]),
    );
    // With the cache: tab-a's input without HMC is not 80,000 tokens at the write price.
    const sonnet = m.models.find((x) => x.model.includes('sonnet'));
    expect(sonnet?.cost.without_hmc).toBeLessThan((80_000 * 3.75) / 1e6);
    // The unknown model: named, and no money anywhere on the tab for it.
    expect(m.models.find((x) => x.model === UNKNOWN)?.price.unknown_model).toBe(true);
    expect(shown.find((r) => r[0] === UNKNOWN)?.slice(4)).toEqual(['not priced', 'not priced', 'not priced']);
    expect(await page.getByTestId('hmc-unpriced').textContent()).toBe(
      `Not priced: ${UNKNOWN}. No price table names this model: add it under pricing.models in HMC's config.yaml (hermes hmc doctor lists it).`,
    );
    expect(await page.getByTestId('hmc-summary').textContent()).toContain('cost saved, modelled (priced models only)');
    // The provider's table: what Hermes reported, measured, priced from the same table.
    const p = m.provider ?? [];
    expect(p.map((x) => x.model).sort()).toEqual([UNKNOWN, 'anthropic/claude-sonnet-4-20250514']);
    expect(await page.getByTestId('hmc-provider').textContent()).toContain('measured');
    const measured = await page
      .getByTestId('hmc-provider-table')
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => Array.from(tr.children).map((c) => c.textContent ?? '')));
    expect(measured).toEqual(
      p.map((x) => [
        x.model,
        String(x.calls),
        fmtTokens(x.prompt_tokens),
        fmtTokens(x.cache_read_tokens),
        fmtTokens(x.cache_write_tokens),
        fmtTokens(x.completion_tokens),
        money(x, x.cost.input),
        money(x, x.cost.output),
      ]),
    );
    const known = p.filter((x) => !x.price.unknown_model);
    expect(await page.getByTestId('hmc-measured-input').textContent()).toBe(
      fmtMoney(
        known.reduce((t, x) => t + x.cost.input, 0),
        m.currency,
      ),
    );
    expect(await page.getByTestId('hmc-measured-prompt').textContent()).toBe(fmtTokens(20_000));
    expect(await page.getByTestId('hmc-measured-read').textContent()).toBe(`${((100 * 7_800) / 20_000).toFixed(1)}%`);
    // The page's whole content in one shot, for docs/screenshots/hermes-tab.png.
    const tall = await page.evaluate(() =>
      Math.max(...Array.from(document.querySelectorAll('main, main *')).map((e) => e.scrollHeight)),
    );
    await page.setViewportSize({ width: 1440, height: tall + 120 });
    await page.screenshot({ path: join(REPO, 'test-results', 'hermes-tab-money.png') });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('regression (issue 27, finding 4): at 390 px no table is cut: each fits its box or scrolls with a visible cue', async () => {
    const { page, errors } = await open(390, 844);
    await expectSummary(page, '');
    const fits = await tableFits(page, 'hmc-cue');
    console.info(
      `390 px: ${fits.map((f) => `${f.caption} ${f.scrollWidth}/${f.clientWidth} px${f.cue ? ' (cue)' : ''}`).join('; ')}`,
    );
    expect(fits.map((f) => f.caption)).toEqual(['Cost per model', 'Reported by the provider', 'Saved per tool output']);
    for (const f of fits) {
      const fit = f.scrollWidth <= f.clientWidth;
      expect(fit || f.cue, `${f.caption}: ${f.scrollWidth} px in a ${f.clientWidth} px box, no scroll cue`).toBe(true);
      if (fit) expect(f.right, `${f.caption} ends at ${f.right} px`).toBeLessThanOrEqual(390);
    }
    // Issue 27's own example: the share of a tool output is whole ("96.3 %" was cut to "9").
    const pct = page.getByTestId('hmc-outputs-table').locator('tbody tr').first().locator('td').nth(2);
    const box = await pct.boundingBox();
    expect(box && box.x + box.width).toBeLessThanOrEqual(390);
    // A long model name ends in an ellipsis on a phone, whole in its title.
    const name = page.getByTestId('hmc-models-table').locator('tbody th .hmc-name').first();
    expect(await name.getAttribute('title')).toBe('anthropic/claude-sonnet-4-20250514');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    // The page's content is in Hermes' scrolling main: grow the viewport to take it all in one shot.
    const tall = await page.evaluate(() =>
      Math.max(...Array.from(document.querySelectorAll('main, main *')).map((e) => e.scrollHeight)),
    );
    await page.setViewportSize({ width: 390, height: tall + 120 });
    await page.screenshot({ path: join(REPO, 'test-results', 'hermes-tab-phone.png') });
    // Narrower than any phone it is made for, a table scrolls, and the cue says so.
    await page.setViewportSize({ width: 300, height: 844 });
    await expect
      .poll(async () => (await tableFits(page, 'hmc-cue')).every((f) => f.scrollWidth <= f.clientWidth || f.cue))
      .toBe(true);
    const narrow = await tableFits(page, 'hmc-cue');
    console.info(
      `300 px: ${narrow.map((f) => `${f.caption} ${f.scrollWidth}/${f.clientWidth} px${f.cue ? ' (cue)' : ''}`).join('; ')}`,
    );
    expect(narrow.some((f) => f.cue)).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("regression (issue 27, finding 4): a date choice (since/until) shows HMC's figures for that period", async () => {
    const { page, errors } = await open(1440, 900);
    await expectSummary(page, '');
    const form = page.getByTestId('hmc-period');
    // 30 days leaves out the session of 40 days ago.
    await form.getByRole('button', { name: '30 days' }).click();
    expect(await page.getByTestId('hmc-range-text').textContent()).toBe(`Showing since ${daysAgo(29)}`);
    const month = await expectSummary(page, `?since=${daysAgo(29)}`);
    expect(month.total_sessions).toBe(2);
    expect((await page.getByTestId('hmc-models-table').locator('tbody th').allTextContents()).sort()).toEqual([
      UNKNOWN,
      'anthropic/claude-sonnet-4-20250514',
    ]);
    // Since/until by hand: only the old session's day.
    const old = daysAgo(40);
    await form.locator('input[name="since"]').fill(old);
    await form.locator('input[name="until"]').fill(old);
    await form.getByRole('button', { name: 'Apply' }).click();
    expect(await page.getByTestId('hmc-range-text').textContent()).toBe(`Showing ${old}`);
    const day = await expectSummary(page, `?since=${old}&until=${old}`);
    expect(day.total_sessions).toBe(1);
    await expect
      .poll(() => page.getByTestId('hmc-models-table').locator('tbody th').allTextContents())
      .toEqual(['gpt-4.1']);
    // No provider usage that day: said, not shown as zeros.
    expect(await page.getByTestId('hmc-provider-none').textContent()).toContain('post_api_request');
    // A first day after the last is not applied.
    await form.locator('input[name="since"]').fill(daysAgo(1));
    expect(await form.getByRole('button', { name: 'Apply' }).isDisabled()).toBe(true);
    expect(await form.getByRole('status').textContent()).toBe('The first day is after the last.');
    await form.getByRole('button', { name: 'All time' }).click();
    expect((await expectSummary(page, '')).total_sessions).toBe(3);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("regression (issue 27, finding 4): the start route is POST only, behind Hermes' session, and refuses another site", async () => {
    // A GET is not served (Hermes answers 404 for a method no route takes): a link cannot start anything.
    const get = await host.call('/start');
    expect([404, 405]).toContain(get.status);
    expect(await get.text()).not.toContain('running');
    expect((await fetch(`${host.url}/api/plugins/hmc/start`, { method: 'POST' })).status).toBe(401);
    expect(
      (
        await fetch(`${host.url}/api/plugins/hmc/start`, {
          method: 'POST',
          headers: { 'X-Hermes-Session-Token': 'wrong' },
        })
      ).status,
    ).toBe(401);
    const foreign = await host.call('/start', { method: 'POST', headers: { Origin: 'http://evil.test' } });
    expect(foreign.status).toBe(403);
    expect(JSON.stringify(await foreign.json())).toContain('another site');
    // Running already: answered as it is, nothing started.
    const again = await host.call('/start', { method: 'POST', headers: { Origin: host.url } });
    expect(await again.json()).toEqual({ running: true, already_running: true, url: hmc?.url });
  });

  it("regression (issue 27, finding 4): with HMC's dashboard stopped, the Start button starts it as `hermes hmc dashboard start` does", async () => {
    const { page, errors } = await open(1440, 900);
    await stop(hmc?.child);
    await page.reload();
    await page.getByTestId('hmc-error').filter({ hasText: 'not running' }).waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(REPO, 'test-results', 'hermes-tab-stopped.png') });
    await page.getByTestId('hmc-start').click();
    await page.getByTestId('hmc-tab').waitFor({ timeout: 40_000 });
    // A detached background dashboard, found by HMC's own CLI, answering the same figures.
    const url = hmcCli('dashboard', 'status', '--state-dir', host.state).trim();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(await page.getByRole('link', { name: /full dashboard/ }).getAttribute('href')).toBe(url);
    const record = JSON.parse(readFileSync(join(host.state, 'dashboard.json'), 'utf8')) as { pid: number };
    expect(record.pid).not.toBe(hmc?.child.pid);
    expect(readFileSync(join(host.state, 'dashboard.log'), 'utf8')).toContain('hmc dashboard');
    if (hmc) hmc.url = url;
    await expectSummary(page, '');
    // Idempotent: a second start answers the same dashboard.
    expect(await (await host.call('/start', { method: 'POST' })).json()).toEqual({
      running: true,
      already_running: true,
      url,
    });
    expect((JSON.parse(readFileSync(join(host.state, 'dashboard.json'), 'utf8')) as { pid: number }).pid).toBe(
      record.pid,
    );
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);
});
