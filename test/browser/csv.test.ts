/**
 * CSV downloads in real Chromium (issue 17, finding 7: CSV export from the page): each file is
 * what its table shows, row for row, with exact figures (the page's own formatting of each value
 * gives the cell's text), UTF-8 with a byte order mark, and a cell that would run as a
 * spreadsheet formula defused.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { ensureBuilt, HAS_CHROMIUM, launch, openLive, seed, type Seeded } from './harness.js';
import { openStore } from '../../src/store/index.js';
import { sampleRecords } from '../server/fake-store.js';
import { fmtDateTime, fmtTokens, shortId, shortPath } from '../../web/src/format.js';

/** A downloaded CSV file: its raw bytes' first three, and its records (RFC 4180, CRLF). */
interface Csv {
  bom: number[];
  records: string[][];
}

function parse(bytes: Buffer): Csv {
  const text = bytes.subarray(3).toString('utf8');
  const records: string[][] = [];
  let rec: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? '';
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') field += text[++i];
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      rec.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      rec.push(field);
      records.push(rec);
      rec = [];
      field = '';
      i++;
    } else field += c;
  }
  return { bom: [...bytes.subarray(0, 3)], records };
}

async function download(page: Page, button: Locator): Promise<{ name: string; csv: Csv }> {
  const [dl] = await Promise.all([page.waitForEvent('download'), button.click()]);
  const path = await dl.path();
  return { name: dl.suggestedFilename(), csv: parse(readFileSync(path)) };
}

/** The cells of a table's body rows, as text. */
function bodyRows(table: Locator): Promise<string[][]> {
  return table
    .locator('tbody tr')
    .evaluateAll((trs) => trs.map((tr) => Array.from(tr.children).map((c) => (c.textContent ?? '').trim())));
}

