import { describe, expect, it } from 'vitest';
import type { OutputKind, ToolOutput } from '../../../src/core/strategy.js';
import { shortCircuit } from '../../../src/strategies/single/short-circuit.js';

const ON = { enabled: true };

function out(text: string, over: Partial<ToolOutput> & { kind?: OutputKind } = {}): ToolOutput {
  return { tool: 'terminal', args: {}, text, lines: text.split('\n'), kind: 'log', isError: false, ...over };
}

function collapse(text: string, over: Partial<ToolOutput> = {}): string | null {
  const r = shortCircuit(out(text, over), ON);
  return r.kind === 'text' ? r.text : null;
}

const PYTEST_PASS = `============================= test session starts ==============================
platform linux -- Python 3.11.7, pytest-8.0.0, pluggy-1.4.0
rootdir: /work/proj
configfile: pyproject.toml
plugins: anyio-4.2.0
collected 12 items

tests/test_a.py ........                                                 [ 66%]
tests/test_b.py ..s.                                                     [100%]

======================== 11 passed, 1 skipped in 0.42s =========================`;

const CARGO_PASS = `   Compiling demo v0.1.0 (/work/demo)
    Finished \`test\` profile [unoptimized + debuginfo] target(s) in 0.61s
     Running unittests src/lib.rs (target/debug/deps/demo-1a2b3c4d)

running 3 tests
test tests::a ... ok
test tests::b ... ok
test tests::c ... ignored

test result: ok. 2 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s

   Doc-tests demo

running 1 test
test src/lib.rs - add (line 3) ... ok

test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.20s
`;

const GO_VERBOSE = `=== RUN   TestAdd
--- PASS: TestAdd (0.00s)
=== RUN   TestSub
=== RUN   TestSub/neg
    --- PASS: TestSub/neg (0.00s)
--- PASS: TestSub (0.00s)
PASS
ok  	example.com/calc	0.003s`;

const JEST_PASS = `
> demo@1.0.0 test
> jest

 PASS  src/sum.test.js
  sum
    ✓ adds 1 + 2 to equal 3 (2 ms)
    ✓ adds negatives (1 ms)
    ○ skipped later

Test Suites: 1 passed, 1 total
Tests:       1 skipped, 2 passed, 3 total
Snapshots:   0 total
Time:        0.512 s
Ran all test suites.`;

const VITEST_PASS = `
 RUN  v4.1.12 /work/main

 ✓ test/a.test.ts (5 tests) 12ms
 ✓ test/b.test.ts (3 tests | 1 skipped) 4ms

 Test Files  2 passed (2)
      Tests  7 passed | 1 skipped (8)
   Start at  20:48:07
   Duration  193ms (transform 32ms, setup 0ms, import 43ms, tests 13ms, environment 0ms)`;

const MOCHA_PASS = `

  Array
    #indexOf()
      ✔ should return -1 when the value is not present
      ✔ should return the index


  2 passing (5ms)
`;

