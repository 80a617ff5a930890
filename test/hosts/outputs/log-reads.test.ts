/**
 * A log read with `cat` is still a log (issue 17, finding 5): the same 8,863-character failing
 * pytest log was cut to 1,765 characters from `sh run_tests.sh` but sent whole from `cat
 * logs/pytest_failing.txt`, because a shell command printing one file was a file read, and reads
 * are never cut. A plain-text file (`.txt`, no extension) whose lines read as a log is now that
 * log (hosts/outputs/log-text.ts): compressed as the run itself is, never code-filtered, never
 * losing a failure. Prose, data and source files printed the same way stay whole file reads.
 */
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config/keys.js';
import { compressOutput, type CompressContext } from '../../../src/engine/turn/compress.js';
import { protectionFor } from '../../../src/engine/session/protection.js';
import { parseEnvelope } from '../../../src/hosts/outputs/envelope.js';
import { isDocumentCommand, isSearchCommand } from '../../../src/hosts/outputs/shell-command.js';
import { HARM_CASES } from '../../strategies/harm/all.js';
import { noise } from '../../strategies/harm/noise.js';

const config = defaultConfig();
const ctx: CompressContext = {
  config,
  protection: protectionFor(config),
  manual: false,
  log: () => {},
  recallId: 'r0123456789',
};
const terminal = (output: string, exit: number): string => JSON.stringify({ output, exit_code: exit, error: null });
const inner = (content: string): string => (JSON.parse(content) as { output: string }).output;

/** A failing pytest run as the issue saw it: a long passing stretch, two failures with their detail, the summary. */
function pytestFailing(): { log: string; failures: string[] } {
  const failures = [
    'tests/test_orders.py::test_refund_rounding FAILED                      [ 41%]',
    "E       AssertionError: assert Decimal('10.00') == Decimal('10.01')",
    'tests/test_orders.py:88: AssertionError',
    'tests/test_users.py::test_email_unique FAILED                          [ 77%]',
    'E       sqlite3.IntegrityError: UNIQUE constraint failed: users.email',
    'FAILED tests/test_orders.py::test_refund_rounding - AssertionError',
    'FAILED tests/test_users.py::test_email_unique - sqlite3.IntegrityError',
    '==================== 2 failed, 118 passed in 4.21s ====================',
  ];
  const lines = [
    '============================= test session starts ==============================',
    'platform linux -- Python 3.11.9, pytest-8.2.0, pluggy-1.5.0',
    'collected 120 items',
    '',
    ...noise.pytestVerbose(48, 11),
    failures[0] as string,
    ...noise.pytestVerbose(44, 12),
    failures[3] as string,
    ...noise.pytestVerbose(26, 13),
    '',
    '=================================== FAILURES ===================================',
    '____________________________ test_refund_rounding _____________________________',
    '    def test_refund_rounding():',
    '>       assert refund(Decimal("10.005")) == Decimal("10.01")',
    failures[1] as string,
    failures[2] as string,
    '______________________________ test_email_unique _______________________________',
    '    def test_email_unique(db):',
    '        db.add(User(email="a@b.c"))',
    '>       db.add(User(email="a@b.c"))',
    failures[4] as string,
    'tests/test_users.py:41: IntegrityError',
    '=========================== short test summary info ============================',
    failures[5] as string,
    failures[6] as string,
    failures[7] as string,
  ];
  return { log: lines.join('\n'), failures };
}

const compress = (command: string, output: string, tool = 'terminal', hostError = false) =>
  compressOutput(output, { tool, args: { command }, hostError }, ctx);

describe('a log printed from its file', () => {
  it('is cut as the run itself is, every failure kept (the issue\u2019s 8.9 K pytest log)', () => {
    const { log, failures } = pytestFailing();
    expect(log.length).toBeGreaterThan(8000);
    const run = compress('sh run_tests.sh', terminal(log, 1));
    const cat = compress('cat logs/pytest_failing.txt', terminal(log, 1));
    const read = compress('cat logs/pytest_failing.txt', terminal(log, 0)); // cat itself succeeded
    expect(
      parseEnvelope(terminal(log, 0), { tool: 'terminal', args: { command: 'cat logs/pytest_failing.txt' } }).output
        .kind,
    ).toBe('log');
    expect(run.content.length).toBeLessThan(log.length * 0.5);
    expect(inner(cat.content)).toBe(inner(run.content));
    for (const c of [cat, read]) {
      expect(c.content.length).toBeLessThan(log.length * 0.5);
      expect(c.steps.map((s) => s.strategy)).not.toContain('code_filter');
      for (const f of failures) expect(inner(c.content)).toContain(f);
      expect(inner(c.content)).toMatch(/\(recall id=r0123456789 lines=\d+-\d+\)/);
    }
    // head, tail and sed -n through a pipeline are the same read.
    expect(inner(compress('head -n 400 logs/pytest_failing.txt', terminal(log, 1)).content)).toBe(inner(run.content));
  });

  it('is compressed exactly as the command that printed it, for the harm suite\u2019s logs', () => {
    const eligible = HARM_CASES.filter((c) =>
      ['log-failure', 'test-title', 'traceback', 'chained', 'warning-detail', 'repetitive'].includes(c.klass),
    ).filter(
      (c) =>
        typeof c.args?.command === 'string' && !isDocumentCommand(c.args.command) && !isSearchCommand(c.args.command),
    );
    let same = 0;
    for (const c of eligible) {
      const direct = compressOutput(c.output, { tool: c.tool, args: c.args ?? {}, hostError: c.isError === true }, ctx);
      const printed = compressOutput(
        c.output,
        { tool: c.tool, args: { command: 'cat logs/run_output.txt' }, hostError: c.isError === true },
        ctx,
      );
      if (printed.content === direct.content) same++;
      // Never worse than whole: a log the rule does not recognise is still sent whole, never cut wrong.
      else expect(printed.content, c.name).toBe(printed.raw);
    }
    expect(eligible.length).toBeGreaterThan(70);
    expect(same).toBeGreaterThanOrEqual(Math.ceil(eligible.length * 0.8));
  });

  it('leaves prose, data, source and short files printed by cat whole, as file reads', () => {
    const prose = Array.from(
      { length: 60 },
      (_, i) =>
        `Paragraph ${i}: the service keeps its configuration in one file, read once at start and again on change.`,
    ).join('\n');
    const requirements = Array.from({ length: 300 }, (_, i) => `package-${i}==1.${i % 7}.${i % 11}`).join('\n');
    const shortLog = noise.pytestVerbose(12, 3).join('\n');
    const source = [
      'import os',
      '',
      ...Array.from({ length: 80 }, (_, i) => `def f${i}(x):\n    """Doubles."""\n    return x * ${i}\n`),
    ].join('\n');
    for (const [path, text] of [
      ['notes.txt', prose],
      ['requirements.txt', requirements],
      ['logs/short.txt', shortLog],
      ['app.py', source],
    ] as const) {
      const env = terminal(text, 0);
      const out = parseEnvelope(env, { tool: 'terminal', args: { command: `cat ${path}` } }).output;
      expect(out.kind, path).toBe('file');
      if (path !== 'app.py') expect(compress(`cat ${path}`, env).content, path).toBe(env);
    }
    // A source file stays a read (the code filter's, never truncation's).
    expect(compress('cat app.py', terminal(source, 0)).steps.map((s) => s.strategy)).not.toContain('truncation');
  });
});
