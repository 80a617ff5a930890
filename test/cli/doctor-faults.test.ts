/**
 * `hmc doctor` on the faults of issue 11: a directory at the config path, and (below) an analytics
 * database that is corrupt or not a database at all.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { command, formatCheck, runChecks } from '../../src/cli/doctor.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'hmc-doctor-'));
  dirs.push(d);
  return d;
};

describe('hmc doctor, config', () => {
  it('reports a directory at the config path as a directory (regression: "fix the YAML syntax")', async () => {
    const root = tmp();
    mkdirSync(join(root, 'config.yaml'));
    const config = (await runChecks({ noHermes: true, root, stateDir: tmp() })).find((c) => c.name === 'config');
    expect(config?.ok).toBe(false);
    expect(config?.detail).toContain('is a directory');
    expect(config?.fix).toContain('remove the directory');
    expect(`${config?.detail} ${config?.fix}`).not.toMatch(/YAML/);
  });
});

describe('hmc doctor, state dir', () => {
  it('says a file given as --state-dir is not a folder, never that its permissions are wrong (issue 27, finding 6)', async () => {
    const file = join(tmp(), 'not-a-dir');
    writeFileSync(file, 'x');
    const state = (await runChecks({ noHermes: true, root: tmp(), stateDir: file })).find(
      (c) => c.name === 'state dir',
    );
    expect(state).toMatchObject({ ok: false, detail: `${file} is a file, not a folder` });
    expect(state?.fix).toContain(`move ${file} aside`);
    expect(`${state?.detail} ${state?.fix}`).not.toMatch(/permission|writable/);
    const below = (await runChecks({ noHermes: true, root: tmp(), stateDir: join(file, 'hmc_state') })).find(
      (c) => c.name === 'state dir',
    );
    expect(below?.detail).toBe(`${join(file, 'hmc_state')} cannot be a folder: ${file} is a file`);
  });

  it('still says a folder that is there is writable', async () => {
    const dir = tmp();
    const state = (await runChecks({ noHermes: true, root: tmp(), stateDir: dir })).find((c) => c.name === 'state dir');
    expect(state).toMatchObject({ ok: true, detail: `${dir} is writable` });
  });
});

describe('hmc doctor --json', () => {
  it('prints the same checks as one JSON object, with the same exit code', async () => {
    const file = join(tmp(), 'not-a-dir');
    writeFileSync(file, 'x');
    let out = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      out += String(chunk);
      return true;
    });
    try {
      expect(await command.run(['--no-hermes', '--state-dir', file])).toBe(1);
      const text = out;
      out = '';
      expect(await command.run(['--no-hermes', '--state-dir', file, '--json'])).toBe(1);
      const answer = JSON.parse(out) as { checks: Parameters<typeof formatCheck>[0][]; failed: number };
      expect(answer.failed).toBeGreaterThanOrEqual(1);
      expect(answer.checks.find((c) => c.name === 'state dir')).toMatchObject({
        ok: false,
        detail: `${file} is a file, not a folder`,
      });
      // The text is these checks, one aligned line each, and the count.
      expect(text).toBe(`${answer.checks.map(formatCheck).join('\n')}\n${answer.failed} check(s) failed\n`);
    } finally {
      vi.restoreAllMocks();
    }
  });
});