describe.skipIf(!HAS_CHROMIUM)('CSV downloads in Chromium', () => {
  let browser: Browser;
  let s: Seeded;
  let page: Page;
  const hostile = '=HYPERLINK("http://example.invalid","click")';

  beforeAll(async () => {
    await ensureBuilt();
    s = await seed();
    // One more recorded session whose project and model would run as formulas in a spreadsheet.
    const store = openStore(s.dbPath);
    const [base] = sampleRecords(1, Date.now() - 40 * 86_400_000);
    if (!base) throw new Error('no sample');
    store.recordSession({
      ...base,
      session_id: 'sess-formula',
      project_path: hostile,
      model: '@SUM(A1:A9)',
      platform: 'cli',
    });
    store.close();
    browser = await launch();
    ({ page } = await openLive(browser, s.dash.url, { width: 1280, height: 900 }));
    await page.getByTestId('sessions').locator('tbody tr').nth(9).waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await s?.done();
  });

  it('should download every matching session, the page shown first and in its order, with exact figures', async () => {
    const table = page.getByTestId('sessions');
    const { name, csv } = await download(
      page,
      table.getByRole('button', { name: /^Download all 15 matching sessions as CSV$/ }),
    );
    expect(name).toMatch(/^hmc-sessions-\d{4}-\d{2}-\d{2}\.csv$/);
    expect(csv.bom).toEqual([0xef, 0xbb, 0xbf]);
    const [header, ...rows] = csv.records;
    expect(header).toEqual([
      'session_id',
      'started_at',
      'project_path',
      'model',
      'turns',
      'tool_calls',
      'input_tokens',
      'saved_tokens',
      'savings_pct',
      'live',
      'state',
    ]);
    expect(rows).toHaveLength(15);
    const shown = await bodyRows(table.locator('table'));
    expect(shown).toHaveLength(10);
    shown.forEach((cells, i) => {
      const [id, started, project, model, turns, tools, input, saved, pct] = rows[i] ?? [];
      expect([
        shortId(id ?? ''),
        fmtDateTime(Date.parse(started ?? '')),
        shortPath(project ?? ''),
        model,
        turns,
        tools,
        fmtTokens(Number(input)),
        fmtTokens(Number(saved)),
        `${Number(pct).toFixed(1)}%`,
      ]).toEqual(cells.map((c) => c.replace(/\s*live$/, '')));
    });
    // The spreadsheet formula arrives as text.
    const formula = rows.find((r) => r[0] === 'sess-formula');
    expect(formula?.[2]).toBe(`'${hostile}`);
    expect(formula?.[3]).toBe("'@SUM(A1:A9)");
  });

  it("should follow the table's sort and search", async () => {
    const table = page.getByTestId('sessions');
    await table.getByRole('button', { name: 'Saved' }).click();
    await page.locator('#sess-search').fill('triage');
    await expect
      .poll(() =>
        table.getByRole('button', { name: /^Download all \d+ matching sessions as CSV$/ }).getAttribute('aria-label'),
      )
      .toBe('Download all 4 matching sessions as CSV');
    const { name, csv } = await download(
      page,
      table.getByRole('button', { name: 'Download all 4 matching sessions as CSV' }),
    );
    expect(name).toMatch(/^hmc-sessions-matching-triage-/);
    const rows = csv.records.slice(1);
    expect(rows.map((r) => r[2])).toEqual(Array(4).fill('/srv/agents/triage'));
    const saved = rows.map((r) => Number(r[7]));
    expect(saved).toEqual([...saved].sort((x, y) => y - x));
    await page.locator('#sess-search').fill('');
  });

  it('should download the projects table as shown', async () => {
    const card = page.getByTestId('projects');
    const { csv } = await download(page, card.getByRole('button', { name: 'Download Projects as CSV' }));
    const [header, ...rows] = csv.records;
    expect(header).toEqual(['project_path', 'sessions', 'input_tokens', 'saved_tokens', 'savings_pct']);
    const shown = await bodyRows(card.locator('table'));
    expect(rows.length).toBe(shown.length);
    shown.forEach((cells, i) => {
      const [path, sessions, input, saved, pct] = rows[i] ?? [];
      const shownPath = path?.startsWith("'") ? path.slice(1) : (path ?? '');
      expect([
        shortPath(shownPath),
        sessions,
        fmtTokens(Number(input)),
        fmtTokens(Number(saved)),
        `${Number(pct).toFixed(1)}%`,
      ]).toEqual(cells);
    });
  });

  it('should download the per-day, per-week and per-month tables as shown, with whole dates', async () => {
    const card = page.getByTestId('history');
    for (const [what, unit, nth] of [
      ['Input saved per day', 'day', 0],
      ['Input saved per week', 'week', 1],
      ['Input saved per month', 'month', 2],
    ] as const) {
      const { name, csv } = await download(page, card.getByRole('button', { name: `Download ${what} as CSV` }));
      expect(name).toContain(`per-${unit}`);
      const [header, ...rows] = csv.records;
      expect(header).toEqual([unit, 'saved_tokens', 'input_tokens', 'sessions']);
      const box = card.locator('details.alt').nth(nth);
      await box.locator('summary').click();
      const shown = await bodyRows(box.locator('table'));
      expect(shown.length).toBeGreaterThan(0);
      expect(rows.length).toBe(shown.length);
      shown.forEach((cells, i) => {
        const [date, saved, , sessions] = rows[i] ?? [];
        expect(date).toMatch(unit === 'month' ? /^\d{4}-\d{2}$/ : /^\d{4}-\d{2}-\d{2}$/);
        expect([unit === 'month' ? date : date?.slice(5), fmtTokens(Number(saved)), sessions]).toEqual(cells);
      });
    }
  });

  it('should download the per-strategy and per-tool lists in the scope shown', async () => {
    for (const [testid, noun] of [
      ['by-strategy', 'strategy'],
      ['by-tool', 'tool'],
    ] as const) {
      const card = page.getByTestId(testid);
      for (const scope of ['This session', 'Lifetime'] as const) {
        await card.getByRole('button', { name: scope, exact: true }).click();
        const { name, csv } = await download(page, card.getByRole('button', { name: /^Download .* as CSV$/ }));
        expect(name).toContain(scope === 'Lifetime' ? `${testid}-lifetime` : `${testid}-session-`);
        const [header, ...rows] = csv.records;
        expect(header).toEqual([noun, 'saved_tokens']);
        const shown = await card
          .locator('li.bar-row')
          .evaluateAll((lis) =>
            lis.map((li) => [
              li.querySelector('.bar-name')?.textContent ?? '',
              li.querySelector('.bar-val')?.textContent ?? '',
            ]),
          );
        expect(shown.length).toBeGreaterThan(0);
        expect(rows.map(([n, v]) => [n, fmtTokens(Number(v))])).toEqual(shown);
      }
    }
  });
});
