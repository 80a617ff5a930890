/**
 * Issue 11, item 7: one command-line convention (docs/cli.md). `demo --help`, `filter --help` and
 * `doctor --help` said "Unknown option"; usage errors exited 1 in `filter` and `demo`; `replay`
 * printed a bare EISDIR / ENOENT; `hmc demo` left its temp dir behind on Ctrl-C; `control status`
 * from a terminal said "no session has started in this process"; `control stats` showed an
 * estimate beside an empty per-strategy map. The built bin, as a user runs it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'hmc.js');
const built = existsSync(join(ROOT, 'dist', 'cli', 'main.js'));
if (!built) console.warn('cli convention tests skipped: dist/ is missing (run `npm run build`, as `npm test` does)');
const FIXTURE = join(ROOT, 'test', 'fixtures', 'session-build-fix.json');
const COMMANDS = ['sidecar', 'dashboard', 'demo', 'replay', 'filter', 'analytics', 'control', 'doctor'];
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'hmc-conv-'));
  dirs.push(d);
  return d;
}

function hmc(args: string[], input = '', env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    input,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe.skipIf(!built)('the command-line convention', () => {
  it.each(COMMANDS)('%s --help prints its usage on stdout and exits 0 (regression: "Unknown option")', (name) => {
    const r = hmc([name, '--help']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^usage: hmc ${name}`));
    expect(r.stderr).toBe('');
    expect(hmc([name, '-h']).stdout).toBe(r.stdout);
  });

  it.each(COMMANDS)(
    '%s: an unknown option is a usage error, exit 2, named, with the usage (regression: exit 1 in filter and demo)',
    (name) => {
      const r = hmc([name, '--frobnicate']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^hmc ${name}: unknown option "?'?--frobnicate`));
      expect(r.stderr).toContain(`usage: hmc ${name}`);
      expect(r.stdout).toBe('');
    },
  );

  it('replay names the file and what is wrong with it (regression: a bare EISDIR / ENOENT)', () => {
    const dir = tempDir();
    const asDir = hmc(['replay', dir]);
    expect(asDir.code).toBe(2);
    expect(asDir.stderr).toContain(`hmc replay: ${dir} is a directory, not a session file`);
    const missing = hmc(['replay', join(dir, 'nope.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`hmc replay: ${join(dir, 'nope.json')}: no such session file`);
    writeFileSync(join(dir, 'bad.json'), '{"not": "a session"');
    expect(hmc(['replay', join(dir, 'bad.json')]).stderr).toMatch(/bad\.json: not JSON/);
    expect(hmc(['filter', '--config', join(dir, 'none.yaml')]).stderr).toContain('no such config file');
  });

  it('filter --stats writes one line of statistics to stderr, stdout unchanged', () => {
    const log = Array.from({ length: 200 }, (_, i) => `line ${i} ok`).join('\n');
    const plain = hmc(['filter'], log);
    const stats = hmc(['filter', '--stats'], log);
    expect(stats.stdout).toBe(plain.stdout);
    expect(stats.stderr).toMatch(/^hmc filter: \d+ → \d+ tokens \(truncation\)\n$/);
    const cases = `${JSON.stringify({ tool: 'terminal', output: log })}\nnot json\n`;
    const jsonl = hmc(['filter', '--jsonl', '--stats'], cases);
    expect(jsonl.stdout.trim().split('\n')).toHaveLength(2);
    expect(jsonl.stderr).toMatch(/^hmc filter: 2 case\(s\), 1 rejected; \d+ → \d+ tokens \(\d+\.\d% saved\)\n$/);
  });

  it.each(['SIGINT', 'SIGTERM'] as const)(
    'demo removes its temporary state dir on %s (regression: left behind on Ctrl-C)',
    async (signal) => {
      const tmp = tempDir();
      const child = spawn(process.execPath, [BIN, 'demo', '--port', '0', '--pace', '5000', '--no-history'], {
        env: { ...process.env, TMPDIR: tmp },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      const end = Date.now() + 30_000;
      while (!out.includes('\n') && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
      expect(readdirSync(tmp).filter((n) => n.startsWith('hmc-demo-'))).toHaveLength(1);
      child.kill(signal);
      const code = await new Promise<number | null>((r) => child.once('exit', r));
      expect(code).toBe(0);
      expect(readdirSync(tmp).filter((n) => n.startsWith('hmc-demo-'))).toEqual([]);
    },
  );

  it('control status from a terminal answers for the latest saved session, and says where it looked when there is none', () => {
    const state = tempDir();
    const none = hmc(['control', 'status', '--state-dir', state]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(`no session saved in ${join(state, 'sessions')} yet`);
    expect(none.stderr).not.toContain('in this process');
    expect(hmc(['replay', FIXTURE, '--record', '--state-dir', state, '--session', 'recorded']).code).toBe(0);
    // The replay ran through a runtime with this state dir, which saved the session.
    const status = hmc(['control', 'status', '--state-dir', state]);
    expect(status.code, status.stderr).toBe(0);
    // Text for a person (issue 27, finding 3: it was {"status": "HMC [auto] | …\n …"}), the JSON with --json.
    expect(status.stdout).toMatch(
      /^HMC \[auto\] \| ctx: .*\n {2}input saved by strategy: .*\n {2}money: .* \(modelled, with the prompt cache\).*\n$/,
    );
    expect(JSON.parse(hmc(['control', 'status', '--json', '--state-dir', state]).stdout)).toEqual({
      status: status.stdout.slice(0, -1),
    });
    const unknown = hmc(['control', 'status', '--state-dir', state, '--session', 'nobody']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no session "nobody" saved in');
  });

  it('control stats never shows the context saved beside an empty per-strategy map', () => {
    const state = tempDir();
    expect(hmc(['replay', FIXTURE, '--record', '--state-dir', state, '--session', 'recorded']).code).toBe(0);
    type Stats = { context_saved: { tokens: number | null; by_strategy: Record<string, number> | null } };
    const stats = JSON.parse(hmc(['control', 'stats', '--json', '--state-dir', state]).stdout) as Stats;
    expect(stats.context_saved.tokens).toBeGreaterThan(0);
    // The figure comes with its breakdown (the regression: a figure beside `{}`).
    expect(Object.keys(stats.context_saved.by_strategy ?? {}).length).toBeGreaterThan(0);
    // A session file from before the breakdown was saved: neither figure, rather than a lonely one.
    const file = join(state, 'sessions', 'recorded.json');
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { ledger: Record<string, unknown> };
    delete saved.ledger.contextByStrategy;
    writeFileSync(file, JSON.stringify(saved));
    const old = JSON.parse(hmc(['control', 'stats', '--json', '--state-dir', state]).stdout) as Stats;
    expect(old.context_saved.tokens).toBeNull();
    expect(old.context_saved.by_strategy).toBeNull();
    // As text: no figure in the row, a line saying why, and no context column in the strategy table.
    const text = hmc(['control', 'stats', '--state-dir', state]).stdout;
    expect(text).toMatch(/\ncontext saved now\s*\n/);
    expect(text).toContain(
      '(context saved now: known again after the next model call; this session was saved by an older HMC)',
    );
    expect(text).toMatch(/\ntruncation {2,}\d[\d,]*\n/);
  });

  it('an unknown /hmc action is not echoed back whole (regression: 100 KB came back)', () => {
    const state = tempDir();
    mkdirSync(join(state, 'sessions'));
    const r = hmc(['control', `x${'y'.repeat(100_000)}`, '--state-dir', state]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.length).toBeLessThan(400);
    expect(r.stderr).toContain('(100001 characters)');
  });
});
