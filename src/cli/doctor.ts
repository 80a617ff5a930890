/**
 * `hmc doctor [--state-dir D] [--config PATH] [--hermes-home H] [--no-hermes]`: checks what HMC
 * needs to run inside Hermes: Node's version, the native SQLite module, a writable state dir, a
 * config that parses, the dashboard build, and the Hermes install (plugin present and enabled).
 *
 * Node, the dependencies, SQLite and the builds are bin/install-check.js (plain JavaScript, so the
 * same checks run on an install whose build failed); the rest needs the build.
 *
 * Invariant: every check prints one line, `ok` or `FAIL` with a fix hint; a failing check never
 * stops the others; the exit code is 1 when any check failed, else 0.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfigFile } from '../config/load.js';
import { hermesHome, resolveDbPath, resolveStateDir } from '../config/paths.js';
import { formatCheck, installChecks, type Check } from '../../bin/install-check.js';
import { checkDatabase } from './doctor-db.js';
import type { Command } from './main.js';
import { errorLine } from '../core/errors.js';

export interface DoctorOptions {
  stateDir?: string;
  configPath?: string;
  hermesHome?: string;
  /** Skip the Hermes checks (HMC used without Hermes). */
  noHermes?: boolean;
  /** The package root (where bin/, dist/ and web/dist live). */
  root?: string;
  nodeVersion?: string;
}

const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

function checkStateDir(dir: string): Check {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const probe = join(dir, `.doctor-${process.pid}`);
    writeFileSync(probe, 'ok', { mode: 0o600 });
    rmSync(probe);
    return { name: 'state dir', ok: true, detail: `${dir} is writable` };
  } catch (err) {
    return { name: 'state dir', ok: false, detail: `${dir} is not writable: ${errorLine(err)}`, fix: 'fix its permissions, or point --state-dir / $HMC_STATE_DIR elsewhere' };
  }
}

async function checkConfig(path: string): Promise<Check> {
  if (!existsSync(path)) return { name: 'config', ok: true, detail: `${path} not present; built-in defaults apply (copy config.yaml.example to change them)` };
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
  return { name: 'config', ok: false, detail: `${path}: ${issues.map((i) => i.message).join('; ')}`, fix: 'correct or remove the keys named (each bad key falls back to its default meanwhile)' };
}

async function checkHermes(home: string): Promise<Check[]> {
  const checks: Check[] = [];
  if (!existsSync(home)) {
    return [{ name: 'hermes', ok: false, detail: `no Hermes home at ${home}`, fix: 'install Hermes, or set $HERMES_HOME; use --no-hermes when running HMC without Hermes' }];
  }
  const pluginDir = join(home, 'plugins', 'hmc');
  checks.push(existsSync(join(pluginDir, 'plugin.yaml'))
    ? { name: 'hermes plugin', ok: true, detail: `${pluginDir} holds the plugin` }
    : { name: 'hermes plugin', ok: false, detail: `${pluginDir}/plugin.yaml is missing`, fix: 'hermes plugins install <this repository>' });
  const configPath = join(home, 'config.yaml');
  let enabled = false;
  let disabled = false;
  try {
    const { parse } = await import('yaml');
    const parsed: unknown = existsSync(configPath) ? parse(readFileSync(configPath, 'utf8'), { logLevel: 'error' }) : null;
    const plugins = isRecord(parsed) ? parsed.plugins : undefined;
    const list = (key: string): unknown[] => (isRecord(plugins) && Array.isArray(plugins[key]) ? plugins[key] : []);
    enabled = list('enabled').includes('hmc');
    disabled = list('disabled').includes('hmc');
  } catch (err) {
    checks.push({ name: 'hermes config', ok: false, detail: `${configPath} does not parse: ${errorLine(err)}`, fix: 'fix the YAML syntax of Hermes\' config' });
    return checks;
  }
  checks.push(enabled && !disabled
    ? { name: 'hermes enabled', ok: true, detail: `hmc is in plugins.enabled of ${configPath}` }
    : { name: 'hermes enabled', ok: false, detail: disabled ? `hmc is in plugins.disabled of ${configPath}` : `hmc is not in plugins.enabled of ${configPath}`, fix: 'hermes plugins enable hmc, then restart Hermes' });
  return checks;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Runs every check; none throws. */
export async function runChecks(opts: DoctorOptions = {}): Promise<Check[]> {
  const root = opts.root ?? PACKAGE_ROOT;
  // Node, dependencies, SQLite module, build: the same checks bin/hmc.js runs on an unbuilt install.
  const checks: Check[] = await installChecks(root, opts.nodeVersion ? { nodeVersion: opts.nodeVersion } : {});
  const stateDir = resolveStateDir(opts.stateDir ?? (opts.hermesHome ? join(opts.hermesHome, 'hmc_state') : undefined));
  checks.push(checkStateDir(stateDir));
  const configPath = opts.configPath ?? join(root, 'config.yaml');
  checks.push(await checkConfig(configPath));
  checks.push(await checkDatabase(resolveDbPath(loadConfigFile(configPath).config.analytics.db_path, stateDir)));
  if (!opts.noHermes) checks.push(...(await checkHermes(opts.hermesHome ?? hermesHome())));
  return checks;
}

function parseArgs(argv: string[]): DoctorOptions | string {
  const opts: DoctorOptions = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--no-hermes') opts.noHermes = true;
    else if (arg === '--state-dir' || arg === '--config' || arg === '--hermes-home') {
      const value = argv[++i];
      if (!value) return `${arg} needs a value`;
      if (arg === '--state-dir') opts.stateDir = value;
      else if (arg === '--config') opts.configPath = value;
      else opts.hermesHome = value;
    } else return `unknown option "${arg}"`;
  }
  return opts;
}

const USAGE = `usage: hmc doctor [--state-dir D] [--config PATH] [--hermes-home H] [--no-hermes]
  checks Node, the dependencies, the native SQLite module, the build, the state dir, the config,
  the analytics database (SQLite's integrity_check) and the Hermes install; exit 1 when one fails
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
    for (const check of checks) process.stdout.write(`${formatCheck(check)}\n`);
    const failed = checks.filter((c) => !c.ok).length;
    process.stdout.write(failed ? `${failed} check(s) failed\n` : 'all checks passed\n');
    return failed ? 1 : 0;
  },
};

export { formatCheck, type Check };
