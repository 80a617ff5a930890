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
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ensureBuilt, HAS_CHROMIUM, launch } from '../test/browser/harness.js';
import { fmtTokens } from '../web/src/format.js';

const REPO = resolve(import.meta.dirname, '..');
const HMC = join(REPO, 'bin', 'hmc.js');

interface Manifest {
  hermes: string;
  state_dir: string;
  sessions: { session_id: string; mode: 'q' | 'interactive'; turns: string[]; tools: string[][] }[];
}
interface TurnEv { type: 'turn'; id: string; session_id: string; turn: number; delta_saved: number; cumulative_saved: number; input_tokens: { raw: number; hmc: number } }
interface ToolEv { type: 'tool'; id: string; session_id: string; turn: number; tool_name: string; tokens_before: number; inspect_id?: string; strategies: string[] }
interface EndEv { type: 'session_end' | 'session_idle'; id: string; session_id: string; total_saved: number; turns: number }
type Ev = TurnEv | ToolEv | EndEv;
type Json = Record<string, unknown>;

const problems: string[] = [];
function check(ok: boolean, what: string): void {
  if (!ok) problems.push(what);
}

function args(): { run: string; shots: string; keep: boolean } {
  const a = process.argv.slice(2);
  const value = (name: string): string | undefined => {
    const i = a.indexOf(name);
    return i >= 0 ? a[i + 1] : undefined;
  };
  const run = value('--run');
  if (!run) throw new Error('usage: real-session-shots.ts --run DIR [--shots OUT] [--keep]');
  return { run: resolve(run), shots: resolve(value('--shots') ?? join(run, 'screenshots')), keep: a.includes('--keep') };
}

/** Every event the sidecars wrote, oldest first (the ground truth the dashboard tails). */
function stateEvents(stateDir: string): Ev[] {
  const dir = join(stateDir, 'events');
  const out: (Ev & { time: number })[] = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.jsonl'))) {
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) {
      if (line.trim()) out.push(JSON.parse(line) as Ev & { time: number });
    }
  }
  return out.sort((a, b) => a.time - b.time || a.id.localeCompare(b.id));
}

/** Per session: turn → delta_saved of its turn event (a turn reported twice must agree). */
function turnDeltas(events: Ev[], session: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const e of events) {
    if (e.type !== 'turn' || e.session_id !== session) continue;
    const seen = out.get(e.turn);
    check(seen === undefined || seen === e.delta_saved, `session ${session} turn ${e.turn}: two turn events disagree (${seen} vs ${e.delta_saved})`);
    out.set(e.turn, e.delta_saved);
  }
  return out;
}

async function api(url: string, path: string): Promise<Json> {
  const res = await fetch(new URL(path, url));
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return (await res.json()) as Json;
}

function dashboard(word: 'start' | 'stop', stateDir: string, config: string): string {
  return execFileSync(process.execPath, [HMC, 'dashboard', word, '--state-dir', stateDir, ...(word === 'start' ? ['--port', '0', '--config', config] : [])], { encoding: 'utf8' }).trim();
}

/** The per-turn chart and table inside `scope`: [turn, table text, bar title, bar height]. */
async function turnChart(page: Page, scope: string): Promise<{ turn: number; table: string; title: string; height: number }[]> {
  return page.locator(scope).evaluate((root) => {
    const chart = Array.from(root.querySelectorAll('h3')).find((h) => h.textContent === 'Input saved per turn')?.parentElement;
    if (!chart) return [];
    const rows = Array.from(chart.querySelectorAll('tbody tr')).map((tr) => [tr.querySelector('th')?.textContent ?? '', tr.querySelector('td')?.textContent ?? '']);
    const bars = Array.from(chart.querySelectorAll('rect.col')).map((r) => ({ title: r.querySelector('title')?.textContent ?? '', height: Number(r.getAttribute('height')) }));
    return rows.map(([turn, table], i) => ({ turn: Number(turn), table: table ?? '', title: bars[i]?.title ?? '', height: bars[i]?.height ?? -1 }));
  });
}

