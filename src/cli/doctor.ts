/**
 * `hmc doctor [--state-dir D] [--config PATH] [--hermes-home H] [--no-hermes]`: checks what HMC
 * needs to run inside Hermes: Node's version, the native SQLite module, a writable state dir, a
 * config that parses, the dashboard build, and each registered host's install (src/hosts: for
 * Hermes, the plugin present and enabled), each with `--<host>-home H` and `--no-<host>`.
 *
 * Node, the dependencies, SQLite and the builds are bin/install-check.js (plain JavaScript, so the
 * same checks run on an install whose build failed); the rest needs the build.
 *
 * Invariant: every check prints one line, `ok` or `FAIL` with a fix hint (`--json`: one object
 * with every check); a failing check never stops the others; the exit code is 1 when any check
 * failed, else 0.
 */
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfigFile } from '../config/load.js';
import { resolveDbPath } from '../config/paths.js';
import { HOME_HOST, HOSTS, type HostName } from '../hosts/index.js';
import { resolveStateDir } from '../hosts/state-dir.js';
import { formatCheck, installChecks, type Check } from '../../bin/install-check.js';
import { checkDatabase, checkPrices } from './doctor-db.js';
import type { Command } from './command.js';
import { errorLine } from '../core/errors.js';

/** Per registered host: its home (`hermesHome`, from `--hermes-home`) and whether to skip its checks (`noHermes`). */
type HostOptions = { [N in HostName as `${N}Home`]?: string } & { [N in HostName as `no${Capitalize<N>}`]?: boolean };

export interface DoctorOptions extends HostOptions {
  stateDir?: string;
  /** Print the checks as JSON (`--json`) instead of aligned lines. */
  json?: boolean;
  configPath?: string;
  /** The package root (where bin/, dist/ and web/dist live). */
  root?: string;
  nodeVersion?: string;
}

/** The option names of a host: `hermes` → `hermesHome`, `noHermes`. */
function hostOptions<N extends HostName>(name: N): { home: `${N}Home`; skip: `no${Capitalize<N>}` } {
  // What Capitalize<N> means at the type level, done to the value.
  const capitalized = `${name.charAt(0).toUpperCase()}${name.slice(1)}` as Capitalize<N>;
  return { home: `${name}Home`, skip: `no${capitalized}` };
}

const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The first part of `dir` that exists and is not a folder (the dir itself, or a parent), else null. */
function notAFolder(dir: string): string | null {
  for (let at = resolve(dir); ; at = dirname(at)) {
    try {
      return statSync(at).isDirectory() ? null : at;
    } catch {
      if (dirname(at) === at) return null;
    }
  }
}

function checkStateDir(dir: string): Check {
  // A file where the folder should be is no permission problem (issue 27, finding 6): say what it is.
  const file = notAFolder(dir);
  if (file !== null) {
    const what =
      file === resolve(dir) ? `${dir} is a file, not a folder` : `${dir} cannot be a folder: ${file} is a file`;
    return {
      name: 'state dir',
      ok: false,
      detail: what,
      fix: `move ${file} aside, or point --state-dir / $HMC_STATE_DIR at a folder`,
    };
  }
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const probe = join(dir, `.doctor-${process.pid}`);
    writeFileSync(probe, 'ok', { mode: 0o600 });
    rmSync(probe);
    return { name: 'state dir', ok: true, detail: `${dir} is writable` };
  } catch (err) {
    return {
      name: 'state dir',
      ok: false,
      detail: `${dir} is not writable: ${errorLine(err)}`,
      fix: 'fix its permissions, or point --state-dir / $HMC_STATE_DIR elsewhere',
    };
  }
}

