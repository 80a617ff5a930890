/**
 * The `hmc` command as a user runs it (the built bin): filter, replay, control, demo, errors.
 * Needs `npm run build` (npm test does it first); skipped with a note otherwise.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'hmc.js');
const built = existsSync(join(ROOT, 'dist', 'cli', 'main.js'));
if (!built) console.warn('cli tests skipped: dist/ is missing (run `npm run build`, as `npm test` does)');
const FIXTURE = join(ROOT, 'test', 'fixtures', 'session-build-fix.json');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

function hmc(args: string[], input?: string, env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    input,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'hmc-cli-'));
  dirs.push(d);
  return d;
}

describe.skipIf(!built)('hmc', () => {
  it('prints usage and refuses unknown commands', () => {
    expect(hmc(['--help']).stdout).toMatch(/usage: hmc <command>/);
    const bad = hmc(['frobnicate']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown command "frobnicate"/);
  });

  it('filter compresses stdin as one tool output', () => {
    const log = Array.from({ length: 200 }, (_, i) => (i === 100 ? 'ERROR: disk quota exceeded' : `line ${i} ok`)).join(
      '\n',
    );
    const r = hmc(['filter', '--tool', 'terminal'], log);
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBeLessThan(log.length);
    expect(r.stdout).toContain('ERROR: disk quota exceeded');
    expect(r.stdout).toMatch(/lines omitted/);
  });

  it('filter --jsonl answers one line per case, with an error line for a bad one', () => {
    const cases = [
      JSON.stringify({
        tool: 'terminal',
        args: { command: 'pytest' },
        output: '===== 12 passed in 0.52s =====',
        is_error: false,
      }),
      'not json',
      JSON.stringify({ tool: 'terminal', output: 42 }),
      JSON.stringify({ tool: 'terminal', args: {}, output: 'Error: file already exists' }),
    ].join('\n');
    const lines = hmc(['filter', '--jsonl'], cases)
      .stdout.trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, string>);
    expect(lines).toHaveLength(4);
    expect(lines[0]).toEqual({ output: '[tests: 12 passed]' });
    expect(lines[1]?.error).toMatch(/line 2: not JSON/);
    expect(lines[2]?.error).toMatch(/"output" must be a string/);
    expect(lines[3]).toEqual({ output: 'Error: file already exists' });
  });

  it('replay --json reports the stable public fields', () => {
    const r = hmc(['replay', FIXTURE, '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as Record<string, unknown>;
    for (const key of [
      'restore_exact',
      'input_tokens',
      'final_context_tokens',
      'saved_by_strategy',
      'saved_by_tool',
      'cache_breaks',
    ])
      expect(report).toHaveProperty(key);
    expect(report.restore_exact).toBe(true);
    const input = report.input_tokens as { raw: number; hmc: number };
    expect(input.hmc).toBeLessThan(input.raw);
    expect(Object.keys(report.saved_by_strategy as object)).toEqual(
      expect.arrayContaining(['truncation', 'code_filter']),
    );
  });

  it('replay --record writes analytics that hmc analytics then reads', () => {
    const state = tempDir();
    expect(hmc(['replay', FIXTURE, '--record', '--state-dir', state]).code).toBe(0);
    const a = hmc(['analytics', '--json', '--state-dir', state]);
    const summary = JSON.parse(a.stdout) as { total_sessions: number; total_saved: number; savings_pct: number };
    expect(summary.total_sessions).toBe(1);
    expect(summary.total_saved).toBeGreaterThan(0);
    expect(summary.savings_pct).toBeLessThanOrEqual(100);
    const status = JSON.parse(hmc(['control', 'status', '--json', '--state-dir', state]).stdout) as { status: string };
    expect(status.status).toMatch(/^HMC \[auto\]/);
  });

  it('replay --record of the same session twice replaces it: the same figures, never doubled (issue 17, finding 3)', () => {
    const state = tempDir();
    const read = (): { total_sessions: number; total_input: number; total_saved: number; model_calls: number } =>
      JSON.parse(hmc(['analytics', '--json', '--state-dir', state]).stdout) as {
        total_sessions: number;
        total_input: number;
        total_saved: number;
        model_calls: number;
      };
    expect(hmc(['replay', FIXTURE, '--record', '--state-dir', state]).code).toBe(0);
    const once = read();
    expect(once.total_input).toBeGreaterThan(0);
    expect(hmc(['replay', FIXTURE, '--record', '--state-dir', state]).code).toBe(0);
    const twice = read();
    expect(twice).toEqual(once);
    // And the session's own figures, as hmc_control reads them, are one replay's too.
    const stats = JSON.parse(hmc(['control', 'stats', '--json', '--state-dir', state]).stdout) as {
      input_saved: { tokens: number; model_calls: number };
    };
    expect(stats.input_saved).toMatchObject({ tokens: once.total_saved, model_calls: once.model_calls });
  });

  it("control index lists the latest session's phases and searches them, bare words as the query, from a terminal", () => {
    const state = tempDir();
    expect(hmc(['replay', FIXTURE, '--record', '--state-dir', state]).code).toBe(0);
    const entry = (n: number, topic: string, summary: string) =>
      JSON.stringify({
        session_id: 'session-build-fix',
        phase_id: n,
        message_from: n,
        message_to: n + 3,
        turn_from: n,
        turn_to: n,
        topic,
        summary,
        tokens_before: 5000,
        tokens_after: 400,
        recall_id: `p${n}`,
        model: 'm',
        created_at: 1_800_000_000_000 + n,
        updates: 0,
      });
    writeFileSync(
      join(state, 'sessions', 'session-build-fix_index.jsonl'),
      `${entry(1, 'Build set-up', 'Goal: install and build.')}\n${entry(2, 'Fix the linker error', 'Goal: fix the linker error in make.')}\n`,
    );
    const list = JSON.parse(hmc(['control', 'index', '--json', '--state-dir', state]).stdout) as {
      count: number;
      entries: { topic: string }[];
    };
    expect(list.entries.map((e) => e.topic)).toEqual(['Build set-up', 'Fix the linker error']);
    // Written by hand, these entries are in no analytics file: with analytics off, search reads the index files.
    const config = join(state, 'config.yaml');
    writeFileSync(config, 'analytics:\n  enabled: false\n');
    const found = hmc([
      'control',
      'index',
      'linker',
      'make',
      'scope=global',
      '--json',
      '--state-dir',
      state,
      '--config',
      config,
    ]);
    expect(found.code).toBe(0);
    expect(JSON.parse(found.stdout)).toMatchObject({
      query: 'linker make',
      scope: 'global',
      search: 'scan',
      count: 1,
      hits: [{ phase_id: 2 }],
    });
    const bad = hmc(['control', 'index', 'phase=x', '--json', '--state-dir', state]);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toEqual({
      error: 'phase must be a whole number from 1 to 9007199254740991, got "x"',
    });
    // As text: the same list as a table, an error on stderr.
    const text = hmc(['control', 'index', '--state-dir', state], undefined, { HMC_INVOKED_AS: 'hermes hmc' });
    expect(text.stdout).toBe(
      [
        'HMC index: 2 phases summarised in this session',
        '',
        'phase  turns  tokens before  after  recall id  topic',
        '-----  -----  -------------  -----  ---------  --------------------',
        '    1      1          5,000    400  p1         Build set-up',
        '    2      2          5,000    400  p2         Fix the linker error',
        '',
        'hermes hmc control index phase=N shows a summary; hermes hmc control index <words> searches; hermes hmc control recall id=… gives the original back',
        '',
      ].join('\n'),
    );
    const badText = hmc(['control', 'index', 'phase=x', '--state-dir', state]);
    expect([badText.code, badText.stdout, badText.stderr]).toEqual([
      1,
      '',
      'hmc control: phase must be a whole number from 1 to 9007199254740991, got "x"\n',
    ]);
  });

  it('replay names what is wrong with a bad session file', () => {
    const r = hmc(['replay', join(ROOT, 'package.json')]);
    expect(r.code).toBe(2); // a file that cannot be used as asked is a usage error (docs/cli.md)
    expect(r.stderr).toMatch(/expected an array of messages/);
  });

  it('demo prints the dashboard URL on a line of its own and records real sessions', async () => {
    const state = tempDir();
    const child = spawn(process.execPath, [BIN, 'demo', '--port', '0', '--pace', '0', '--once', '--state-dir', state], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(out.split('\n')[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(existsSync(join(state, 'analytics.db'))).toBe(true);
    const summary = JSON.parse(hmc(['analytics', '--json', '--state-dir', state]).stdout) as {
      total_sessions: number;
      savings_pct: number;
    };
    expect(summary.total_sessions).toBe(7);
    expect(summary.savings_pct).toBeGreaterThan(10);
    expect(readFileSync(join(state, 'sessions', `${'demo-history-1-engine-tour'}.json`), 'utf8')).not.toContain(
      'legacy-entry',
    );
    // Its money is priced with the prompt cache (issue 24): the demo's model calls have cached
    // figures, and its cost without HMC is theirs, far below every token at the write price (the
    // "6.95 USD without HMC" the demo showed before its calls went through pre_model_call).
    type Row = {
      model: string;
      input: number;
      cached_input: number;
      plain_input: number;
      price: { input: number; cache_read: number; cache_write: number };
      cost: { without_hmc: number; spent: number; saved: number };
    };
    const models = JSON.parse(hmc(['analytics', '--period', 'model', '--json', '--state-dir', state]).stdout) as {
      rows: Row[];
    };
    const row = models.rows.find((r) => r.model === 'demo-model');
    if (!row) throw new Error('no demo-model row');
    expect(row.cached_input / row.input).toBeGreaterThan(0.5);
    const { price } = row;
    const withCache =
      (row.cached_input * price.cache_read +
        (row.input - row.cached_input - row.plain_input) * price.cache_write +
        row.plain_input * price.input) /
      1e6;
    expect(row.cost.without_hmc).toBeCloseTo(withCache, 6);
    expect(row.cost.without_hmc).toBeLessThan((row.input * price.cache_write) / 1e6 / 2);
    expect(row.cost.saved).toBeGreaterThan(0);
  }, 120_000);
});