/** Checks one session's per-turn figures on the page against the turn events; returns table rows. */
function compareTurns(label: string, session: string, shown: Awaited<ReturnType<typeof turnChart>>, events: Map<number, number>, api: Map<number, number>, stored: Map<number, number>): string[] {
  const rows: string[] = [];
  const peak = Math.max(...events.values());
  const peakHeight = Math.max(...shown.map((s) => s.height));
  check(shown.length === events.size, `${label}: the page shows ${shown.length} turns, the events ${events.size}`);
  for (const [turn, delta] of [...events].sort((a, b) => a[0] - b[0])) {
    const s = shown.find((x) => x.turn === turn);
    const want = fmtTokens(delta);
    check(api.get(turn) === delta, `${label} turn ${turn}: /api says ${api.get(turn)}, the turn event ${delta}`);
    check(stored.get(turn) === delta, `${label} turn ${turn}: the stored timeline says ${stored.get(turn)}, the turn event ${delta}`);
    check(s?.table === want, `${label} turn ${turn}: the page's table says ${s?.table}, the turn event ${want}`);
    check(s?.title === `T${turn}: ${want}`, `${label} turn ${turn}: the bar's title is ${s?.title}`);
    // Bars share one scale: each is the tallest one's height times its share of the peak.
    const height = s ? s.height : -1;
    check(Math.abs(height - (peakHeight * delta) / peak) < 0.5, `${label} turn ${turn}: bar ${height.toFixed(1)} px, expected ${((peakHeight * delta) / peak).toFixed(1)}`);
    rows.push(`| ${shortId(session)} | ${label === 'current card' ? label : 'drill-down'} | ${turn} | ${delta} | ${api.get(turn)} | ${stored.get(turn)} | ${s?.table ?? '-'} | ${height.toFixed(1)} |`);
  }
  return rows;
}

function shortId(id: string): string {
  return id.length > 10 ? id.slice(-6) : id;
}

async function main(): Promise<void> {
  const opts = args();
  if (!HAS_CHROMIUM) throw new Error('/usr/bin/chromium is missing (apt-get install chromium)');
  await ensureBuilt();
  const run = JSON.parse(readFileSync(join(opts.run, 'sessions.json'), 'utf8')) as Manifest;
  const stateDir = run.state_dir;
  const events = stateEvents(stateDir);
  const url = dashboard('start', stateDir, join(opts.run, 'hmc-config.yaml')).split('\n').find((l) => l.startsWith('http')) ?? '';
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
    if (opts.keep) process.stdout.write(`dashboard left running at ${url} (hmc dashboard stop --state-dir ${stateDir})\n`);
    else dashboard('stop', stateDir, '');
  }
  if (problems.length > 0) {
    process.stderr.write(`real-session: ${problems.length} check(s) failed:\n${problems.map((p) => `  - ${p}`).join('\n')}\n`);
    process.exitCode = 1;
  } else process.stdout.write('all checks passed\n');
}

