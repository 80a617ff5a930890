import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatCheck, runChecks } from '../../src/cli/doctor.js';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'hmc-doctor-'));
}

describe('hmc doctor', () => {
  it('fails an old Node with a fix hint', async () => {
    const checks = await runChecks({ nodeVersion: '18.19.0', noHermes: true, root: tempDir(), stateDir: tempDir() });
    const node = checks.find((c) => c.name === 'node');
    expect(node?.ok).toBe(false);
    expect(formatCheck(node ?? { name: '', ok: true, detail: '' })).toMatch(/^FAIL.*\n\s+fix: install Node/);
  });

  it('passes Node 20.19 and loads better-sqlite3', async () => {
    const checks = await runChecks({ nodeVersion: '20.19.0', noHermes: true, stateDir: tempDir() });
    expect(checks.find((c) => c.name === 'node')?.ok).toBe(true);
    expect(checks.find((c) => c.name === 'sqlite')?.ok).toBe(true);
    expect(checks.find((c) => c.name === 'state dir')?.ok).toBe(true);
  });

  it('names a bad config key', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'config.yaml'), 'truncation:\n  max_lines: lots\n');
    const checks = await runChecks({ noHermes: true, root: dir, stateDir: tempDir() });
    const config = checks.find((c) => c.name === 'config');
    expect(config?.ok).toBe(false);
    expect(config?.detail).toContain('truncation.max_lines');
    expect(checks.find((c) => c.name === 'dashboard build')?.ok).toBe(false);
  });

  it('reports invalid YAML without throwing', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'config.yaml'), 'a: [unclosed\n');
    const config = (await runChecks({ noHermes: true, root: dir, stateDir: tempDir() })).find(
      (c) => c.name === 'config',
    );
    expect(config?.ok).toBe(false);
    expect(config?.fix).toContain('YAML');
  });

  it('checks the Hermes home: plugin present and enabled', async () => {
    const home = tempDir();
    mkdirSync(join(home, 'plugins', 'hmc'), { recursive: true });
    writeFileSync(join(home, 'plugins', 'hmc', 'plugin.yaml'), 'name: hmc\n');
    writeFileSync(join(home, 'config.yaml'), 'plugins:\n  enabled: [other]\n');
    let checks = await runChecks({ hermesHome: home });
    expect(checks.find((c) => c.name === 'hermes plugin')?.ok).toBe(true);
    expect(checks.find((c) => c.name === 'hermes enabled')?.ok).toBe(false);
    writeFileSync(join(home, 'config.yaml'), 'plugins:\n  enabled: [hmc]\n');
    checks = await runChecks({ hermesHome: home });
    expect(checks.find((c) => c.name === 'hermes enabled')?.ok).toBe(true);
  });

  it('fails when there is no Hermes home', async () => {
    const checks = await runChecks({ hermesHome: join(tempDir(), 'nope'), stateDir: tempDir() });
    expect(checks.find((c) => c.name === 'hermes')?.fix).toContain('--no-hermes');
  });
});