async function checkConfig(path: string): Promise<Check> {
  if (!existsSync(path))
    return {
      name: 'config',
      ok: true,
      detail: `${path} not present; built-in defaults apply (copy config.yaml.example to change them)`,
    };
  // The loader the sidecar uses: a directory, unreadable file, bad YAML or bad key is named as such.
  const { issues } = loadConfigFile(path);
  if (issues.length === 0) return { name: 'config', ok: true, detail: `${path} parses` };
  const whole = issues.find((i) => i.path === '(file)' && !i.message.includes('YAML warning'));
  if (whole) {
    const fix = whole.message.includes('is a directory')
      ? `remove the directory ${path} (or point --config at a file); the defaults apply meanwhile`
      : whole.message.includes('not valid YAML')
        ? 'fix the YAML syntax, or delete the file to use the defaults'
        : 'make the file readable, or delete it to use the defaults';
    return { name: 'config', ok: false, detail: whole.message, fix };
  }
  return {
    name: 'config',
    ok: false,
    detail: `${path}: ${issues.map((i) => i.message).join('; ')}`,
    fix: 'correct or remove the keys named (each bad key falls back to its default meanwhile)',
  };
}

/** Runs every check; none throws. */
export async function runChecks(opts: DoctorOptions = {}): Promise<Check[]> {
  const root = opts.root ?? PACKAGE_ROOT;
  // Node, dependencies, SQLite module, build: the same checks bin/hmc.js runs on an unbuilt install.
  const checks: Check[] = await installChecks(root, opts.nodeVersion ? { nodeVersion: opts.nodeVersion } : {});
  // The state dir lives in the home host's home (Hermes'), so a home given moves it too.
  const home = opts[hostOptions(HOME_HOST.name).home];
  const stateDir = resolveStateDir(opts.stateDir ?? (home ? HOME_HOST.stateDir(home, process.env) : undefined));
  checks.push(checkStateDir(stateDir));
  const configPath = opts.configPath ?? join(root, 'config.yaml');
  checks.push(await checkConfig(configPath));
  const loaded = loadConfigFile(configPath).config;
  const dbPath = resolveDbPath(loaded.analytics.db_path, stateDir);
  checks.push(await checkDatabase(dbPath));
  const prices = await checkPrices(dbPath, loaded.pricing);
  if (prices) checks.push(prices);
  for (const host of HOSTS) {
    const keys = hostOptions(host.name);
    if (opts[keys.skip] !== true) checks.push(...(await host.doctor(opts[keys.home])));
  }
  return checks;
}

function parseArgs(argv: string[]): DoctorOptions | string {
  const opts: DoctorOptions = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const skipped = HOSTS.find((h) => arg === `--no-${h.name}`);
    const home = HOSTS.find((h) => arg === `--${h.name}-home`);
    if (skipped) opts[hostOptions(skipped.name).skip] = true;
    else if (arg === '--json') opts.json = true;
    else if (arg === '--state-dir' || arg === '--config' || home) {
      const value = argv[++i];
      if (!value) return `${arg} needs a value`;
      if (home) opts[hostOptions(home.name).home] = value;
      else if (arg === '--state-dir') opts.stateDir = value;
      else opts.configPath = value;
    } else return `unknown option "${arg}"`;
  }
  return opts;
}

const USAGE = `usage: hmc doctor [--state-dir D] [--config PATH] [--json] ${HOSTS.map((h) => `[--${h.name}-home H] [--no-${h.name}]`).join(' ')}
  checks Node, the dependencies, the native SQLite module, the build, the state dir, the config,
  the analytics database (SQLite's integrity_check) and the Hermes install; exit 1 when one fails
  --json   the checks as JSON: {"checks": [{"name", "ok", "detail", "fix"?}…], "failed": N}
`;

export const command: Command = {
  summary: 'check Node, the native SQLite module, the state dir, the config and the Hermes install',
  usage: USAGE,
  async run(argv) {
    const opts = parseArgs(argv);
    if (typeof opts === 'string') {
      process.stderr.write(`hmc doctor: ${opts}\n${USAGE}`);
      return 2;
    }
    const checks = await runChecks(opts);
    const failed = checks.filter((c) => !c.ok).length;
    if (opts.json) {
      process.stdout.write(`${JSON.stringify({ checks, failed }, null, 2)}\n`);
      return failed ? 1 : 0;
    }
    for (const check of checks) process.stdout.write(`${formatCheck(check)}\n`);
    process.stdout.write(failed ? `${failed} check(s) failed\n` : 'all checks passed\n');
    return failed ? 1 : 0;
  },
};

export { formatCheck, type Check };