async function verify(browser: Browser, url: string, run: Manifest, events: Ev[]): Promise<string[]> {
  const summary = await api(url, '/api/summary');
  const analytics = await api(url, '/api/analytics');
  const listed = (await api(url, '/api/sessions?limit=50')).rows as Json[];
  const cli = JSON.parse(execFileSync(process.execPath, [HMC, 'analytics', '--state-dir', run.state_dir, '--json'], { encoding: 'utf8' })) as Json;
  const recent = (JSON.parse(execFileSync(process.execPath, [HMC, 'analytics', '--state-dir', run.state_dir, '--period', 'recent', '--json'], { encoding: 'utf8' })) as Json).rows as Json[];
  const main = run.sessions[run.sessions.length - 1]?.session_id ?? '';
  const report = ['| session | page view | turn | turn event delta_saved | /api live point | /api/sessions/:id timeline | page table | bar px |', '|---|---|---|---|---|---|---|---|'];

  // Idle, everywhere: every Hermes process exited (-q runs, /quit) and none finished a session
  // (issue 17, finding 4: a process exit is not the session's end).
  const live = summary.sessions as Json[];
  for (const s of run.sessions) {
    check(live.find((x) => x.session_id === s.session_id)?.state === 'idle', `/api/summary: session ${s.session_id} is not idle`);
    check(listed.find((x) => x.session_id === s.session_id)?.state === 'idle', `/api/sessions: session ${s.session_id} is not idle`);
    check(events.some((e) => e.type === 'session_idle' && e.session_id === s.session_id), `no session_idle event for ${s.session_id}`);
    check(!events.some((e) => e.type === 'session_end' && e.session_id === s.session_id), `a session_end event for ${s.session_id}, which was never finished`);
  }
  const current = summary.current as Json;
  check(current.session_id === main && current.state === 'idle', `/api/summary current is ${String(current.session_id)} (state: ${String(current.state)}), expected ${main}, idle`);

  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    await page.goto(url);
    await page.getByTestId('conn').filter({ hasText: 'Live' }).waitFor();
    await page.getByTestId('sessions').locator('tbody tr').nth(run.sessions.length - 1).waitFor();
    await page.getByTestId('life-sessions').filter({ hasText: String(run.sessions.length) }).waitFor();
    check(await page.locator('.pill.live').count() === 0, 'the page shows a "live" pill');
    check((await page.getByTestId('current').getByTestId('state').textContent()) === 'idle', 'the current session card does not say "idle"');

    // The main session: the current card's per-turn chart.
    const lastEv = [...events].reverse().find((e): e is TurnEv => e.type === 'turn' && e.session_id === main);
    check((await page.getByTestId('cur-saved').textContent()) === fmtTokens(lastEv?.cumulative_saved), 'current card: saved differs from the last turn event');
    check(current.saved === lastEv?.cumulative_saved, `/api/summary current saved ${String(current.saved)} ≠ last turn event ${lastEv?.cumulative_saved}`);
    const points = (s: Json | undefined): Map<number, number> => new Map(((s?.points ?? []) as Json[]).map((p) => [Number(p.turn), Number(p.delta_saved)]));
    for (const s of run.sessions) {
      const detail = await api(url, `/api/sessions/${encodeURIComponent(s.session_id)}`);
      const stored = new Map((((detail.session as Json | null)?.timeline ?? []) as Json[]).map((p) => [Number(p.turn), Number(p.input_raw) - Number(p.input_hmc)]));
      const deltas = turnDeltas(events, s.session_id);
      check(deltas.size === s.turns.length, `session ${s.session_id}: ${deltas.size} turn events for ${s.turns.length} turns`);
      const total = [...deltas.values()].reduce((a, b) => a + b, 0);
      const row = listed.find((x) => x.session_id === s.session_id);
      const cliRow = recent.find((x) => x.session_id === s.session_id);
      check(row?.saved === total, `session ${s.session_id}: /api/sessions saved ${String(row?.saved)} ≠ the sum of its turns ${total}`);
      check(cliRow?.saved_tokens === total, `session ${s.session_id}: hmc analytics saved ${String(cliRow?.saved_tokens)} ≠ the sum of its turns ${total}`);
      if (s.session_id === main) report.push(...compareTurns('current card', s.session_id, await turnChart(page, '[data-testid="turns"]'), deltas, points(current), stored));
      // Every session's drill-down (the stored timeline).
      await page.getByRole('button', { name: `Open session ${s.session_id}` }).click();
      await page.getByTestId('detail').locator('.detail-charts rect.col').first().waitFor();
      report.push(...compareTurns(`session ${s.session_id}`, s.session_id, await turnChart(page, '[data-testid="detail"] .detail-charts'), deltas, points(detail.live as Json | undefined), stored));
      check((await page.getByTestId('detail').locator('.stat .v').first().textContent()) === fmtTokens(total), `session ${s.session_id}: the drill-down's saved is not ${fmtTokens(total)}`);
      await page.getByTestId('detail').getByRole('button', { name: 'Close' }).click();
    }

    // Lifetime: page = /api/analytics = hmc analytics = the sum of the sessions.
    const sum = run.sessions.reduce((a, s) => a + [...turnDeltas(events, s.session_id).values()].reduce((x, y) => x + y, 0), 0);
    check(analytics.total_saved === sum && cli.total_saved === sum, `lifetime saved: /api ${String(analytics.total_saved)}, cli ${String(cli.total_saved)}, sum of turns ${sum}`);
    check(analytics.total_input === cli.total_input && analytics.total_sent === cli.total_sent, 'lifetime input/sent: /api and hmc analytics differ');
    check(analytics.savings_pct === cli.savings_pct, `savings %: /api ${String(analytics.savings_pct)}, cli ${String(cli.savings_pct)}`);
    check((await page.getByTestId('life-saved').textContent()) === fmtTokens(sum), 'the lifetime card\'s saved differs');
    check((await page.getByTestId('life-pct').textContent()) === `${Number(analytics.savings_pct).toFixed(1)}%`, 'the lifetime card\'s % differs');
    check(JSON.stringify(analytics.by_strategy) === JSON.stringify(cli.by_strategy), 'by strategy: /api and hmc analytics differ');
    report.push(...moneyChecks(await api(url, '/api/models')));
    report.push('', `lifetime: saved ${sum} of ${String(analytics.total_input)} input (${String(analytics.savings_pct)} %), /api = hmc analytics = page (${await page.getByTestId('life-saved').textContent()}); by strategy ${JSON.stringify(analytics.by_strategy)}`);
  } finally {
    await page.close();
  }
  return report;
}

