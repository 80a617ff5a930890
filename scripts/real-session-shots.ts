/**
 * The dashboard over a real Hermes run (scripts/real-session.py made it): serves the run's state
 * dir with `hmc dashboard start` (the shared background dashboard, as a user starts it), checks
 * that the figures agree and takes the screenshots.
 *
 * Checks (any failure: exit 1, each named): every session idle (its Hermes processes exited; none
 * was finished by `/new`), on the page and in /api; each
 * turn's saving is the same in the turn events (state dir), /api/summary's points, the stored
 * timeline (/api/sessions/:id), the page's per-turn table and the height of its bar; the session
 * and lifetime totals agree between the page, /api/analytics and `hmc analytics --json`.
 * Screenshots: the dashboard light and dark at desktop (1280×800) and phone (390×844) width, full
 * page, with the inspector open on the main session's first `terminal` result; the main session's
 * drill-down (its context card and the provider's figures beside HMC's, money with the prompt
 * cache) in the same four views; the inspector alone on that result and on its `read_file` of
 * src/engine/engine.ts.
 *
 * Run: `npx tsx scripts/real-session-shots.ts --run DIR --shots OUT [--keep]` (real-session.py
 * calls it). Invariant: reads the run, writes only OUT; the dashboard is stopped unless --keep.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ensureBuilt, HAS_CHROMIUM, launch } from '../test/browser/harness.js';
import { fmtTokens } from '../web/src/format.js';
import {
  api,
  check,
  compareTurns,
  type Ev,
  type Json,
  type Manifest,
  moneyChecks,
  problems,
  stateEvents,
  type ToolEv,
  turnChart,
  turnDeltas,
  type TurnEv,
} from './real-session-checks.js';

const REPO = resolve(import.meta.dirname, '..');
const HMC = join(REPO, 'bin', 'hmc.js');

function args(): { run: string; shots: string; keep: boolean } {
  const a = process.argv.slice(2);
  const value = (name: string): string | undefined => {
    const i = a.indexOf(name);
    return i >= 0 ? a[i + 1] : undefined;
  };
  const run = value('--run');
  if (!run) throw new Error('usage: real-session-shots.ts --run DIR [--shots OUT] [--keep]');
  return {
    run: resolve(run),
    shots: resolve(value('--shots') ?? join(run, 'screenshots')),
    keep: a.includes('--keep'),
  };
}

function dashboard(word: 'start' | 'stop', stateDir: string, config: string): string {
  return execFileSync(
    process.execPath,
    [HMC, 'dashboard', word, '--state-dir', stateDir, ...(word === 'start' ? ['--port', '0', '--config', config] : [])],
    { encoding: 'utf8' },
  ).trim();
}

async function main(): Promise<void> {
  const opts = args();
  if (!HAS_CHROMIUM) throw new Error('/usr/bin/chromium is missing (apt-get install chromium)');
  await ensureBuilt();
  const run = JSON.parse(readFileSync(join(opts.run, 'sessions.json'), 'utf8')) as Manifest;
  const stateDir = run.state_dir;
  const events = stateEvents(stateDir);
  const url =
    dashboard('start', stateDir, join(opts.run, 'hmc-config.yaml'))
      .split('\n')
      .find((l) => l.startsWith('http')) ?? '';
  if (!url) throw new Error('hmc dashboard start printed no URL');
  let browser: Browser | null = null;
  try {
    browser = await launch();
    const report = await verify(browser, url, run, events);
    mkdirSync(opts.shots, { recursive: true });
    const files = await screenshots(browser, url, run, events, opts.shots);
    process.stdout.write(`${report.join('\n')}\n\nscreenshots:\n${files.join('\n')}\n`);
  } finally {
    await browser?.close();
    if (opts.keep)
      process.stdout.write(`dashboard left running at ${url} (hmc dashboard stop --state-dir ${stateDir})\n`);
    else dashboard('stop', stateDir, '');
  }
  if (problems.length > 0) {
    process.stderr.write(
      `real-session: ${problems.length} check(s) failed:\n${problems.map((p) => `  - ${p}`).join('\n')}\n`,
    );
    process.exitCode = 1;
  } else process.stdout.write('all checks passed\n');
}

async function verify(browser: Browser, url: string, run: Manifest, events: Ev[]): Promise<string[]> {
  const summary = await api(url, '/api/summary');
  const analytics = await api(url, '/api/analytics');
  const listed = (await api(url, '/api/sessions?limit=50')).rows as Json[];
  const cli = JSON.parse(
    execFileSync(process.execPath, [HMC, 'analytics', '--state-dir', run.state_dir, '--json'], { encoding: 'utf8' }),
  ) as Json;
  const recent = (
    JSON.parse(
      execFileSync(process.execPath, [HMC, 'analytics', '--state-dir', run.state_dir, '--period', 'recent', '--json'], {
        encoding: 'utf8',
      }),
    ) as Json
  ).rows as Json[];
  const main = run.sessions[run.sessions.length - 1]?.session_id ?? '';
  const report = [
    '| session | page view | turn | turn event delta_saved | /api live point | /api/sessions/:id timeline | page table | bar px |',
    '|---|---|---|---|---|---|---|---|',
  ];

  // Idle, everywhere: every Hermes process exited (-q runs, /quit) and none finished a session
  // (issue 17, finding 4: a process exit is not the session's end).
  const live = summary.sessions as Json[];
  for (const s of run.sessions) {
    check(
      live.find((x) => x.session_id === s.session_id)?.state === 'idle',
      `/api/summary: session ${s.session_id} is not idle`,
    );
    check(
      listed.find((x) => x.session_id === s.session_id)?.state === 'idle',
      `/api/sessions: session ${s.session_id} is not idle`,
    );
    check(
      events.some((e) => e.type === 'session_idle' && e.session_id === s.session_id),
      `no session_idle event for ${s.session_id}`,
    );
    check(
      !events.some((e) => e.type === 'session_end' && e.session_id === s.session_id),
      `a session_end event for ${s.session_id}, which was never finished`,
    );
  }
  const current = summary.current as Json;
  check(
    current.session_id === main && current.state === 'idle',
    `/api/summary current is ${String(current.session_id)} (state: ${String(current.state)}), expected ${main}, idle`,
  );

  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    await page.goto(url);
    await page.getByTestId('conn').filter({ hasText: 'Live' }).waitFor();
    await page
      .getByTestId('sessions')
      .locator('tbody tr')
      .nth(run.sessions.length - 1)
      .waitFor();
    await page
      .getByTestId('life-sessions')
      .filter({ hasText: String(run.sessions.length) })
      .waitFor();
    check((await page.locator('.pill.live').count()) === 0, 'the page shows a "live" pill');
    check(
      (await page.getByTestId('current').getByTestId('state').textContent()) === 'idle',
      'the current session card does not say "idle"',
    );

    // The main session: the current card's per-turn chart.
    const lastEv = [...events].reverse().find((e): e is TurnEv => e.type === 'turn' && e.session_id === main);
    check(
      (await page.getByTestId('cur-saved').textContent()) === fmtTokens(lastEv?.cumulative_saved),
      'current card: saved differs from the last turn event',
    );
    check(
      current.saved === lastEv?.cumulative_saved,
      `/api/summary current saved ${String(current.saved)} ≠ last turn event ${lastEv?.cumulative_saved}`,
    );
    const points = (s: Json | undefined): Map<number, number> =>
      new Map(((s?.points ?? []) as Json[]).map((p) => [Number(p.turn), Number(p.delta_saved)]));
    for (const s of run.sessions) {
      const detail = await api(url, `/api/sessions/${encodeURIComponent(s.session_id)}`);
      const stored = new Map(
        (((detail.session as Json | null)?.timeline ?? []) as Json[]).map((p) => [
          Number(p.turn),
          Number(p.input_raw) - Number(p.input_hmc),
        ]),
      );
      const deltas = turnDeltas(events, s.session_id);
      check(
        deltas.size === s.turns.length,
        `session ${s.session_id}: ${deltas.size} turn events for ${s.turns.length} turns`,
      );
      const total = [...deltas.values()].reduce((a, b) => a + b, 0);
      const row = listed.find((x) => x.session_id === s.session_id);
      const cliRow = recent.find((x) => x.session_id === s.session_id);
      check(
        row?.saved === total,
        `session ${s.session_id}: /api/sessions saved ${String(row?.saved)} ≠ the sum of its turns ${total}`,
      );
      check(
        cliRow?.saved_tokens === total,
        `session ${s.session_id}: hmc analytics saved ${String(cliRow?.saved_tokens)} ≠ the sum of its turns ${total}`,
      );
      if (s.session_id === main)
        report.push(
          ...compareTurns(
            'current card',
            s.session_id,
            await turnChart(page, '[data-testid="turns"]'),
            deltas,
            points(current),
            stored,
          ),
        );
      // Every session's drill-down (the stored timeline).
      await page.getByRole('button', { name: `Open session ${s.session_id}` }).click();
      await page.getByTestId('detail').locator('.detail-charts rect.col').first().waitFor();
      report.push(
        ...compareTurns(
          `session ${s.session_id}`,
          s.session_id,
          await turnChart(page, '[data-testid="detail"] .detail-charts'),
          deltas,
          points(detail.live as Json | undefined),
          stored,
        ),
      );
      check(
        (await page.getByTestId('detail').locator('.stat .v').first().textContent()) === fmtTokens(total),
        `session ${s.session_id}: the drill-down's saved is not ${fmtTokens(total)}`,
      );
      await page.getByTestId('detail').getByRole('button', { name: 'Close' }).click();
    }

    // Lifetime: page = /api/analytics = hmc analytics = the sum of the sessions.
    const sum = run.sessions.reduce(
      (a, s) => a + [...turnDeltas(events, s.session_id).values()].reduce((x, y) => x + y, 0),
      0,
    );
    check(
      analytics.total_saved === sum && cli.total_saved === sum,
      `lifetime saved: /api ${String(analytics.total_saved)}, cli ${String(cli.total_saved)}, sum of turns ${sum}`,
    );
    check(
      analytics.total_input === cli.total_input && analytics.total_sent === cli.total_sent,
      'lifetime input/sent: /api and hmc analytics differ',
    );
    check(
      analytics.savings_pct === cli.savings_pct,
      `savings %: /api ${String(analytics.savings_pct)}, cli ${String(cli.savings_pct)}`,
    );
    check((await page.getByTestId('life-saved').textContent()) === fmtTokens(sum), "the lifetime card's saved differs");
    check(
      (await page.getByTestId('life-pct').textContent()) === `${Number(analytics.savings_pct).toFixed(1)}%`,
      "the lifetime card's % differs",
    );
    check(
      JSON.stringify(analytics.by_strategy) === JSON.stringify(cli.by_strategy),
      'by strategy: /api and hmc analytics differ',
    );
    report.push(...moneyChecks(await api(url, '/api/models')));
    report.push(
      '',
      `lifetime: saved ${sum} of ${String(analytics.total_input)} input (${String(analytics.savings_pct)} %), /api = hmc analytics = page (${await page.getByTestId('life-saved').textContent()}); by strategy ${JSON.stringify(analytics.by_strategy)}`,
    );
  } finally {
    await page.close();
  }
  return report;
}

/** The main session's first terminal result (the failing test run) and its biggest read, as tool events. */
function inspected(run: Manifest, events: Ev[]): { terminal: ToolEv; read: ToolEv } {
  const main = run.sessions[run.sessions.length - 1]?.session_id;
  const tools = events.filter(
    (e): e is ToolEv => e.type === 'tool' && e.session_id === main && e.inspect_id !== undefined,
  );
  const terminal = tools.find((e) => e.tool_name === 'terminal');
  // The biggest read: src/engine/engine.ts.
  const read = tools.filter((e) => e.tool_name === 'read_file').sort((a, b) => b.tokens_before - a.tokens_before)[0];
  if (!terminal || !read) throw new Error('the main session has no inspectable terminal or read_file result');
  return { terminal, read };
}

