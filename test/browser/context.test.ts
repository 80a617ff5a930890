/**
 * "Where the context goes" on a session's page in real Chromium (issue 24, part 5): a real engine
 * takes a request with 28 tool schemas (one named like markup) and saves its session file; the
 * API answers the breakdown the engine answers to `hmc_control context`, the page shows its parts,
 * every tool schema and the advice; at 390 px no table is cut without the scroll cue. Screenshots
 * at 1440 and 390 px go to test-results/screenshots/context-*.png.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ensureBuilt, HAS_CHROMIUM, launch, openLive, seed, type Seeded } from './harness.js';
import { Engine } from '../../src/engine/engine.js';
import { assistantCall, config, longLog, terminal, toolResult, user } from '../helpers/conversation.js';
import { fmtTokens } from '../../web/src/format.js';
import { contextResponse, sessionsResponse } from '../../web/src/schema.js';
import type { Message } from '../../src/core/message.js';

const SHOTS = resolve(import.meta.dirname, '..', '..', 'test-results', 'screenshots');
const EVIL = '<img src=x onerror=alert(1)>';
const NAMES = [
  'terminal',
  'process',
  'read_file',
  'write_file',
  'patch',
  'search_files',
  'web_search',
  'web_extract',
  'browser_navigate',
  'browser_snapshot',
  'browser_click',
  'browser_type',
  'browser_scroll',
  'browser_back',
  'browser_press',
  'browser_get_images',
  'browser_vision',
  'vision_analyze',
  'image_generate',
  'text_to_speech',
  'todo',
  'skills_list',
  'skill_view',
  'skill_manage',
  'session_search',
  'delegate_task',
  EVIL,
  'hmc_control',
];
const TOOLS = NAMES.map((name, i) => ({
  type: 'function',
  function: {
    name,
    description: `Does ${name}. `.repeat(4 + (i % 9) * 6),
    parameters: {
      type: 'object',
      properties: { arg: { type: 'string', description: 'the argument' } },
      required: ['arg'],
    },
  },
}));

function conversation(): Message[] {
  const out: Message[] = [user('fix the build and tell me why it failed')];
  for (let i = 0; i < 5; i++)
    out.push(
      assistantCall(`c${i}`, 'terminal', { command: `make step${i}` }),
      toolResult(`c${i}`, 'terminal', terminal(longLog(300, 100 + i))),
    );
  out.push({ role: 'assistant', content: 'The build passes now: a missing header.' });
  return out;
}

/** The card as the page lays it out, from the full page (an element shot scrolls it under the sticky header). */
async function shoot(page: Page, name: string): Promise<void> {
  const clip = await page.getByTestId('context').evaluate((el) => {
    const r = el.getBoundingClientRect();
    return {
      x: Math.max(0, r.left - 8),
      y: r.top + window.scrollY - 8,
      width: Math.min(r.width + 16, document.documentElement.clientWidth),
      height: r.height + 16,
    };
  });
  await page.screenshot({ path: resolve(SHOTS, name), fullPage: true, clip });
}

