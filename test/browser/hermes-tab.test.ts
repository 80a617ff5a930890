/**
 * HMC's tab in Hermes' own web dashboard (issue 17, finding 7), in a real Hermes 0.19 and real
 * Chromium: `hermes dashboard` finds dashboard/manifest.json in the plugin's folder, mounts
 * dashboard/plugin_api.py, loads the built dashboard/dist/index.js, and the tab shows the figures
 * HMC's own dashboard answers (found through <HERMES_HOME>/hmc_state/dashboard.json); with HMC's
 * dashboard stopped, the tab says so instead of showing zeros.
 *
 * Needs a Hermes venv: the first of $HMC_HERMES_PYTHON, else the default one under
 * ~/.cache/hmc/hermes-venvs (skipped when neither exists).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { HAS_CHROMIUM, launch } from './harness.js';
import { openStore } from '../../src/store/index.js';
import { rec } from '../store/fixtures/five.js';
import { fmtMoney, fmtTokens } from '../../dashboard/src/format.js';

const REPO = resolve(import.meta.dirname, '..', '..');
const PYTHON = (process.env.HMC_HERMES_PYTHON ?? '').split(':').find(Boolean)
  ?? join(homedir(), '.cache', 'hmc', 'hermes-venvs', 'hermes-0.19.0', 'bin', 'python');
const HERMES = join(dirname(PYTHON), 'hermes');
const READY = existsSync(HERMES) && HAS_CHROMIUM && existsSync(join(REPO, 'dashboard', 'dist', 'index.js')) && existsSync(join(REPO, 'dist', 'cli', 'main.js'));

/** Runs `cmd` and resolves with the first match of `re` in its stdout (rejects on exit or after 60 s). */
function start(cmd: string, args: string[], env: NodeJS.ProcessEnv, re: RegExp, cwd: string): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  return new Promise((ok, fail) => {
    // Its own process group, so stop() ends whatever it started too (Hermes' dashboard starts helpers).
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    const timer = setTimeout(() => fail(new Error(`${cmd} did not start in 60 s:\n${out.slice(-2000)}`)), 60_000);
    const read = (b: Buffer): void => {
      out += b.toString();
      const m = re.exec(out);
      if (m) {
        clearTimeout(timer);
        ok({ child, match: m });
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.on('exit', (code) => fail(new Error(`${cmd} exited (${code}):\n${out.slice(-2000)}`)));
  });
}

const stop = (c: ChildProcess | undefined): Promise<void> => new Promise((done) => {
  if (!c || c.exitCode !== null || c.pid === undefined) return done();
  c.once('exit', () => done());
  try {
    process.kill(-c.pid, 'SIGTERM');
  } catch {
    c.kill('SIGTERM');
  }
});

describe.skipIf(!READY)('HMC\'s tab in Hermes\' web dashboard', () => {
  let dir = '';
  let home = '';
  let state = '';
  let env: NodeJS.ProcessEnv = {};
  let hermes: ChildProcess | undefined;
  let hmc: ChildProcess | undefined;
  let hermesUrl = '';
  let hmcUrl = '';
  let browser: Browser;

  beforeAll(async () => {
    // Made here, not at collection, so a skipped run leaves no folder behind.
    dir = mkdtempSync(join(tmpdir(), 'hmc-tab-'));
    home = join(dir, 'home');
    state = join(home, 'hmc_state');
    env = { ...process.env, HERMES_HOME: home, HOME: home };
    mkdirSync(join(home, 'plugins'), { recursive: true });
    mkdirSync(state, { recursive: true });
    symlinkSync(REPO, join(home, 'plugins', 'hmc'));
    // A user plugin's tab and API are served only once it is enabled (Hermes' #46435).
    writeFileSync(join(home, 'config.yaml'), 'plugins:\n  enabled:\n    - hmc\n');
    const store = openStore(join(state, 'analytics.db'));
    const now = Date.now();
    store.recordSessions([
      rec({ session_id: 'tab-a', started_at: now - 86_400_000, model: 'claude-sonnet-4', input_tokens_raw: 80_000, input_tokens_hmc: 50_000, model_calls: 7,
        cached_raw: 60_000, cached_hmc: 35_000, by_strategy: { truncation: 30_000 }, by_tool: { terminal: 30_000 },
        work: { recalls: 1, rereads: 1, elided: 5, outputs: [{ tool: 'terminal', program: 'pytest', kind: 'shell', outputs: 5, tokens_raw: 10_000, tokens_sent: 2_500 }] } }),
    ]);
    store.close();
    const h = await start(process.execPath, [join(REPO, 'bin', 'hmc.js'), 'dashboard', '--state-dir', state, '--port', '0', '--pid-file', join(state, 'dashboard.json')],
      env, /(http:\/\/127\.0\.0\.1:\d+\/)/, dir);
    hmc = h.child;
    hmcUrl = h.match[1] ?? '';
    const r = await start(HERMES, ['dashboard', '--port', '0', '--skip-build', '--no-open'], env, /HERMES_DASHBOARD_READY port=(\d+)/, dir);
    hermes = r.child;
    hermesUrl = `http://127.0.0.1:${r.match[1]}`;
    browser = await launch();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stop(hermes);
    await stop(hmc);
    // Hermes' dashboard may still be writing its logs into HERMES_HOME for a moment after it exits.
    if (dir) rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  });

  it('is listed by Hermes from dashboard/manifest.json, with its API mounted', async () => {
    const plugins: unknown = await (await fetch(`${hermesUrl}/api/dashboard/plugins`)).json();
    const hmcTab = Array.isArray(plugins) ? plugins.find((p: { name?: string }) => p.name === 'hmc') : undefined;
    expect(hmcTab).toMatchObject({ label: 'HMC', tab: { path: '/hmc' }, entry: 'dist/index.js', has_api: true, source: 'user' });
    const js = await fetch(`${hermesUrl}/dashboard-plugins/hmc/dist/index.js`);
    expect(js.status).toBe(200);
    expect(await js.text()).toBe(readFileSync(join(REPO, 'dashboard', 'dist', 'index.js'), 'utf8'));
  });

  it('shows the figures HMC\'s own dashboard answers, and says so when that dashboard is stopped', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const a = await (await fetch(`${hmcUrl}api/analytics`)).json() as { total_saved: number; savings_pct: number; model_calls: number; estimated_cost_saved: { amount: number; currency: string } };
    const w = await (await fetch(`${hmcUrl}api/work`)).json() as { recalls: number; per_100_elided: number };
    await page.goto(`${hermesUrl}/hmc`);
    const tab = page.getByTestId('hmc-tab');
    await tab.waitFor({ timeout: 30_000 });
    expect(await tab.getByTestId('hmc-saved').textContent()).toBe(fmtTokens(a.total_saved));
    expect(await tab.getByTestId('hmc-pct').textContent()).toBe(`${a.savings_pct.toFixed(1)}%`);
    expect(await tab.getByTestId('hmc-cost').textContent()).toBe(fmtMoney(a.estimated_cost_saved.amount, a.estimated_cost_saved.currency));
    expect(await tab.getByTestId('hmc-summary').textContent()).toContain(`input saved over ${a.model_calls} model calls`);
    expect(await tab.getByTestId('hmc-recalls').textContent()).toBe(String(w.recalls));
    expect(await tab.getByTestId('hmc-rate').textContent()).toBe(w.per_100_elided.toFixed(1));
    expect(await tab.getByTestId('hmc-models-table').locator('tbody th').allTextContents()).toEqual(['claude-sonnet-4']);
    expect(await tab.getByTestId('hmc-outputs-table').locator('tbody th').allTextContents()).toEqual(['terminal']);
    expect(await tab.getByRole('link', { name: /full dashboard/ }).getAttribute('href')).toBe(hmcUrl);
    await page.screenshot({ path: join(REPO, 'test-results', 'hermes-tab.png'), fullPage: true });
    await stop(hmc);
    await page.reload();
    await page.getByTestId('hmc-error').filter({ hasText: 'not running' }).waitFor({ timeout: 30_000 });
    expect(errors).toEqual([]);
    await page.close();
  });
});
