/**
 * The session state badge in real Chromium (issue 17, finding 4): the current session reads live,
 * idle when its process let it go (a `hermes chat -q` run ended), live again when it resumes, and
 * ended only when it is finished; the event log says "session idle" and "session ended" apart; a
 * session's page (deep link) shows its state from the API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { EventPayload } from '../../src/events/types.js';
import { ensureBuilt, HAS_CHROMIUM, launch, LIVE_SESSION, openLive, seed, type Seeded } from './harness.js';
import { turnPayload } from '../server/helpers.js';

function left(type: 'session_idle' | 'session_end'): EventPayload {
  return {
    type,
    session_id: LIVE_SESSION,
    turns: 7,
    tool_calls: 11,
    total_saved: 20_000,
    by_strategy: { truncation: 20_000 },
    by_tool: { terminal: 20_000 },
    input_tokens: { raw: 60_000, hmc: 40_000 },
  };
}

describe.skipIf(!HAS_CHROMIUM)('session state badge in Chromium', () => {
  let browser: Browser;
  let s: Seeded;
  let page: Page;
  let problems: string[] = [];

  beforeAll(async () => {
    await ensureBuilt();
    s = await seed();
    browser = await launch();
    ({ page, problems } = await openLive(browser, s.dash.url, { width: 1280, height: 800 }));
  });
  afterAll(async () => {
    await browser?.close();
    await s?.done();
  });

  const badge = () => page.getByTestId('current').getByTestId('state').textContent();

  it('reads live, idle after a process exit, live again on resume, ended at a real end', async () => {
    await page.getByTestId('cur-saved').waitFor();
    expect(await badge()).toBe('live');
    s.sink.emit(left('session_idle'));
    await expect.poll(badge).toBe('idle');
    await page.getByTestId('log').getByText('session idle').waitFor();
    expect(await page.getByTestId('log').getByText('session ended').count()).toBe(0);
    s.sink.emit(turnPayload(LIVE_SESSION, 7, 20_000));
    await expect.poll(badge).toBe('live');
    s.sink.emit(left('session_end'));
    await expect.poll(badge).toBe('ended');
    await page.getByTestId('log').getByText('session ended').waitFor();
    expect(problems).toEqual([]);
  });

  it('shows a session\u2019s state on its own page', async () => {
    await page.goto(`${s.dash.url}#/session/${encodeURIComponent(LIVE_SESSION)}`);
    await expect.poll(() => page.getByTestId('detail').getByTestId('state').textContent()).toBe('ended');
    expect(problems).toEqual([]);
  });
});