async function openInspector(page: Page, ev: ToolEv): Promise<void> {
  await page
    .locator(`li[data-event-id="${ev.id}"]`)
    .getByRole('button', { name: `Inspect the output of ${ev.tool_name}` })
    .click();
  await page.getByTestId('envelope').waitFor();
  await page.getByTestId('diff').waitFor();
  // The diff scrolls inside its box: bring its first change up, two lines of context above it.
  await page.getByTestId('diff').evaluate((pre) => {
    const first = pre.querySelector('.ln.del, .ln.add, .ln.fold');
    const above = first?.previousElementSibling?.previousElementSibling ?? first;
    if (above instanceof HTMLElement && pre instanceof HTMLElement) pre.scrollTop = above.offsetTop - pre.offsetTop;
  });
}

/** Opens a session's drill-down and waits for its context card and the Provider vs HMC card. */
async function openDetail(page: Page, session: string): Promise<void> {
  await page.getByRole('button', { name: `Open session ${session}` }).click();
  const detail = page.getByTestId('detail');
  await detail.getByTestId('context').waitFor();
  await detail.getByTestId('reconcile').waitFor();
  await page.waitForTimeout(300);
}

async function screenshots(browser: Browser, url: string, run: Manifest, events: Ev[], out: string): Promise<string[]> {
  const { terminal, read } = inspected(run, events);
  const main = run.sessions[run.sessions.length - 1]?.session_id ?? '';
  const written: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    for (const [name, viewport] of [
      ['desktop', { width: 1280, height: 800 }],
      ['phone', { width: 390, height: 844 }],
    ] as const) {
      const page = await browser.newPage({
        viewport,
        colorScheme: scheme,
        deviceScaleFactor: 1,
        reducedMotion: 'reduce',
      });
      await page.goto(url);
      await page.getByTestId('conn').filter({ hasText: 'Live' }).waitFor();
      await page
        .getByTestId('sessions')
        .locator('tbody tr')
        .nth(run.sessions.length - 1)
        .waitFor();
      await page
        .getByTestId('life-sessions')
        .filter({ hasText: String(run.sessions.length) })
        .waitFor();
      await openInspector(page, terminal);
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.waitForTimeout(300);
      const file = join(out, `dashboard-${scheme}-${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      written.push(file);
      // The main session's drill-down: its context card and the provider's figures beside HMC's.
      const detail = join(out, `session-${scheme}-${name}.png`);
      await openDetail(page, main);
      // Clipped from the full page, so the sticky header does not cover the card's top.
      const clip = await page.getByTestId('detail').evaluate((el) => {
        const r = el.getBoundingClientRect();
        return { x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height };
      });
      await page.screenshot({ path: detail, fullPage: true, clip });
      written.push(detail);
      await page.close();
    }
  }
  const page = await browser.newPage({
    viewport: { width: 1280, height: 800 },
    deviceScaleFactor: 1,
    reducedMotion: 'reduce',
  });
  try {
    await page.goto(url);
    await page.getByTestId('conn').filter({ hasText: 'Live' }).waitFor();
    for (const [ev, name] of [
      [terminal, 'terminal'],
      [read, 'read-file'],
    ] as const) {
      await openInspector(page, ev);
      const file = join(out, `inspector-${name}.png`);
      await page.getByTestId('inspector').screenshot({ path: file });
      written.push(file);
    }
  } finally {
    await page.close();
  }
  return written;
}

main().catch((err: unknown) => {
  process.stderr.write(`real-session: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