/**
 * Money with the prompt cache (issue 24): every model's input has cached figures, and its cost
 * without HMC is priced with them (cache reads at the read price), never every token at the write
 * price as before; the cost saved the page shows is that model's. Returns the report's lines.
 */
function moneyChecks(models: Json): string[] {
  const rows = (models.models ?? []) as Json[];
  const lines: string[] = [];
  check(rows.length > 0, '/api/models lists no model');
  for (const m of rows) {
    const price = m.price as Json;
    const cost = m.cost as Json;
    const input = Number(m.input);
    const cached = Number(m.cached_input);
    const allWritten = (input * Number(price.cache_write)) / 1e6;
    check(cached > 0 && cached <= input, `${String(m.model)}: cached_input ${cached} of ${input} input (no cache figures)`);
    check(Number(cost.without_hmc) < allWritten, `${String(m.model)}: cost without HMC ${String(cost.without_hmc)} is not below every token at the write price (${allWritten.toFixed(4)})`);
    lines.push(`money, ${String(m.model)} (price source ${String(price.source)}${price.unknown_model ? ', unknown model' : ''}): input ${input} (cached ${cached}), sent ${String(m.sent)} (cached ${String(m.cached_sent)}); without HMC ${String(cost.without_hmc)}, with HMC ${String(cost.spent)}, saved ${String(cost.saved)} ${String(m.currency)} (every token at the write price: ${allWritten.toFixed(4)})`);
  }
  return lines;
}

/** The main session's first terminal result (the failing test run) and its biggest read, as tool events. */
function inspected(run: Manifest, events: Ev[]): { terminal: ToolEv; read: ToolEv } {
  const main = run.sessions[run.sessions.length - 1]?.session_id;
  const tools = events.filter((e): e is ToolEv => e.type === 'tool' && e.session_id === main && e.inspect_id !== undefined);
  const terminal = tools.find((e) => e.tool_name === 'terminal');
  // The biggest read: src/engine/engine.ts.
  const read = tools.filter((e) => e.tool_name === 'read_file').sort((a, b) => b.tokens_before - a.tokens_before)[0];
  if (!terminal || !read) throw new Error('the main session has no inspectable terminal or read_file result');
  return { terminal, read };
}

async function openInspector(page: Page, ev: ToolEv): Promise<void> {
  await page.locator(`li[data-event-id="${ev.id}"]`).getByRole('button', { name: `Inspect the output of ${ev.tool_name}` }).click();
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
    for (const [name, viewport] of [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]] as const) {
      const page = await browser.newPage({ viewport, colorScheme: scheme, deviceScaleFactor: 1, reducedMotion: 'reduce' });
      await page.goto(url);
      await page.getByTestId('conn').filter({ hasText: 'Live' }).waitFor();
      await page.getByTestId('sessions').locator('tbody tr').nth(run.sessions.length - 1).waitFor();
      await page.getByTestId('life-sessions').filter({ hasText: String(run.sessions.length) }).waitFor();
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
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, reducedMotion: 'reduce' });
  try {
    await page.goto(url);
    await page.getByTestId('conn').filter({ hasText: 'Live' }).waitFor();
    for (const [ev, name] of [[terminal, 'terminal'], [read, 'read-file']] as const) {
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
  process.stderr.write(`real-session: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exitCode = 1;
});
