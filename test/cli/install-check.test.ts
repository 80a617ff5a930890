/**
 * `hmc doctor` on an install whose `npm install` failed (issue 9 item 8): the plain-JS install
 * checks (bin/install-check.js) run without a build, and say why better-sqlite3 was not built and
 * the command that fixes it, from what the machine has (local headers, nodedir, build tools).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkTab, installChecks, whyNoBuild } from '../../bin/install-check.js';

const REPO = resolve(import.meta.dirname, '..', '..');

function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'hmc-install-check-'));
}

/** A fake Node install: <prefix>/bin/node, with or without <prefix>/include/node headers. */
function nodePrefix(withHeaders: boolean): string {
  const prefix = tmp();
  mkdirSync(join(prefix, 'bin'));
  writeFileSync(join(prefix, 'bin', 'node'), '');
  if (withHeaders) {
    mkdirSync(join(prefix, 'include', 'node'), { recursive: true });
    writeFileSync(join(prefix, 'include', 'node', 'node_api.h'), '');
  }
  return prefix;
}

/** A PATH holding (empty stand-ins for) the given tools. */
function pathWith(...tools: string[]): string {
  const dir = tmp();
  for (const t of tools) writeFileSync(join(dir, t), '');
  return dir;
}

describe('install checks', () => {
  it('pass on this built checkout', async () => {
    const checks = await installChecks(REPO);
    expect(checks.map((c) => [c.name, c.ok])).toEqual([
      ['node', true],
      ['dependencies', true],
      ['sqlite', true],
      ['build', true],
      ['dashboard build', true],
      ['hermes tab build', true],
    ]);
  });

  it("regression (issue 27, finding 6): the Hermes tab's build and the page's assets are checked, each missing file named", () => {
    const root = tmp();
    cpSync(join(REPO, 'dashboard', 'manifest.json'), join(root, 'dashboard', 'manifest.json'));
    mkdirSync(join(root, 'web', 'dist'), { recursive: true });
    writeFileSync(join(root, 'web', 'dist', 'index.html'), '<script type="module" src="/assets/index-x.js"></script>');
    const tab = checkTab(root);
    expect(tab.ok).toBe(false);
    expect(tab.detail).toBe(
      `missing: ${join(root, 'web', 'dist', 'assets', 'index-x.js')}, ${join(root, 'dashboard', 'dist', 'index.js')}, ${join(root, 'dashboard', 'dist', 'style.css')}`,
    );
    expect(tab.fix).toBe(`run \`npm run build\` in ${root} (then restart \`hermes dashboard\` for the tab)`);
    cpSync(join(REPO, 'dashboard', 'dist'), join(root, 'dashboard', 'dist'), { recursive: true });
    mkdirSync(join(root, 'web', 'dist', 'assets'));
    writeFileSync(join(root, 'web', 'dist', 'assets', 'index-x.js'), '');
    expect(checkTab(root).ok).toBe(true);
  });

  it('point at the local headers when npm had no nodedir (a fresh HOME)', () => {
    const prefix = nodePrefix(true);
    const why = whyNoBuild({ PATH: pathWith('python3', 'make', 'c++'), HOME: tmp() }, join(prefix, 'bin', 'node'));
    expect(why.detail).toContain(`this machine has them in ${join(prefix, 'include', 'node')}`);
    expect(why.fix('/p')).toBe(
      `run \`npm_config_nodedir=${prefix} npm install\` in /p (or set it once: \`export npm_config_nodedir=${prefix}\` in your shell profile)`,
    );
  });

  it('name the network when there are no local headers', () => {
    const why = whyNoBuild(
      { PATH: pathWith('python3', 'make', 'g++'), HOME: tmp() },
      join(nodePrefix(false), 'bin', 'node'),
    );
    expect(why.detail).toContain('nodejs.org');
    expect(why.detail).toContain('proxy');
    expect(why.fix('/p')).toContain('npm config set https-proxy');
  });

  it('name missing build tools first', () => {
    const why = whyNoBuild({ PATH: pathWith('python3'), HOME: tmp() }, join(nodePrefix(true), 'bin', 'node'));
    expect(why.detail).toContain('make, a C++ compiler, not found on PATH');
    expect(why.fix('/p')).toContain('sudo apt install python3 make g++');
  });

  it('say the compiler failed when headers and tools are there', () => {
    const why = whyNoBuild(
      { PATH: pathWith('python3', 'make', 'clang++'), HOME: tmp(), npm_config_nodedir: '/usr' },
      join(nodePrefix(true), 'bin', 'node'),
    );
    expect(why.detail).toContain('nodedir=/usr');
    expect(why.fix('/p')).toContain('gyp ERR!');
  });

  it('regression: hmc doctor on an unbuilt install runs the Node and SQLite checks instead of only "not built yet"', () => {
    const root = tmp();
    cpSync(join(REPO, 'bin'), join(root, 'bin'), { recursive: true });
    cpSync(join(REPO, 'package.json'), join(root, 'package.json'));
    const run = spawnSync(process.execPath, [join(root, 'bin', 'hmc.js'), 'doctor'], {
      encoding: 'utf8',
      env: { ...process.env, npm_config_nodedir: '' },
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/^ok {4}node {13}Node /m);
    expect(run.stdout).toMatch(/^FAIL {2}dependencies .*node_modules is missing/m);
    expect(run.stdout).toMatch(
      /^FAIL {2}sqlite {11}better-sqlite3 is not installed\. If `npm install` failed on it: /m,
    );
    expect(run.stdout).toMatch(/^FAIL {2}build .*dist\/cli\/main\.js is missing/m);
    expect(run.stdout).toContain('the state dir, config, database and Hermes checks run once HMC is built');
    expect(run.stderr).toBe('');
    const other = spawnSync(process.execPath, [join(root, 'bin', 'hmc.js'), 'analytics'], { encoding: 'utf8' });
    expect(other.status).toBe(2);
    expect(other.stderr).toContain(`node ${join(root, 'bin', 'hmc.js')} doctor\` says why`);
  });
});