describe('shortCircuit collapses an output that is wholly a success', () => {
  const cases: Array<[string, string, string]> = [
    ['a bare status ok JSON', '{"status": "ok", "detail": "done"}', '[ok]'],
    ['a status ok JSON with empty error fields', '{"status":"ok","error":null,"errors":[],"success":true}', '[ok]'],
    ['a bytes_written JSON', '{"bytes_written": 1234}', '[file written]'],
    [
      'a bytes_written JSON with a clean lint',
      '{"bytes_written": 1234, "dirs_created": false, "lint": {"errors": [], "warnings": []}}',
      '[file written]',
    ],
    ['a pytest banner alone', '======== 5 passed in 0.12s ========', '[tests: 5 passed]'],
    ['a full passing pytest run with a skip', PYTEST_PASS, '[tests: 11 passed, 1 skipped]'],
    [
      'pytest -q',
      '.....                                                                    [100%]\n5 passed in 0.03s',
      '[tests: 5 passed]',
    ],
    ['the original\'s "N passed, 0 failed"', '5 passed, 0 failed', '[tests: 5 passed]'],
    [
      'a cargo test line alone',
      'test result: ok. 42 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out',
      '[tests: 42 passed]',
    ],
    ['a cargo run with doc-tests and an ignored test', CARGO_PASS, '[tests: 3 passed, 1 skipped]'],
    ['go test -v', GO_VERBOSE, '[tests: 3 passed]'],
    [
      'go test without -v',
      'ok  \texample.com/a\t0.003s\nok  \texample.com/b\t(cached)\n?   \texample.com/c\t[no test files]',
      '[tests: 2 packages passed]',
    ],
    ['a jest run', JEST_PASS, '[tests: 2 passed, 1 skipped]'],
    ['a vitest run', VITEST_PASS, '[tests: 7 passed, 1 skipped]'],
    ['a mocha run', MOCHA_PASS, '[tests: 2 passed]'],
    [
      'unittest',
      '.....\n----------------------------------------------------------------------\nRan 5 tests in 0.001s\n\nOK',
      '[tests: 5 passed]',
    ],
    [
      'a clean git status',
      "On branch main\nYour branch is up to date with 'origin/main'.\n\nnothing to commit, working tree clean",
      '[ok: clean, on branch main, up to date with origin/main]',
    ],
    ['a bare clean git line', 'nothing to commit, working tree clean', '[ok: clean]'],
    [
      'git pull with nothing new',
      'From github.com:me/repo\n * branch            main       -> FETCH_HEAD\nAlready up to date.',
      '[ok: already up to date]',
    ],
    [
      'pip with everything installed',
      'Requirement already satisfied: requests in ./venv/lib/python3.11/site-packages (2.31.0)\nRequirement already satisfied: idna<4,>=2.5 in ./venv/lib/python3.11/site-packages (from requests) (3.6)',
      '[ok: already up to date]',
    ],
    [
      'npm install with nothing to do',
      'up to date, audited 123 packages in 2s\n\n14 packages are looking for funding\n  run `npm fund` for details\n\nfound 0 vulnerabilities',
      '[ok: already up to date]',
    ],
    [
      'apt with the newest version',
      'Reading package lists... Done\nBuilding dependency tree... Done\nReading state information... Done\ncurl is already the newest version (7.81.0-1ubuntu1.15).\n0 upgraded, 0 newly installed, 0 to remove and 3 not upgraded.',
      '[ok: already up to date]',
    ],
    ['CRLF line endings', '5 passed, 0 failed\r\n', '[tests: 5 passed]'],
    ['ANSI colours', '\x1b[32m======== 5 passed in 0.12s ========\x1b[0m', '[tests: 5 passed]'],
  ];
  it.each(cases)('collapses %s', (_name, text, expected) => {
    expect(collapse(text)).toBe(expected);
  });
});

