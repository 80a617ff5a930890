/**
 * The dashboard in real Chromium against the built page (web/dist), a real server and store.
 * Skips with a message when /usr/bin/chromium is missing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ensureBuilt, HAS_CHROMIUM, launch, LIVE_SESSION, openLive, seed, type Seeded } from './harness.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { config, engine, longLog, readFile, terminal } from '../helpers/conversation.js';
import { toolPayload, turnPayload } from '../server/helpers.js';
import { fmtMoney, fmtTokens } from '../../web/src/format.js';
import { analyticsResponse, summaryResponse } from '../../web/src/schema.js';

if (!HAS_CHROMIUM)
  console.warn('test/browser: /usr/bin/chromium is missing (apt-get install chromium); skipping the browser tests');

describe.skipIf(!HAS_CHROMIUM)('dashboard page in Chromium', () => {
  let browser: Browser;
  let s: Seeded;
  let page: Page;
  let problems: string[] = [];
  let dialogs: string[] = [];

  beforeAll(async () => {
    await ensureBuilt();
    s = await seed();
    browser = await launch();
    ({ page, problems, dialogs } = await openLive(browser, s.dash.url, { width: 1280, height: 800 }));
  });
  afterAll(async () => {
    await browser?.close();
    await s?.done();
  });

  it('should load with no console errors and show the seeded session', async () => {
    await page.getByTestId('cur-saved').waitFor();
    await page.getByTestId('sessions').locator('tbody tr').first().waitFor();
    expect(await page.title()).toBe('HMC Dashboard');
    expect(problems).toEqual([]);
  });

  it('should show the same figures as the API', async () => {
    const api = async (path: string): Promise<unknown> =>
      (await fetch(`${s.dash.url.replace(/\/$/, '')}${path}`)).json();
    const a = await api('/api/analytics');
    const summary = await api('/api/summary');
    // The page's own guards: the test reads the API exactly as the page does, without casts.
    if (!analyticsResponse(a) || !summaryResponse(summary) || !summary.current) throw new Error('bad API answer');
    const cur = summary.current;
    expect(a.total_sessions).toBe(14);
    await expect.poll(() => page.getByTestId('life-saved').textContent()).toBe(fmtTokens(a.total_saved));
    expect(await page.getByTestId('life-sessions').textContent()).toBe(String(a.total_sessions));
    expect(await page.getByTestId('life-pct').textContent()).toBe(`${a.savings_pct.toFixed(1)}%`);
    expect(await page.getByTestId('life-cost').textContent()).toBe(
      fmtMoney(a.estimated_cost_saved.amount, a.estimated_cost_saved.currency),
    );
    expect(await page.getByTestId('cur-saved').textContent()).toBe(fmtTokens(cur.saved));
    expect(await page.getByTestId('cur-turns').textContent()).toBe(String(cur.turns));
    expect(await page.getByTestId('cur-tools').textContent()).toBe(String(cur.tool_calls));
    expect(await page.getByTestId('cur-model').textContent()).toBe(cur.model);
    await expect.poll(() => page.getByTestId('sessions').locator('tbody tr').count()).toBe(10);
  });

  it('should show an event emitted through the sink within one second', async () => {
    const t0 = Date.now();
    s.sink.emit(toolPayload(LIVE_SESSION, 6, 'fresh_tool_marker', { cumulative_saved: 999_999 }));
    await page.getByTestId('log').getByText('fresh_tool_marker').waitFor({ timeout: 1000 });
    const took = Date.now() - t0;
    expect(took).toBeLessThan(1000);
    await expect.poll(() => page.getByTestId('cur-saved').textContent(), { timeout: 1000 }).toBe(fmtTokens(999_999));
  });

  it('should open the inspector with before and after when a tool event is clicked', async () => {
    await page
      .getByTestId('log')
      .getByRole('button', { name: /Inspect the output of terminal/ })
      .first()
      .click();
    const diff = page.getByTestId('diff');
    await diff.waitFor();
    expect(await diff.locator('.ln.del').count()).toBeGreaterThan(0);
    expect(await diff.locator('.ln.add').count()).toBe(1);
    expect(await diff.locator('.ln.add').textContent()).toContain('lines omitted');
    await page.getByTestId('inspector').getByRole('button', { name: 'Before' }).click();
    expect(await diff.textContent()).toContain('line 12: compiling module 11');
    await page.getByTestId('inspector').getByRole('button', { name: 'After' }).click();
    expect(await diff.textContent()).not.toContain('line 12: compiling module 11');
  });

  it('should diff the text inside Hermes terminal and read_file envelopes, line by line', async () => {
    // Real envelopes through the real engine, into the page's own feed (issue 9 item 7).
    const e = engine(config(), s.sink);
    const log = longLog(300, 150);
    const source = readFileSync(join(import.meta.dirname, '..', '..', 'src', 'engine', 'engine.ts'), 'utf8').split(
      '\n',
    );
    expect(
      e.postToolCall({
        session_id: 'envelope-s1',
        tool_name: 'terminal',
        args: { command: 'npm run build' },
        result: terminal(log),
        tool_call_id: 'env_t',
      }),
    ).toHaveProperty('replace');
    expect(
      e.postToolCall({
        session_id: 'envelope-s1',
        tool_name: 'read_file',
        args: { path: 'src/engine/engine.ts' },
        result: readFile(source),
        tool_call_id: 'env_r',
      }),
    ).toHaveProperty('replace');
    e.settle();
    const inspector = page.getByTestId('inspector');
    const diff = page.getByTestId('diff');
    const row = (tool: string) =>
      page
        .getByTestId('log')
        .locator('li', { hasText: 'envelope-s1' })
        .getByRole('button', { name: `Inspect the output of ${tool}` });

    await row('terminal').click();
    await inspector.getByTestId('envelope').waitFor();
    await inspector.getByRole('button', { name: 'Diff' }).click();
    // The log's "... ok" chatter collapses to its first and last line around the failure (repetition.ts).
    await expect.poll(() => diff.locator('.ln.keep:not(.fold)').count()).toBeGreaterThan(2);
    const kept = await diff.locator('.ln.keep:not(.fold)').allTextContents();
    const removed = await diff.locator('.ln.del:not(.fold)').allTextContents();
    // Real log lines, unescaped: no JSON quoting, no \n escapes, the failure line kept.
    expect(kept).toContain('[0] compiling module 0 of 300... ok');
    expect(kept).toContain('src/app.ts:42:7 - error TS2322: Type string is not assignable to type number.');
    expect(removed.length).toBeGreaterThan(5);
    expect(removed.some((l) => l.includes('compiling module') && !l.includes('\\n') && !l.includes('"output"'))).toBe(
      true,
    );
    expect(await diff.textContent()).not.toContain('\\n');
    const envelope = inspector.getByTestId('envelope');
    expect(await envelope.textContent()).toContain('output');
    expect(await envelope.locator('dt').allTextContents()).toEqual(['exit_code', 'error']);
    expect(await envelope.locator('dd').allTextContents()).toEqual(['0', 'null']);
    await inspector.getByRole('button', { name: 'Before' }).click();
    expect(await diff.locator('.ln').count()).toBe(300);
    await inspector.getByRole('button', { name: 'Diff' }).click();

    await row('read_file').click();
    await expect.poll(() => inspector.getByTestId('envelope').textContent()).toContain('content');
    const fileKept = await diff.locator('.ln.keep:not(.fold)').allTextContents();
    // read_file lines keep their N| gutters, one per line, as the model reads them.
    expect(fileKept[0]).toBe(`1|${source[0]}`);
    expect(fileKept.every((l) => /^\d+\|/.test(l))).toBe(true);
    expect(await diff.locator('.ln.del:not(.fold)').count()).toBeGreaterThan(0);
    expect(await inspector.getByTestId('envelope').locator('dt').allTextContents()).toEqual([
      'total_lines',
      'file_size',
      'truncated',
    ]);
    expect(problems).toEqual([]);
  });

  it('should render a hostile tool name as text, with no dialog', async () => {
    const evil = '<img src=x onerror=alert(1)>';
    s.sink.emit(toolPayload(LIVE_SESSION, 6, evil, { is_error: true }));
    await page.getByTestId('log').getByText(evil, { exact: true }).first().waitFor({ timeout: 2000 });
    expect(await page.locator('img').count()).toBe(0);
    await page.waitForTimeout(200);
    expect(dialogs).toEqual([]);
  });

  it('should sort and filter the sessions table on the server and open a drill-down', async () => {
    const table = page.getByTestId('sessions');
    await table.getByRole('button', { name: 'Saved' }).click();
    await expect.poll(() => table.locator('th[aria-sort="descending"]').textContent()).toContain('Saved');
    await page.locator('#sess-search').fill('website');
    await expect.poll(() => table.locator('tbody tr').count()).toBeLessThan(10);
    await table.locator('tbody tr').first().getByRole('button').click();
    const detail = page.getByTestId('detail');
    await detail.getByRole('heading', { name: 'Context used per turn' }).waitFor();
    expect(await detail.locator('svg.chart').count()).toBe(2);
    expect(await detail.getByRole('heading', { name: 'By strategy' }).count()).toBe(1);
  });

  it('should survive the server stopping and starting again, and show new events', async () => {
    await s.dash.stop();
    await page
      .getByTestId('conn')
      .filter({ hasText: /Reconnecting|Offline/ })
      .waitFor({ timeout: 5000 });
    await s.restart();
    await page.getByTestId('conn').filter({ hasText: 'Live' }).waitFor({ timeout: 15000 });
    s.sink.emit(turnPayload(LIVE_SESSION, 7, 1_000_001, { model: 'claude-sonnet-4' }));
    await page.getByTestId('log').getByText('turn 7').waitFor({ timeout: 2000 });
    // The emitting side restarting: a new process (new source file) is picked up by the tail.
    const { createStateDirSink } = await import('../../src/events/state-dir-sink.js');
    const other = createStateDirSink({
      stateDir: s.dir,
      source: 'sidecar-restarted',
      inspector: false,
      log: () => undefined,
    });
    other.emit(toolPayload(LIVE_SESSION, 7, 'after_restart_tool'));
    await page.getByTestId('log').getByText('after_restart_tool').waitFor({ timeout: 5000 });
    await other.close();
    expect(problems.filter((p) => !/ERR_CONNECTION_REFUSED|Failed to load resource|EventSource/.test(p))).toEqual([]);
  });
});

describe.skipIf(!HAS_CHROMIUM)('dashboard page at phone width and for keyboard users', () => {
  let browser: Browser;
  let s: Seeded;
  beforeAll(async () => {
    await ensureBuilt();
    s = await seed();
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await s?.done();
  });

  it('should not scroll sideways at 375 px (tables scroll inside their card)', async () => {
    const page = await browser.newPage({ viewport: { width: 375, height: 812 } });
    await page.goto(s.dash.url);
    await page.getByTestId('sessions').locator('tbody tr').first().waitFor();
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await page.close();
  });

  it('should give every button an accessible name and switch themes with the toggle', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
    await page.goto(s.dash.url);
    await page.getByTestId('sessions').locator('tbody tr').first().waitFor();
    const unnamed = await page.evaluate(`[...document.querySelectorAll('button')]
      .filter((b) => !(b.getAttribute('aria-label') || b.textContent || '').trim()).length`);
    expect(unnamed).toBe(0);
    expect(await page.locator('main').count()).toBe(1);
    expect(await page.locator('header').count()).toBeGreaterThan(0);
    const toggle = page.getByRole('button', { name: /^Theme:/ });
    const theme = (): Promise<unknown> => page.evaluate('document.documentElement.getAttribute("data-theme")');
    await toggle.click();
    await expect.poll(theme).toBe('light');
    await toggle.click();
    await expect.poll(theme).toBe('dark');
    await expect.poll(() => page.evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(13, 17, 23)');
    await page.reload();
    await page.getByTestId('sessions').locator('tbody tr').first().waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement && document.activeElement.textContent')).toContain(
      'Skip to the figures',
    );
    await page.close();
  });
});
