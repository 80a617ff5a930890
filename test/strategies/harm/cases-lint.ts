/**
 * Lint diagnostics printed over several lines (issue 15): the message on one line and the
 * location on another (ruff, oxlint and biome print the message, then an arrow or a header with
 * `path:line:col`; deno lint prints the message, the code and then `at path:line:col`;
 * shellcheck the location first). A cut must never keep a diagnostic's location and drop its
 * message: the model would know where, not what.
 */
import { bash, type HarmCase } from './case.js';
import { text } from './noise.js';

const RUFF_RULES = [
  ['F401', '[*] `{n}` imported but unused', 'import {n}'],
  [
    'E501',
    'Line too long (104 > 88)',
    '    return compute_totals(orders, taxes, discounts, currency, rounding, locale, {n})',
  ],
  ['F841', 'Local variable `{n}` is assigned to but never used', '    {n} = load()'],
  ['B006', 'Do not use mutable data structures for argument defaults', 'def run(items={n}):'],
] as const;

/** ruff ≥ 0.12's full format: message, then `--> path:line:col`, a code frame and a help line. */
function ruff(i: number, file: string, rule: (typeof RUFF_RULES)[number], name: string): string[] {
  const [code, msg, src] = rule;
  const line = 10 + ((i * 7) % 90);
  return [
    `${code} ${msg.replace('{n}', name)}`,
    `  --> ${file}:${line}:5`,
    '   |',
    `${line} | ${src.replace('{n}', name)}`,
    `   |     ${'^'.repeat(Math.min(12, name.length + 2))}`,
    '   |',
    `help: ${code === 'F401' ? `Remove unused import: \`${name}\`` : code === 'F841' ? `Remove assignment to unused variable \`${name}\`` : 'See the rule documentation'}`,
    '',
  ];
}

/** oxlint: `  ⚠ eslint(rule): message`, then `╭─[path:line:col]` and a code frame. */
function oxlint(i: number, file: string, rule: string, msg: string): string[] {
  const line = 3 + ((i * 5) % 60);
  return [
    `  ⚠ eslint(${rule}): ${msg}`,
    `   ╭─[${file}:${line}:9]`,
    ` ${line - 1} │ export function handler${i}(req: Request) {`,
    ` ${line} │   const tmp${i} = req.body;`,
    '    ·         ───┬───',
    `    ·            ╰── 'tmp${i}' is declared here`,
    ` ${line + 1} │   return respond(req);`,
    '    ╰────',
    '  help: Consider removing this declaration.',
    '',
  ];
}

export const lintMessageCases: HarmCase[] = [
  {
    name: 'ruff full format: a lone B006 keeps its message with its location among many diagnostics',
    klass: 'lint-message',
    ...bash('ruff check .'),
    output: text(
      Array.from({ length: 14 }, (_, i) =>
        ruff(i, `app/services/module_${i}.py`, RUFF_RULES[i % 2] as (typeof RUFF_RULES)[number], `helper_${i}`),
      ).flat(),
      ruff(99, 'app/jobs/sync.py', RUFF_RULES[3], '[]'),
      Array.from({ length: 14 }, (_, i) =>
        ruff(i + 20, `app/api/view_${i}.py`, RUFF_RULES[i % 2] as (typeof RUFF_RULES)[number], `param_${i}`),
      ).flat(),
      'Found 29 errors.',
      '[*] 14 fixable with the `--fix` option.',
    ),
    keep: ['B006 Do not use mutable data structures for argument defaults', 'app/jobs/sync.py:'],
  },
  {
    name: 'ruff full format: the same rule in many files keeps each kept location with its message',
    klass: 'lint-message',
    ...bash('ruff check src'),
    output: text(
      Array.from({ length: 24 }, (_, i) => ruff(i, `src/pkg/file_${i}.py`, RUFF_RULES[2], `unused_${i}`)).flat(),
      'Found 24 errors.',
      'No fixes available (24 hidden fixes can be enabled with the `--unsafe-fixes` option).',
    ),
    keep: ['Found 24 errors.'],
    pairs: [/^F841 .*$/, /^ {2}--> .*$/],
  },
  {
    name: 'oxlint: a warning message line with no warning word stays with its location',
    klass: 'lint-message',
    ...bash('npx oxlint src'),
    output: text(
      Array.from({ length: 10 }, (_, i) =>
        oxlint(
          i,
          `src/routes/route_${i}.ts`,
          'no-unused-vars',
          `Variable 'tmp${i}' is declared but never used. Unused variables should start with a '_'.`,
        ),
      ).flat(),
      oxlint(
        50,
        'src/auth/session.ts',
        'no-async-promise-executor',
        'Promise executor functions should not be `async`.',
      ),
      Array.from({ length: 10 }, (_, i) =>
        oxlint(
          i + 20,
          `src/lib/lib_${i}.ts`,
          'no-unused-vars',
          `Variable 'tmp${i + 20}' is declared but never used. Unused variables should start with a '_'.`,
        ),
      ).flat(),
      'Found 21 warnings and 0 errors.',
      'Finished in 31ms on 212 files with 93 rules using 8 threads.',
    ),
    keep: ['Promise executor functions should not be `async`.', 'src/auth/session.ts:'],
    pairs: [/^ {2}⚠ eslint\(.*$/, /^ {3}╭─\[.*$/],
  },
  {
    name: 'biome: a warning marked ⚠ under its file header survives with it',
    klass: 'lint-message',
    ...bash('npx biome lint src'),
    output: text(
      Array.from({ length: 12 }, (_, i) => [
        `src/components/Card${i}.tsx:${10 + i}:7 lint/style/useConst  FIXABLE  ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━`,
        '',
        '  ✖ This let declares a variable that is only assigned once.',
        '',
        `    ${10 + i} │   let title = props.title;`,
        '       │   ^^^',
        '',
        '  ℹ Safe fix: Use const instead.',
        '',
      ]).flat(),
      'src/api/client.ts:42:7 lint/suspicious/noExplicitAny ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━',
      '',
      '  ⚠ Unexpected any. Specify a different type.',
      '',
      '    41 │ export async function request(path: string, body: unknown) {',
      '  > 42 │   const payload: any = body;',
      '       │                  ^^^',
      '',
      '  ℹ any disables many type checking rules. Its use should be avoided.',
      '',
      Array.from({ length: 12 }, (_, i) => [
        `src/pages/Page${i}.tsx:${20 + i}:3 lint/style/useConst  FIXABLE  ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━`,
        '',
        '  ✖ This let declares a variable that is only assigned once.',
        '',
        `    ${20 + i} │   let items = load();`,
        '       │   ^^^',
        '',
      ]).flat(),
      'Checked 118 files in 41ms. No fixes applied.',
      'Found 24 errors.',
      'Found 1 warning.',
    ),
    keep: ['Unexpected any. Specify a different type.', 'src/api/client.ts:42:7'],
  },
  {
    name: 'deno lint (1.x): the message line above the code frame stays with its `at` location',
    klass: 'lint-message',
    ...bash('deno lint'),
    output: text(
      Array.from({ length: 16 }, (_, i) => [
        `(prefer-const) \`count${i}\` is never reassigned`,
        `    let count${i} = 0;`,
        '        ^^^^^^',
        `    at /app/src/handlers/h${i}.ts:${5 + i}:8`,
        '',
        `    hint: Use \`const\` instead`,
        '    help: for further information visit https://lint.deno.land/rules/prefer-const',
        '',
      ]).flat(),
      '(no-explicit-any) `any` type is not allowed',
      '    export function parse(raw: any) {',
      '                               ^^^',
      '    at /app/src/config/parse.ts:14:32',
      '',
      '    hint: Use a specific type other than `any`',
      '    help: for further information visit https://lint.deno.land/rules/no-explicit-any',
      '',
      'Found 17 problems',
      'Checked 64 files',
    ),
    keep: ['(no-explicit-any) `any` type is not allowed', 'at /app/src/config/parse.ts:14:32'],
    pairs: [/^\(prefer-const\) .*$/, /^ {4}at \/app\/src\/handlers\/.*$/],
  },
  {
    name: 'shellcheck: the file and line header stays with its warning',
    klass: 'lint-message',
    ...bash('shellcheck scripts/*.sh'),
    output: text(
      Array.from({ length: 14 }, (_, i) => [
        `In scripts/job_${i}.sh line ${3 + i}:`,
        `echo $VAR_${i}`,
        `     ^------^ SC2086 (info): Double quote to prevent globbing and word splitting.`,
        '',
        'Did you mean: ',
        `echo "$VAR_${i}"`,
        '',
      ]).flat(),
      'In scripts/deploy.sh line 42:',
      'rm -rf $BUILD_DIR/*',
      '       ^--------^ SC2115 (warning): Use "${var:?}" to ensure this never expands to /* .',
      '',
      Array.from({ length: 14 }, (_, i) => [
        `In scripts/task_${i}.sh line ${9 + i}:`,
        `cd $DIR_${i}`,
        `   ^-----^ SC2164 (warning): Use 'cd ... || exit' or 'cd ... || return' in case cd fails.`,
        '',
      ]).flat(),
      'For more information:',
      '  https://www.shellcheck.net/wiki/SC2115 -- Use "${var:?}" to ensure this neve...',
    ),
    keep: ['In scripts/deploy.sh line 42:', 'SC2115 (warning): Use "${var:?}" to ensure this never expands to /* .'],
  },
];
