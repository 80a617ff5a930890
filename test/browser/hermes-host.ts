/**
 * A real Hermes 0.19 `hermes dashboard` with HMC's plugin enabled, for the tests of HMC's tab
 * (hermes-tab.test.ts, hermes-tab-faults.test.ts): a temp HERMES_HOME whose plugins/hmc is this
 * checkout, Hermes' dashboard on a free port, and its session token (read from the page, as the
 * tab's own script gets it) for calling the plugin's routes the way the tab does.
 *
 * Invariant: every process started here runs in its own process group and is stopped as a group;
 * without a Hermes venv the tests skip with a note, and under CI (`CI` set) they fail instead.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { HAS_CHROMIUM } from './harness.js';

export const REPO = resolve(import.meta.dirname, '..', '..');
const PYTHON =
  (process.env.HMC_HERMES_PYTHON ?? '').split(':').find(Boolean) ??
  join(homedir(), '.cache', 'hmc', 'hermes-venvs', 'hermes-0.19.0', 'bin', 'python');
export const HERMES = join(dirname(PYTHON), 'hermes');

/** Why the Hermes tab tests cannot run here ('' when they can). */
function missing(): string {
  if (!existsSync(HERMES)) return `no Hermes at ${HERMES} (set HMC_HERMES_PYTHON, or let .ci/run make the venv)`;
  if (!HAS_CHROMIUM) return '/usr/bin/chromium is missing (apt-get install chromium)';
  if (!existsSync(join(REPO, 'dashboard', 'dist', 'index.js')) || !existsSync(join(REPO, 'dist', 'cli', 'main.js')))
    return 'HMC is not built (npm run build)';
  return '';
}

export const MISSING = missing();
/** Under CI a missing Hermes, Chromium or build is a failure, never a silent skip (issue 27, finding 6). */
export const READY = MISSING === '' || Boolean(process.env.CI);
if (MISSING)
  console.warn(
    `test/browser/hermes-tab: ${MISSING}; ${process.env.CI ? 'failing (CI is set)' : "skipping HMC's tab in Hermes' dashboard"}`,
  );

/** Runs `cmd` and resolves with the first match of `re` in its output (rejects on exit or after 60 s). */
export function start(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  re: RegExp,
  cwd: string,
): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
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
    child.on('error', (err) => fail(err));
    child.on('exit', (code) => fail(new Error(`${cmd} exited (${code}):\n${out.slice(-2000)}`)));
  });
}

export const stop = (c: ChildProcess | undefined): Promise<void> =>
  new Promise((done) => {
    if (!c || c.exitCode !== null || c.signalCode !== null || c.pid === undefined) return done();
    c.once('exit', () => done());
    try {
      process.kill(-c.pid, 'SIGCONT');
      process.kill(-c.pid, 'SIGTERM');
    } catch {
      c.kill('SIGTERM');
    }
  });

export interface HermesHost {
  dir: string;
  home: string;
  /** <HERMES_HOME>/hmc_state: where HMC's dashboard record lives. */
  state: string;
  env: NodeJS.ProcessEnv;
  url: string;
  token: string;
  /** A plugin route of HMC's, called as the tab calls it (Hermes' session token). */
  call(path: string, init?: RequestInit): Promise<Response>;
  done(): Promise<void>;
}

export interface HermesOptions {
  /** The plugin's folder (default: this checkout); made by `plugin(dir)` when a function. */
  plugin?: (dir: string) => string;
  /** More environment for Hermes' dashboard (PATH, HMC_CONFIG, …). */
  env?: NodeJS.ProcessEnv;
}

/** A temp HERMES_HOME with HMC enabled as a user plugin, and Hermes' dashboard serving it. */
export async function startHermes(opts: HermesOptions = {}): Promise<HermesHost> {
  if (MISSING) throw new Error(`test/browser/hermes-tab: ${MISSING}`);
  const dir = mkdtempSync(join(tmpdir(), 'hmc-tab-'));
  const home = join(dir, 'home');
  const state = join(home, 'hmc_state');
  const env: NodeJS.ProcessEnv = { ...process.env, HERMES_HOME: home, HOME: home, ...opts.env };
  delete env.HMC_STATE_DIR;
  mkdirSync(join(home, 'plugins'), { recursive: true });
  mkdirSync(state, { recursive: true });
  symlinkSync(opts.plugin ? opts.plugin(dir) : REPO, join(home, 'plugins', 'hmc'));
  // A user plugin's tab and API are served only once it is enabled (Hermes' #46435).
  writeFileSync(join(home, 'config.yaml'), 'plugins:\n  enabled:\n    - hmc\n');
  const r = await start(
    HERMES,
    ['dashboard', '--port', '0', '--skip-build', '--no-open'],
    env,
    /HERMES_DASHBOARD_READY port=(\d+)/,
    dir,
  );
  const url = `http://127.0.0.1:${r.match[1]}`;
  const html = await (await fetch(`${url}/`)).text();
  const token = /__HERMES_SESSION_TOKEN__="([^"]+)"/.exec(html)?.[1] ?? '';
  if (!token) throw new Error("Hermes' page carries no session token");
  return {
    dir,
    home,
    state,
    env,
    url,
    token,
    call: (path, init) =>
      fetch(`${url}/api/plugins/hmc${path}`, {
        ...init,
        headers: { 'X-Hermes-Session-Token': token, ...(init?.headers ?? {}) },
      }),
    async done() {
      await stop(r.child);
      // Hermes' dashboard may still be writing its logs into HERMES_HOME for a moment after it exits.
      rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    },
  };
}

/** Starts HMC's dashboard in the foreground over `state`, writing its record as the background one does. */
export async function startHmc(host: HermesHost): Promise<{ child: ChildProcess; url: string }> {
  const h = await start(
    process.execPath,
    [
      join(REPO, 'bin', 'hmc.js'),
      'dashboard',
      '--state-dir',
      host.state,
      '--port',
      '0',
      '--pid-file',
      join(host.state, 'dashboard.json'),
    ],
    host.env,
    /(http:\/\/127\.0\.0\.1:\d+\/)/,
    host.dir,
  );
  return { child: h.child, url: h.match[1] ?? '' };
}
