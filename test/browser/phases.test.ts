/**
 * The session index panel in real Chromium against the built page, a real server, a real SQLite
 * file and live events: the current session's phases with their summaries, a phase arriving as an
 * event and then stored, search by a word of a summary (this session and all), and a topic with
 * markup shown as text.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/db.js';
import { phase } from '../store/fixtures/phases.js';
import { ensureBuilt, HAS_CHROMIUM, launch, LIVE_SESSION, openLive, seed, type Seeded } from './harness.js';

describe.skipIf(!HAS_CHROMIUM)('session index panel in Chromium', () => {
  let browser: Browser;
  let s: Seeded;
  let page: Page;
  let problems: string[] = [];
  let dialogs: string[] = [];

  beforeAll(async () => {
    await ensureBuilt();
    s = await seed();
    browser = await launch();
    ({ page, problems, dialogs } = await openLive(browser, s.dash.url, { width: 1280, height: 900 }));
  });
  afterAll(async () => {
    await browser?.close();
    await s?.done();
  });

  const panel = () => page.getByTestId('phases');
  const record = (...entries: Parameters<typeof phase>[0][]) => {
    const store = openStore(s.dbPath);
    store.recordPhases(entries.map(phase));
    store.close();
  };

  it('should list the current session\u2019s phases from the SQLite file, oldest first, with the summary behind a disclosure', async () => {
    await expect.poll(() => panel().locator('ol.phases > li').count()).toBe(2);
    const items = panel().locator('ol.phases > li');
    expect(await items.locator('.phase-topic').allTextContents()).toEqual([
      'Set up the build and run the test suite',
      'Fix the flaky retention tests',
    ]);
    const first = items.first();
    expect(await first.locator('.phase-meta').textContent()).toContain('turns 1–2');
    expect(await first.locator('.phase-meta').textContent()).toContain('18.2K → 1.3K tokens');
    expect(await first.locator('.phase-meta').textContent()).toContain('16.9K saved');
    expect(await first.locator('code').textContent()).toBe('p7c1e0a92b4');
    expect(await first.locator('.phase-summary').isVisible()).toBe(false);
    await first.locator('summary').click();
    await expect.poll(() => first.locator('.phase-summary').isVisible()).toBe(true);
    expect(await first.locator('.phase-summary').textContent()).toContain('412 of 415 tests pass');
    expect(await panel().locator('.card-head .hint').textContent()).toContain('2 phases');
    // The events that announced them are in the live log too.
    expect(await page.getByTestId('log').locator('.kind.phase').count()).toBeGreaterThanOrEqual(2);
    expect(problems).toEqual([]);
  });

  it('should show a phase from its live event at once, then its stored summary', async () => {
    s.sink.emit({
      type: 'phase',
      session_id: LIVE_SESSION,
      phase_id: 3,
      topic: 'Write the release notes',
      turn_from: 5,
      turn_to: 6,
      tokens_before: 9000,
      tokens_after: 700,
      recall_id: 'p3333333333',
      updated: false,
    });
    const third = panel().locator('li[data-phase-id="3"]');
    await third.locator('.phase-topic').filter({ hasText: 'Write the release notes' }).waitFor({ timeout: 2000 });
    record({
      session_id: LIVE_SESSION,
      phase_id: 3,
      topic: 'Write the release notes',
      turn_from: 5,
      turn_to: 6,
      tokens_before: 9000,
      tokens_after: 700,
      recall_id: 'p3333333333',
      summary:
        '## Goal\nWrite the release notes for 0.2.\n\n## Progress\n- Drafted CHANGELOG entries for the zeppelin feature.',
    });
    await third.locator('summary').click();
    await third.locator('.phase-summary').filter({ hasText: 'zeppelin feature' }).waitFor({ timeout: 4000 });
  });

  it('should find a phase by a word of its summary, in this session and across sessions', async () => {
    const box = page.locator('#phase-q');
    await box.fill('deterministic');
    const hits = panel().locator('ol.phases > li.hit');
    await expect.poll(() => hits.count()).toBe(1);
    expect(await hits.first().getAttribute('data-phase-id')).toBe('2');
    expect(await hits.first().locator('mark').allTextContents()).toEqual(['deterministic']);
    // Opening a hit fetches its whole summary.
    await hits.first().locator('summary').click();
    await hits.first().locator('.phase-summary').filter({ hasText: 'All 415 tests pass' }).waitFor();
    // A word of another session's summary: nothing here, found across sessions.
    await box.fill('webhook signing');
    await panel().getByText('No phase matches.').waitFor();
    await panel().getByRole('button', { name: 'All sessions' }).click();
    await expect.poll(() => hits.count()).toBe(1);
    expect(await hits.first().locator('.phase-topic').textContent()).toBe('Migrate the payments webhook');
    expect(await hits.first().locator('mark').allTextContents()).toEqual(['webhook', 'signing']);
    await panel().getByRole('button', { name: 'This session' }).click();
    await box.fill('');
    await expect.poll(() => panel().locator('ol.phases > li:not(.hit)').count()).toBe(3);
  });

  it('should show a phase topic and summary holding markup as text, with no dialog', async () => {
    const evil = '<img src=x onerror=alert(1)> Fix <b>bold</b> parsing';
    record({
      session_id: LIVE_SESSION,
      phase_id: 4,
      topic: evil,
      turn_from: 7,
      turn_to: 7,
      summary: '<script>alert(2)</script> kept as text',
    });
    s.sink.emit({
      type: 'phase',
      session_id: LIVE_SESSION,
      phase_id: 4,
      topic: evil,
      turn_from: 7,
      turn_to: 7,
      tokens_before: 5000,
      tokens_after: 400,
      recall_id: 'p4444444444',
      updated: false,
    });
    const fourth = panel().locator('li[data-phase-id="4"]');
    await fourth.locator('.phase-topic').filter({ hasText: evil }).waitFor({ timeout: 3000 });
    await fourth.locator('summary').click();
    await fourth
      .locator('.phase-summary')
      .filter({ hasText: '<script>alert(2)</script> kept as text' })
      .waitFor({ timeout: 4000 });
    await page.locator('#phase-q').fill('parsing');
    await panel().locator('li.hit .phase-topic').filter({ hasText: evil }).waitFor();
    expect(await page.locator('img').count()).toBe(0);
    expect(await panel().locator('.phase-topic *, .phase-summary *').count()).toBe(0);
    await page.waitForTimeout(200);
    expect(dialogs).toEqual([]);
    expect(problems).toEqual([]);
  });
});
