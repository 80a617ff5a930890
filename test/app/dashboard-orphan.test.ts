/**
 * The background dashboard leaves once orphaned (issue 27, finding 1): after `hermes plugins
 * disable hmc` (Hermes' config no longer loads the plugin) or `remove hmc` (its files gone) it went
 * on running, with nothing left to stop it. The rule (Hermes' loader's) and the watch's two-in-a-row
 * check, then a real detached dashboard that exits by itself when its Hermes config disables it.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { orphanReason, ownPackageRoot, watchOrphan } from '../../src/app/dashboard-orphan.js';
import { hermesPluginFromEnv, hermesPluginOff, hermesWatch } from '../../src/hosts/hermes/plugin-state.js';
import { startBackground, stopBackground } from '../../src/server/background.js';
import { pidAlive, readRecord, recordPath } from '../../src/server/dashboard-record.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'hmc-orphan-'));
  dirs.push(d);
  return d;
};
const ref = { config: '/h/config.yaml', names: ['hmc'] };
const off = (yaml: string): string | null => hermesPluginOff(ref, () => yaml);

describe("Hermes' rule for a loaded plugin", () => {
  it('is off when plugins.disabled lists it, or plugins.enabled is a list without it', () => {
    expect(off('plugins:\n  enabled: [hmc]\n')).toBeNull();
    expect(off('plugins:\n  enabled: [other]\n  disabled: [hmc]\n')).toBe(
      'the hmc plugin is disabled in /h/config.yaml (plugins.disabled)',
    );
    expect(off('plugins:\n  enabled: [hmc]\n  disabled: [hmc]\n')).toMatch(/disabled/);
    expect(off('plugins:\n  enabled: []\n')).toBe(
      'the hmc plugin is no longer enabled in /h/config.yaml (plugins.enabled)',
    );
    expect(
      hermesPluginOff({ config: '/h/c.yaml', names: ['tools/hmc', 'hmc'] }, () => 'plugins:\n  enabled: [tools/hmc]\n'),
    ).toBeNull();
  });

  it('cannot tell (never off) from a broken, missing or plugin-less config', () => {
    expect(off('plugins:\n  enabled: [hmc\n')).toBeNull();
    expect(off('model:\n  default: x\n')).toBeNull();
    expect(off('plugins:\n  disabled: []\n')).toBeNull();
    expect(hermesPluginOff({ config: '/no/such/config.yaml', names: ['hmc'] })).toBeNull();
  });

  it('reads the plugin to watch from $HMC_HERMES_PLUGIN', () => {
    expect(hermesPluginFromEnv({ HMC_HERMES_PLUGIN: JSON.stringify(ref) })).toEqual(ref);
    expect(hermesPluginFromEnv({})).toBeNull();
    expect(hermesPluginFromEnv({ HMC_HERMES_PLUGIN: '{' })).toBeNull();
    expect(hermesPluginFromEnv({ HMC_HERMES_PLUGIN: '{"config":"/x","names":[]}' })).toBeNull();
  });
});

describe('the orphan watch', () => {
  it('finds the files gone, and this package whole', () => {
    const root = tempDir();
    expect(orphanReason({ packageRoot: root, host: null })).toMatch(
      /^the files it runs from are gone \(.*bin\/hmc\.js/,
    );
    mkdirSync(join(root, 'bin'));
    writeFileSync(join(root, 'bin', 'hmc.js'), '');
    expect(orphanReason({ packageRoot: root, host: null })).toBeNull();
    expect(orphanReason({ packageRoot: ownPackageRoot(), host: null })).toBeNull();
  });

  it('calls once, after two checks in a row found it orphaned, never on one', async () => {
    const root = tempDir();
    const config = join(root, 'config.yaml');
    mkdirSync(join(root, 'bin'));
    writeFileSync(join(root, 'bin', 'hmc.js'), '');
    writeFileSync(config, 'plugins:\n  enabled: [hmc]\n');
    const reasons: string[] = [];
    const stop = watchOrphan(
      { packageRoot: root, host: hermesWatch({ config, names: ['hmc'] }) },
      (r) => reasons.push(r),
      20,
    );
    const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
    // One check sees it off, the next sees it back (a config being rewritten): nothing.
    writeFileSync(config, 'plugins:\n  enabled: []\n');
    await wait(30);
    writeFileSync(config, 'plugins:\n  enabled: [hmc]\n');
    await wait(60);
    expect(reasons).toEqual([]);
    writeFileSync(config, 'plugins:\n  enabled: []\n  disabled: [hmc]\n');
    await wait(150);
    stop();
    expect(reasons).toEqual([`the hmc plugin is disabled in ${config} (plugins.disabled)`]);
  });
});

describe('a real background dashboard', () => {
  it('exits by itself within 10 s once Hermes disables the plugin, saying why in its log', async () => {
    const state = tempDir();
    const config = join(state, 'hermes-config.yaml');
    writeFileSync(config, 'plugins:\n  enabled: [hmc]\n');
    const tsx = pathToFileURL(join(import.meta.dirname, '..', '..', 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
    const before = { ...process.env };
    process.env.HMC_DASHBOARD_COMMAND = JSON.stringify([
      process.execPath,
      '--import',
      tsx,
      join(import.meta.dirname, '..', 'server', 'run-cli.ts'),
    ]);
    process.env.HMC_HERMES_PLUGIN = JSON.stringify({ config, names: ['hmc'] });
    let pid = 0;
    try {
      const started = await startBackground({ stateDir: state, port: 0, configPath: null, startTimeoutMs: 30_000 });
      expect(started.running, JSON.stringify(started)).toBe(true);
      pid = Number(started.pid);
      writeFileSync(config, 'plugins:\n  enabled: []\n  disabled: [hmc]\n');
      const t0 = Date.now();
      while (pidAlive(pid) && Date.now() - t0 < 20_000) await new Promise((r) => setTimeout(r, 100));
      const took = Date.now() - t0;
      expect(pidAlive(pid)).toBe(false);
      expect(took).toBeLessThan(12_000);
      const log = readFileSync(join(state, 'dashboard.log'), 'utf8');
      expect(log).toContain(`hmc dashboard: exiting: the hmc plugin is disabled in ${config} (plugins.disabled)`);
      expect(readRecord(recordPath(state))).toBeNull();
    } finally {
      process.env = before;
      if (pid && pidAlive(pid)) process.kill(pid, 'SIGKILL');
      await stopBackground(state);
    }
  }, 60_000);
});
