/**
 * Hints that name another command say it as the user can type it (issue 17, finding 5): `hermes
 * hmc dashboard start` answered "`hmc dashboard stop` stops it", but an install puts no `hmc` on
 * PATH. Inside Hermes the bridge says how it runs the command line (HMC_INVOKED_AS).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { invokedAs } from '../../src/cli/args.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'hmc.js');
const built = existsSync(join(ROOT, 'dist', 'cli', 'main.js'));
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

describe('how a hint names the command line', () => {
  it('says what the caller set, else the bin it ran as, else node and the script', () => {
    expect(invokedAs({ HMC_INVOKED_AS: 'hermes hmc' }, ['node', '/x/bin/hmc.js'], '/x')).toBe('hermes hmc');
    expect(invokedAs({}, ['node', '/usr/local/bin/hmc'], '/home/ada')).toBe('hmc');
    expect(invokedAs({}, ['node', '/home/ada/hmc/bin/hmc.js'], '/home/ada/hmc')).toBe('node bin/hmc.js');
    expect(invokedAs({}, ['node', '/opt/hmc/bin/hmc.js'], '/home/ada')).toBe('node /opt/hmc/bin/hmc.js');
    expect(invokedAs({ HMC_INVOKED_AS: '  ' }, ['node', '/opt/hmc/bin/hmc.js'], '/home/ada')).toBe(
      'node /opt/hmc/bin/hmc.js',
    );
  });

  it.skipIf(!built)(
    'dashboard start names a stop command that works, through Hermes and without it',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'hmc-hint-'));
      dirs.push(dir);
      const run = (args: string[], env: NodeJS.ProcessEnv = {}) =>
        spawnSync(process.execPath, [BIN, 'dashboard', ...args, '--state-dir', dir], {
          encoding: 'utf8',
          cwd: ROOT,
          env: { ...process.env, ...env },
          timeout: 60_000,
        });
      try {
        const inHermes = run(['start', '--port', '0'], { HMC_INVOKED_AS: 'hermes hmc' });
        expect(inHermes.status, inHermes.stderr).toBe(0);
        expect(inHermes.stderr).toContain(`\`hermes hmc dashboard stop --state-dir ${dir}\` stops it`);
        expect(inHermes.stderr).not.toMatch(/`hmc dashboard stop/);
        const again = run(['start', '--port', '0']);
        expect(again.stderr).toContain(`\`node bin/hmc.js dashboard stop --state-dir ${dir}\` stops it`);
        // The command the hint names (its `node bin/hmc.js` spelling, run from the same folder) stops it.
        const hinted = /`node bin\/hmc\.js (dashboard stop [^`]+)`/.exec(again.stderr)?.[1]?.split(' ') ?? [];
        const stopped = spawnSync(process.execPath, [BIN, ...hinted], { encoding: 'utf8', cwd: ROOT, timeout: 60_000 });
        expect(stopped.stderr).toContain('stopped (pid');
      } finally {
        run(['stop']);
      }
    },
    120_000,
  );
});