describe.skipIf(!HAS_CHROMIUM)('where the context goes, in Chromium', () => {
  let browser: Browser;
  let s: Seeded;
  let id = '';
  let bare = '';
  let answered: Record<string, unknown> = {};

  beforeAll(async () => {
    await ensureBuilt();
    s = await seed();
    browser = await launch();
    mkdirSync(SHOTS, { recursive: true });
    const api: unknown = await (await fetch(`${s.dash.url}api/sessions?limit=20&sort=started_at&order=desc`)).json();
    if (!sessionsResponse(api)) throw new Error('bad API answer');
    id = api.rows[1]?.session_id ?? '';
    bare = api.rows[2]?.session_id ?? '';
    // The engine a sidecar runs, on the seeded state dir: the request, then the turn's end saves it.
    const e = new Engine({
      config: () => config(),
      stateDir: s.dir,
      sink: { emit() {}, inspect() {} } as never,
      recorder: null,
      log: () => {},
    });
    e.preModelCall({
      session_id: id,
      messages: conversation(),
      system: 'You are Hermes, a coding agent.',
      tools: TOOLS,
      context_length: 128_000,
    });
    answered = await e.control({ session_id: id, args: { action: 'context' } });
    e.onSessionEnd({ session_id: id });
    e.preToolCall({ session_id: bare, tool_name: 'terminal', tool_call_id: 'x1', args: {} });
    e.onSessionEnd({ session_id: bare });
    await e.flushSaves();
  });
  afterAll(async () => {
    await browser?.close();
    await s?.done();
  });

  it('should answer from the API the breakdown hmc_control answers, and clear errors', async () => {
    const body: unknown = await (await fetch(`${s.dash.url}api/sessions/${encodeURIComponent(id)}/context`)).json();
    if (!contextResponse(body) || !body.breakdown)
      throw new Error(`bad API answer: ${JSON.stringify(body).slice(0, 300)}`);
    const mine = answered.breakdown as { parts: unknown; tools: { name: string; tokens: number }[]; total: unknown };
    expect(body.breakdown.parts).toEqual(mine.parts);
    expect(body.breakdown.total).toEqual(mine.total);
    expect(body.breakdown.tools.map((t) => [t.name, t.tokens])).toEqual(mine.tools.map((t) => [t.name, t.tokens]));
    expect(body.breakdown.tools).toHaveLength(28);
    expect(body.breakdown.unused_tools).toContain(EVIL);
    expect(body.breakdown.unused_tools).not.toContain('terminal');
    const missing = await fetch(`${s.dash.url}api/sessions/no-such-session/context`);
    expect(missing.status).toBe(404);
    expect((await missing.text()).trim()).toBe(
      'No session with that id (HMC saves a session at the end of each turn).',
    );
    // A session the store knows but no file was saved for: no breakdown, said why (no 404 for the page to log).
    const api: unknown = await (await fetch(`${s.dash.url}api/sessions?limit=20&sort=started_at&order=desc`)).json();
    if (!sessionsResponse(api)) throw new Error('bad API answer');
    const unsaved = api.rows[3]?.session_id ?? '';
    const noFile: unknown = await (
      await fetch(`${s.dash.url}api/sessions/${encodeURIComponent(unsaved)}/context`)
    ).json();
    expect(noFile).toMatchObject({
      session_id: unsaved,
      breakdown: null,
      breakdown_note: expect.stringMatching(/no saved breakdown/),
    });
    const badDays = await fetch(`${s.dash.url}api/sessions/${encodeURIComponent(id)}/context?days=0`);
    expect(badDays.status).toBe(400);
    expect(await badDays.text()).toMatch(/days must be a whole number from 1 to 3650/);
    const none: unknown = await (await fetch(`${s.dash.url}api/sessions/${encodeURIComponent(bare)}/context`)).json();
    expect(none).toMatchObject({ session_id: bare, breakdown: null });
  });

  it('should show the parts, every tool schema and the advice at 1440 px, names as text', async () => {
    const { page, problems, dialogs } = await openLive(browser, `${s.dash.url}#/session/${encodeURIComponent(id)}`, {
      width: 1440,
      height: 900,
    });
    const card = page.getByTestId('context');
    await card.waitFor();
    const b = answered.breakdown as { total: { sent: number } };
    expect(await card.getByTestId('context-sent').textContent()).toBe(fmtTokens(b.total.sent));
    expect(await card.getByTestId('context-tools').textContent()).toBe('28');
    // The window as providers name it, one formatter with /hmc status (128,000 tokens: 128K, not 128.0K).
    expect(await card.textContent()).toContain('of the 128K window');
    expect(await card.getByTestId('context-parts').locator('tbody tr').count()).toBe(6);
    expect(await card.getByTestId('context-tool-table').locator('tbody tr').count()).toBe(28);
    const evil = card.getByTestId('context-tool-table').locator(`th[title="${EVIL}"]`);
    expect(await evil.textContent()).toBe(`${EVIL} never called`);
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    const advice = await card.getByTestId('context-advice').textContent();
    expect(advice).toMatch(
      /^Advice: tool schemas are [\d.]+ % of each request; these 26 tools were never called in 30 days/,
    );
    expect(advice).toContain('hermes tools disable <toolset>');
    await shoot(page, 'context-desktop.png');
    expect(dialogs).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('should fit at 390 px: no table cut without the scroll cue, nothing wider than the screen', async () => {
    const { page, problems } = await openLive(browser, `${s.dash.url}#/session/${encodeURIComponent(id)}`, {
      width: 390,
      height: 844,
    });
    const card = page.getByTestId('context');
    await card.waitFor();
    await page.waitForTimeout(200);
    const fits = await card.locator('table').evaluateAll((tables) =>
      tables.map((t) => {
        const box = t.parentElement as HTMLElement;
        const cue = box.parentElement?.querySelector(':scope > .scroll-cue');
        return {
          caption: t.querySelector('caption')?.textContent ?? '?',
          scrollWidth: box.scrollWidth,
          clientWidth: box.clientWidth,
          right: Math.round(Math.min(t.getBoundingClientRect().right, box.getBoundingClientRect().right)),
          cue: cue instanceof HTMLElement && cue.offsetParent !== null && cue.getBoundingClientRect().height > 0,
        };
      }),
    );
    expect(fits).toHaveLength(2);
    for (const f of fits) {
      const fit = f.scrollWidth <= f.clientWidth;
      expect(fit || f.cue, `${f.caption}: ${f.scrollWidth} px in a ${f.clientWidth} px box, no scroll cue`).toBe(true);
      if (fit) expect(f.right, `${f.caption} ends at ${f.right} px`).toBeLessThanOrEqual(390);
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shoot(page, 'context-phone.png');
    expect(problems).toEqual([]);
    await page.close();
  });
});