describe('shortCircuit leaves anything else whole', () => {
  const cases: Array<[string, string]> = [
    ['an error that says already exists', 'Error: file already exists'],
    ['git clone into an existing path', "fatal: destination path 'x' already exists and is not an empty directory."],
    ['failed tests', '3 failed, 5 passed'],
    ['a pytest banner with failures', '=== 1 failed, 3 passed ==='],
    ['a failed cargo run', 'test result: FAILED. 3 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out'],
    [
      'a rejected git push',
      'To github.com:me/repo.git\n ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs',
    ],
    [
      'git status listing changes',
      'On branch main\nChanges not staged for commit:\n  modified:   a.txt\n\nno changes added to commit (use "git add" and/or "git commit -a")',
    ],
    ['a diff ending in no changes added', 'diff --git a/x b/x\n+line\nno changes added to commit'],
    ['a FAILED line with a zero count', 'FAILED tests/x.py - 3 passed, 0 failed?'],
    ['Panic in title case', 'Panic: boom\n5 passed, 0 failed'],
    ['ERROR in capitals', 'ERROR collecting tests\n5 passed, 0 failed'],
    ['error in lower case', 'error: boom\n5 passed, 0 failed'],
    ['a JSON with an error field', '{"status": "ok", "error": "x"}'],
    ['a JSON ok carrying data', '{"status": "ok", "id": "a1b2c3", "url": "https://x"}'],
    ['a JSON ok with an unusual message', '{"status": "ok", "message": "Created user 42 with role admin"}'],
    ['a bytes_written JSON with lint errors', '{"bytes_written": 12, "lint": {"errors": ["E501 line too long"]}}'],
    [
      'a bytes_written JSON with lint warnings',
      '{"bytes_written": 12, "lint": {"status": "ok", "warnings": [{"line": 3}]}}',
    ],
    ['a build log followed by a test summary', 'gcc -o app main.c\nmain.c:3: note: something\n5 passed, 0 failed'],
    ['pytest with a print in between', 'tests/test_a.py hello from the test\n.\n===== 1 passed in 0.01s ====='],
    [
      'pytest with a warnings summary',
      '=== warnings summary ===\ntests/a.py::test_x\n  DeprecationWarning: x\n=== 5 passed, 1 warning in 0.1s ===',
    ],
    [
      'cargo with a compiler warning',
      'warning: unused variable: `x`\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out',
    ],
    [
      'go test with t.Log output',
      '=== RUN   TestA\n    a_test.go:9: value is 42\n--- PASS: TestA (0.00s)\nPASS\nok  \tx\t0.1s',
    ],
    [
      'jest with console output',
      ' PASS  src/a.test.js\n  console.log\n    secret value 42\n\nTests:       1 passed, 1 total',
    ],
    [
      'the original quirk: a clean working phrase inside a longer report',
      'Report\nThe repo has no changes since Monday\nSee above',
    ],
    ['npm with vulnerabilities', 'up to date, audited 12 packages in 1s\n\nfound 2 high severity vulnerabilities'],
    [
      'pip installing something new',
      'Requirement already satisfied: a in /x (1.0)\nCollecting b\nSuccessfully installed b-2.0',
    ],
    ['empty text', ''],
    ['only whitespace', '  \n\t\n'],
    ['lines of only carriage returns', '\r\n\r\n\r'],
    ['CJK and emoji', '成功しました 🎉\n全部 OK'],
    ['binary junk', '\u0000\u0001\u00ff\ufffd\u0007PNG\u001a'],
    ['a JSON array', '[{"status": "ok"}]'],
    ['invalid JSON', '{"status": "ok",}'],
    ['a text too short for any shape', 'ok'],
  ];
  it.each(cases)('keeps %s', (_name, text) => {
    expect(shortCircuit(out(text), ON).kind).toBe('skipped');
  });

  it('never collapses a failed call, even a success-shaped one', () => {
    expect(shortCircuit(out('{"status": "ok"}', { isError: true }), ON).kind).toBe('skipped');
  });

  it('never collapses a file read or search results', () => {
    expect(shortCircuit(out('{"status": "ok"}', { kind: 'file', path: 'ok.json' }), ON).kind).toBe('skipped');
    expect(shortCircuit(out('nothing to commit, working tree clean', { kind: 'search' }), ON).kind).toBe('skipped');
  });

  it('skips when the one-liner would not be shorter than the output', () => {
    expect(shortCircuit(out('1 passed,0 failed'), ON)).toEqual({
      kind: 'skipped',
      reason: 'the one-liner is not shorter',
    });
  });

  it('does nothing when disabled', () => {
    expect(shortCircuit(out('5 passed, 0 failed'), { enabled: false })).toEqual({
      kind: 'skipped',
      reason: 'short circuits disabled',
    });
  });

  it('skips a 5 MB log quickly and without throwing', () => {
    const big = Array.from({ length: 250_000 }, (_, i) => `INFO step ${i} done`).join('\n') + '\n5 passed, 0 failed';
    expect(shortCircuit(out(big), ON).kind).toBe('skipped');
  });
});
