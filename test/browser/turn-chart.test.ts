/**
 * The "Context used per turn" chart in real Chromium (issue 27, finding 6): its dashed line
 * carries a visible label inside the chart, clear of the axis labels and the plot's edges, at
 * desktop and phone width, and the chart's accessible name says what the line is; the card's
 * window reads as providers name it ("of 128K", not "of 128.0K"). Screenshots of the chart go to
 * test-results/screenshots/turn-chart-*.png to look at.
 * The line is where the session's layer 1 summarises, as its turn events say (issue 24: it was a
 * fixed "80%: HMC summarises by here" while layer 1 fires at 40 % with Hermes' default threshold);
 * a session whose events do not say gets no line, not a wrong one.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { ensureBuilt, HAS_CHROMIUM, launch, openLive, seed, type Seeded } from './harness.js';
import { sampleRecords } from '../server/fake-store.js';

const SHOTS = resolve(import.meta.dirname, '..', '..', 'test-results', 'screenshots');

describe.skipIf(!HAS_CHROMIUM)("the turn chart's summarise line", () => {
  let browser: Browser;
  let s: Seeded;
  beforeAll(async () => {
    await ensureBuilt();
    s = await seed();
    browser = await launch();
    mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await s?.done();
  });

  for (const [name, viewport] of [
    ['desktop', { width: 1440, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    it(`${name}: the line is labelled on the chart and in its accessible name`, async () => {
      const { page, problems } = await openLive(browser, s.dash.url, viewport);
      const chart = page.getByRole('img', { name: /^Context used per turn/ });
      await chart.waitFor();
      const label = chart.locator('text.limit-label');
      await expect.poll(() => label.count()).toBe(1);
      // The seeded session's turn events: summarise_at 0.4, the host's threshold 0.5.
      expect(await label.textContent()).toBe('40%: HMC summarises from here');
      expect(await chart.getAttribute('aria-label')).toContain(
        'A dashed line marks 40% of the window: past this context use HMC summarises older turns',
      );
      expect(await chart.locator('desc').textContent()).toContain("of the host's own compression threshold, 50%");
      const y = (v: string | null): number => Number(v);
      const [lineY, top, bottom] = await chart.evaluate((svg) => {
        const grid = Array.from(svg.querySelectorAll('line.grid')).map((l) => Number(l.getAttribute('y1')));
        return [
          svg.querySelector('line.limit')?.getAttribute('y1') ?? null,
          String(Math.min(...grid)),
          String(Math.max(...grid)),
        ];
      });
      // 40 % of the way up the 0-100 % axis.
      expect(y(lineY)).toBeCloseTo(y(bottom) - 0.4 * (y(bottom) - y(top)), 1);
      // Inside the chart, right of the value axis' labels, just above its dashed line.
      const geo = await chart.evaluate((svg) => {
        const box = (el: Element | null) => el?.getBoundingClientRect() ?? null;
        const axis = Array.from(svg.querySelectorAll('text.axis'))
          .map((t) => t.getBoundingClientRect())
          .filter((r) => r.left < svg.getBoundingClientRect().left + 60);
        return {
          svg: box(svg),
          label: box(svg.querySelector('text.limit-label')),
          line: box(svg.querySelector('line.limit')),
          axisRight: Math.max(...axis.map((r) => r.right)),
        };
      });
      if (!geo.svg || !geo.label || !geo.line) throw new Error('chart parts missing');
      expect(geo.label.width).toBeGreaterThan(60);
      expect(geo.label.left).toBeGreaterThan(geo.axisRight);
      expect(geo.label.right).toBeLessThanOrEqual(geo.svg.right + 0.5);
      expect(geo.label.top).toBeGreaterThanOrEqual(geo.svg.top);
      expect(geo.label.bottom).toBeLessThanOrEqual(geo.line.top + 2);
      expect(geo.line.top - geo.label.bottom).toBeLessThan(12);
      // Legible: at least 10 px tall on screen at either width.
      expect(geo.label.height).toBeGreaterThanOrEqual(10);
      await chart.screenshot({ path: resolve(SHOTS, `turn-chart-${name}.png`) });
      expect(await page.getByText(/context tokens of 128K$/).count()).toBe(1);
      expect(problems).toEqual([]);
      await page.close();
    });
  }

  it('a stored session whose events never said where layer 1 summarises: no line, and no 80 % claimed', async () => {
    const id = sampleRecords(14)[0]?.session_id ?? '';
    const { page, problems } = await openLive(browser, `${s.dash.url}#/session/${encodeURIComponent(id)}`, {
      width: 1440,
      height: 900,
    });
    const chart = page.getByTestId('detail').getByRole('img', { name: /^Context used per turn/ });
    await chart.waitFor();
    expect(await chart.locator('line.limit').count()).toBe(0);
    expect(await chart.getAttribute('aria-label')).not.toContain('80%');
    expect(problems).toEqual([]);
    await page.close();
  });
});
