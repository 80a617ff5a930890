/**
 * Screenshots from seeded data (fixtures, not a real session): the dashboard in light and dark,
 * at desktop (1440×900) and phone (390×844) width, full page, with the inspector open, and the
 * inspector alone on a Hermes `terminal` and `read_file` result compressed by the real engine, go
 * to test-results/screenshots/ (not committed: to look at a page change with a live session and
 * many sessions); the session index panel in light and dark, one phase open and then a search,
 * goes to docs/screenshots/phases-*.png (the docs show it). The README's dashboard and inspector
 * images are a real Hermes session's: scripts/real-session.py (docs/dashboard.md).
 * Run: `npx vite build web && npx tsx test/browser/screenshots.ts`.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { config, engine, longLog, readFile, terminal } from '../helpers/conversation.js';
import { ensureBuilt, HAS_CHROMIUM, launch, seed, type Seeded } from './harness.js';

const OUT = resolve(import.meta.dirname, '..', '..', 'docs', 'screenshots');
/** Fixture views of what docs/screenshots shows from a real session: never over those files. */
const FIXTURE_OUT = resolve(import.meta.dirname, '..', '..', 'test-results', 'screenshots');

export async function takeScreenshots(): Promise<string[]> {
  if (!HAS_CHROMIUM) throw new Error('/usr/bin/chromium is missing (apt-get install chromium)');
  await ensureBuilt();
  mkdirSync(OUT, { recursive: true });
  mkdirSync(FIXTURE_OUT, { recursive: true });
  const s = await seed();
  const browser = await launch();
  const written: string[] = [];
  try {
    for (const scheme of ['light', 'dark'] as const) {
      for (const [name, viewport] of [
        ['desktop', { width: 1440, height: 900 }],
        ['phone', { width: 390, height: 844 }],
      ] as const) {
        const page = await browser.newPage({
          viewport,
          colorScheme: scheme,
          deviceScaleFactor: 1,
          reducedMotion: 'reduce',
        });
        await page.goto(s.dash.url);
        await page.getByTestId('conn').filter({ hasText: 'Live' }).waitFor();
        await page.getByTestId('sessions').locator('tbody tr').first().waitFor();
        await page
          .getByTestId('log')
          .getByRole('button', { name: /Inspect the output of terminal/ })
          .first()
          .click();
        await page.getByTestId('diff').waitFor();
        await page.getByTestId('phases').locator('ol.phases > li summary').last().click();
        await page.mouse.wheel(0, -100_000);
        await page.waitForTimeout(300);
        const file = join(FIXTURE_OUT, `dashboard-${scheme}-${name}.png`);
        await page.screenshot({ path: file, fullPage: true });
        written.push(file);
        await page.close();
      }
    }
    // Before the inspector shots: their engine's session becomes the current one.
    written.push(...(await phaseShots(browser, s)));
    written.push(...(await inspectorShots(browser, s)));
  } finally {
    await browser.close();
    await s.done();
  }
  return written;
}

/** The inspector on Hermes envelopes: a build log and a source file read, through the real engine. */
async function inspectorShots(browser: Browser, s: Seeded): Promise<string[]> {
  const e = engine(config(), s.sink);
  const source = readFileSync(resolve(import.meta.dirname, '..', '..', 'src', 'engine', 'engine.ts'), 'utf8').split(
    '\n',
  );
  e.postToolCall({
    session_id: 'hermes-shot',
    tool_name: 'terminal',
    args: { command: 'npm run build' },
    result: terminal(longLog(300, 150), 0),
    tool_call_id: 'shot_t',
  });
  e.postToolCall({
    session_id: 'hermes-shot',
    tool_name: 'read_file',
    args: { path: 'src/engine/engine.ts' },
    result: readFile(source),
    tool_call_id: 'shot_r',
  });
  e.settle();
  const written: string[] = [];
  const page = await browser.newPage({
    viewport: { width: 1280, height: 800 },
    deviceScaleFactor: 1,
    reducedMotion: 'reduce',
  });
  try {
    await page.goto(s.dash.url);
    await page.getByTestId('conn').filter({ hasText: 'Live' }).waitFor();
    for (const [tool, name] of [
      ['terminal', 'terminal'],
      ['read_file', 'read-file'],
    ] as const) {
      await page
        .getByTestId('log')
        .locator('li', { hasText: 'hermes-shot' })
        .getByRole('button', { name: `Inspect the output of ${tool}` })
        .click();
      await page.getByTestId('envelope').waitFor();
      const file = join(FIXTURE_OUT, `inspector-${name}.png`);
      await page.getByTestId('inspector').screenshot({ path: file });
      written.push(file);
    }
  } finally {
    await page.close();
  }
  return written;
}

/** The session index panel alone: a phase open, then a search across sessions, light and dark. */
async function phaseShots(browser: Browser, s: Seeded): Promise<string[]> {
  const written: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    const page = await browser.newPage({
      viewport: { width: 1280, height: 800 },
      colorScheme: scheme,
      deviceScaleFactor: 1,
      reducedMotion: 'reduce',
    });
    try {
      await page.goto(s.dash.url);
      const panel = page.getByTestId('phases');
      await panel.locator('ol.phases > li').nth(1).waitFor();
      await panel.locator('ol.phases > li summary').first().click();
      await panel.locator('.phase-summary').first().waitFor();
      let file = join(OUT, `phases-${scheme}.png`);
      await panel.screenshot({ path: file });
      written.push(file);
      await page.locator('#phase-q').fill('tests');
      await panel.getByRole('button', { name: 'All sessions' }).click();
      await panel.locator('li.hit').first().waitFor();
      file = join(OUT, `phases-search-${scheme}.png`);
      await panel.screenshot({ path: file });
      written.push(file);
    } finally {
      await page.close();
    }
  }
  return written;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  takeScreenshots().then(
    (files) => {
      for (const f of files) process.stdout.write(`${f}\n`);
    },
    (err: unknown) => {
      process.stderr.write(`screenshots: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
