/**
 * Deep links in real Chromium (issue 17, finding 7: a URL per session and per view): opening a
 * session or an inspected output puts it in the address; the address opens it again after a
 * reload or in a new tab; back and forward walk through what was opened; a link can be copied
 * from the page; an unknown id says "No such session" and an id holding markup stays text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ensureBuilt, HAS_CHROMIUM, launch, LIVE_SESSION, openLive, seed, type Seeded } from './harness.js';
import { fmtTokens } from '../../web/src/format.js';
import { sessionsResponse, type SessionRow } from '../../web/src/schema.js';

describe.skipIf(!HAS_CHROMIUM)('deep links in Chromium', () => {
  let browser: Browser;
  let s: Seeded;
  let rows: SessionRow[] = [];

  beforeAll(async () => {
    await ensureBuilt();
    s = await seed();
    browser = await launch();
    const api = await (await fetch(`${s.dash.url}api/sessions?limit=20&sort=started_at&order=desc`)).json();
    if (!sessionsResponse(api)) throw new Error('bad API answer');
    rows = api.rows;
  });
  afterAll(async () => {
    await browser?.close();
    await s?.done();
  });

  const row = (i: number): SessionRow => {
    const r = rows[i];
    if (!r) throw new Error(`no session ${i}`);
    return r;
  };
  const hash = (page: Page): Promise<string> => page.evaluate(() => window.location.hash);
  const detailId = (page: Page): Promise<string | null> => page.getByTestId('detail').locator('h2 .id').textContent();

  it('should put an opened session in the address and open it again after a reload', async () => {
    const { page, problems } = await openLive(browser, s.dash.url, { width: 1280, height: 900 });
    const a = row(1);
    await page.getByRole('button', { name: `Open session ${a.session_id}` }).click();
    await expect.poll(() => hash(page)).toBe(`#/session/${encodeURIComponent(a.session_id)}`);
    await expect.poll(() => detailId(page)).toBe(a.session_id);
    await page.reload();
    await expect.poll(() => detailId(page)).toBe(a.session_id);
    // The right session: its own figures, from the API.
    await expect
      .poll(() => page.getByTestId('detail').locator('.stat .v').first().textContent())
      .toBe(fmtTokens(a.saved));
    // Focus is on its heading, which is in view.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('detail-h');
    expect(await page.getByTestId('detail').locator('h2').isVisible()).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('should open a session from a link pasted into a new tab, and walk back and forward', async () => {
    const [a, b] = [row(2), row(3)];
    const { page, problems } = await openLive(browser, `${s.dash.url}#/session/${encodeURIComponent(a.session_id)}`, {
      width: 1280,
      height: 900,
    });
    await expect.poll(() => detailId(page)).toBe(a.session_id);
    await page.getByRole('button', { name: `Open session ${b.session_id}` }).click();
    await expect.poll(() => detailId(page)).toBe(b.session_id);
    await page.getByTestId('detail').getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => page.getByTestId('detail').count()).toBe(0);
    expect(await hash(page)).toBe('#/');
    // Close hands focus back to the row the session was opened from.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
      `Open session ${b.session_id}`,
    );
    await page.goBack();
    await expect.poll(() => detailId(page)).toBe(b.session_id);
    await page.goBack();
    await expect.poll(() => detailId(page)).toBe(a.session_id);
    await page.goForward();
    await expect.poll(() => detailId(page)).toBe(b.session_id);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('should say "no such session" for an unknown id, and show an id holding markup as text', async () => {
    const { page, problems, dialogs } = await openLive(browser, `${s.dash.url}#/session/no-such-session-42`, {
      width: 1280,
      height: 900,
    });
    await expect.poll(() => page.getByTestId('no-session').textContent()).toContain('No such session');
    expect(await page.getByTestId('no-session').locator('code').textContent()).toBe('no-such-session-42');
    const evil = '<img src=x onerror=alert(1)>"\'';
    await page.goto(`${s.dash.url}#/session/${encodeURIComponent(evil)}`);
    await expect.poll(() => page.getByTestId('no-session').locator('code').textContent()).toBe(evil);
    expect(await page.getByTestId('detail').locator('h2 .id').textContent()).toBe(evil);
    expect(await page.locator('img').count()).toBe(0);
    await page.waitForTimeout(200);
    expect(dialogs).toEqual([]);
    // The 404 of the unknown id is the only console line (Chromium logs failed fetches).
    expect(problems.filter((p) => !/404/.test(p))).toEqual([]);
    await page.close();
  });

  it('should refuse a link it cannot read, saying why, and keep the page working', async () => {
    const { page } = await openLive(browser, `${s.dash.url}#/session/%E0%A4%A`, { width: 1280, height: 900 });
    await expect.poll(() => page.getByTestId('bad-link').textContent()).toContain('not correctly encoded');
    await page.goto(`${s.dash.url}#/view/nowhere`);
    await expect.poll(() => page.getByTestId('bad-link').textContent()).toContain('no view called “nowhere”');
    await page.getByTestId('bad-link').getByRole('link', { name: 'Show the overview' }).click();
    await expect.poll(() => page.getByTestId('bad-link').count()).toBe(0);
    await page.close();
  });

  it("should bring a view's card into view from its link, and every card has its link", async () => {
    const { page } = await openLive(browser, `${s.dash.url}#/view/projects`, { width: 1280, height: 900 });
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('proj-h');
    await expect
      .poll(async () => {
        const box = await page.locator('#proj-h').boundingBox();
        return box !== null && box.y >= 0 && box.y < 900;
      })
      .toBe(true);
    const links = await page.locator('a.view-link').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    for (const view of [
      'current',
      'lifetime',
      'strategies',
      'tools',
      'turns',
      'phases',
      'events',
      'inspector',
      'range',
      'history',
      'models',
      'outputs',
      'work',
      'sessions',
      'projects',
    ]) {
      expect(links).toContain(`#/view/${view}`);
    }
    await page.getByRole('link', { name: 'Link to the History card' }).click();
    await expect.poll(() => hash(page)).toBe('#/view/history');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('hist-h');
    await page.close();
  });

  it('should keep the project filter in the address', async () => {
    const { page } = await openLive(browser, s.dash.url, { width: 1280, height: 900 });
    await page.getByTestId('projects').getByRole('button', { name: '…/src/website' }).click();
    await expect.poll(() => hash(page)).toBe(`#/?project=${encodeURIComponent('/home/ada/src/website')}`);
    await page.reload();
    await expect.poll(() => page.locator('#sess-project').inputValue()).toBe('/home/ada/src/website');
    await expect
      .poll(
        async () =>
          new Set(
            await page
              .getByTestId('sessions')
              .locator('tbody td:nth-child(3) [title]')
              .evaluateAll((els) => els.map((e) => e.getAttribute('title'))),
          ),
      )
      .toEqual(new Set(['/home/ada/src/website']));
    await page.close();
  });

  it('should open an inspected output from its link, after a reload too', async () => {
    const { page } = await openLive(browser, s.dash.url, { width: 1280, height: 900 });
    await page
      .getByTestId('log')
      .getByRole('button', { name: /Inspect the output of terminal/ })
      .first()
      .click();
    await page.getByTestId('diff').waitFor();
    const h = await hash(page);
    expect(h).toMatch(/^#\/inspect\//);
    expect(decodeURIComponent(h.slice('#/inspect/'.length))).toMatch(new RegExp(`^${LIVE_SESSION}:call_`));
    await page.reload();
    await page.getByTestId('diff').waitFor();
    expect(await page.getByTestId('inspector').locator('h2').textContent()).toContain('terminal');
    await page.goto(`${s.dash.url}#/inspect/${encodeURIComponent(`${LIVE_SESSION}:nope`)}`);
    await expect.poll(() => page.getByTestId('no-output').textContent()).toContain('No such output');
    await page.close();
  });

  it("should copy a session's link to the clipboard", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: s.dash.url.replace(/\/$/, '') });
    const page = await context.newPage();
    const a = row(4);
    await page.goto(`${s.dash.url}#/session/${encodeURIComponent(a.session_id)}`);
    await page.getByRole('button', { name: `Copy the link to session ${a.session_id}` }).click();
    await page.getByTestId('detail').getByText('Link copied.').waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(`${s.dash.url}#/session/${encodeURIComponent(a.session_id)}`);
    // The copied link opens that session.
    const other = await context.newPage();
    await other.goto(copied);
    await expect.poll(() => detailId(other)).toBe(a.session_id);
    await context.close();
  });
});
