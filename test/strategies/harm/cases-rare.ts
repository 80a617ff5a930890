/**
 * Issue 25's two open harm classes. (a) A long log made mostly of one repeated kind of line
 * (hundreds of `deprecated` warnings) with a few lines of a different, rarer kind among them (a
 * multi-line engine-compatibility block): the rare kind carries the fact (this Node is too old),
 * so it must survive whatever happens to the repeated kind. (b) A linter's output of many
 * diagnostics, each a message line followed by a location, a source snippet and help notes:
 * every diagnostic's message line must survive, whatever happens to its snippet.
 */
import { bash, type HarmCase } from './case.js';
import { text } from './noise.js';

const PACKAGES = [
  'inflight',
  'glob',
  'rimraf',
  'npmlog',
  'gauge',
  'are-we-there-yet',
  'abab',
  'domexception',
  'w3c-hr-time',
  'sourcemap-codec',
  'stable',
  'querystring',
  'uuid',
  'request',
  'har-validator',
  'svgo',
  'q',
  'core-js',
  'left-pad',
  'urix',
  'resolve-url',
  'source-map-resolve',
  'source-map-url',
  'chokidar',
  'fsevents',
  'mkdirp',
  'osenv',
  'tar',
  'node-pre-gyp',
  'har-schema',
];
const REASONS = [
  'This module is not supported, and leaks memory. Do not use it.',
  'Glob versions prior to v9 are no longer supported',
  'Rimraf versions prior to v4 are no longer supported',
  'This package is no longer supported.',
  "Use your platform's native DOMException instead",
  'Please use @jridgewell/sourcemap-codec instead',
  'Modern JS already guarantees Array#sort() is a stable sort, so this library is deprecated.',
  'The querystring API is considered Legacy. new code should use the URLSearchParams API instead.',
  'Please upgrade to version 7 or higher. Older versions may use Math.random() in certain circumstances.',
  'request has been deprecated, see https://github.com/request/request/issues/3142',
];

/** `npm WARN deprecated name@x.y.z: reason`, n of them, all different packages and versions. */
function deprecations(n: number, seed: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const k = i + seed;
    const name = `${PACKAGES[k % PACKAGES.length]}${k >= PACKAGES.length ? `-${Math.floor(k / PACKAGES.length)}` : ''}`;
    return `npm WARN deprecated ${name}@${1 + (k % 7)}.${k % 13}.${k % 5}: ${REASONS[k % REASONS.length]}`;
  });
}

function engineBlock(pkg: string, required: string, node: string, npm: string): string[] {
  return [
    'npm WARN EBADENGINE Unsupported engine {',
    `npm WARN EBADENGINE   package: '${pkg}',`,
    `npm WARN EBADENGINE   required: { node: '${required}' },`,
    `npm WARN EBADENGINE   current: { node: '${node}', npm: '${npm}' }`,
    'npm WARN EBADENGINE }',
  ];
}

/** clippy / rustc: `warning: message`, `--> path:line:col`, a code frame, `= note`/`= help` lines. */
function rustDiagnostic(i: number): string[] {
  const line = 12 + ((i * 11) % 300);
  const kinds = [
    [
      `unused variable: \`item_${i}\``,
      `let item_${i} = fetch(&client)?;`,
      `help: if this is intentional, prefix it with an underscore: \`_item_${i}\``,
      '= note: `#[warn(unused_variables)]` on by default',
    ],
    [
      `this \`if\` has identical blocks`,
      `if ready_${i} { commit(tx) } else { commit(tx) }`,
      'help: remove the `if`',
      '= help: for further information visit https://rust-lang.github.io/rust-clippy/master/index.html#if_same_then_else',
    ],
    [
      `redundant clone`,
      `let name_${i} = user.name.clone();`,
      'help: remove this',
      '= help: for further information visit https://rust-lang.github.io/rust-clippy/master/index.html#redundant_clone',
    ],
    [
      `field \`cache_${i}\` is never read`,
      `    cache_${i}: HashMap<String, Entry>,`,
      '',
      '= note: `Store` has a derived impl for the trait `Debug`, but this is intentionally ignored during dead code analysis',
    ],
  ] as const;
  const [msg, src, help, note] = kinds[i % kinds.length] as (typeof kinds)[number];
  return [
    `warning: ${msg}`,
    `   --> src/storage/module_${i}.rs:${line}:9`,
    '    |',
    `${String(line).padStart(3)} |     ${src}`,
    `    |         ^^^^^^^^^ ${help}`,
    '    |',
    `    ${note}`,
    '',
  ];
}

const RUST_WARNINGS = Array.from({ length: 48 }, (_, i) => rustDiagnostic(i));

/** ESLint's stylish format has one line per diagnostic; typescript-eslint's codeframe has frames. */
function codeframe(i: number): string[] {
  const line = 5 + ((i * 7) % 200);
  const rules = [
    ['@typescript-eslint/no-unused-vars', `'handler${i}' is defined but never used.`],
    ['@typescript-eslint/no-explicit-any', 'Unexpected any. Specify a different type.'],
    [
      'react-hooks/exhaustive-deps',
      `React Hook useEffect has a missing dependency: 'query${i}'. Either include it or remove the dependency array.`,
    ],
  ] as const;
  const [rule, msg] = rules[i % rules.length] as (typeof rules)[number];
  return [
    `error: ${msg} (${rule}) at src/features/panel_${i}.tsx:${line}:11:`,
    `  ${line - 1} | export function Panel${i}(props: Props) {`,
    `> ${line} |   const handler${i} = (e: any) => props.onChange(e);`,
    '    |           ^',
    `  ${line + 1} |   return <div />;`,
    '',
    '',
  ];
}

export const rareKindCases: HarmCase[] = [
  {
    name: 'npm: an engine-compatibility block among hundreds of deprecation warnings survives whole',
    klass: 'rare-kind',
    ...bash('npm install'),
    output: text(
      deprecations(180, 0),
      engineBlock('vite@5.4.2', '^18.0.0 || >=20.0.0', 'v16.20.2', '8.19.4'),
      deprecations(170, 200),
      'added 1432 packages, and audited 1433 packages in 41s',
      '',
      '219 packages are looking for funding',
      '  run `npm fund` for details',
      '',
      'found 0 vulnerabilities',
    ),
    keep: [
      "package: 'vite@5.4.2'",
      "required: { node: '^18.0.0 || >=20.0.0' }",
      "current: { node: 'v16.20.2', npm: '8.19.4' }",
      'added 1432 packages',
    ],
    shrinkTo: 0.5,
  },
  {
    name: 'npm: two engine blocks far apart in a flood of deprecations both survive',
    klass: 'rare-kind',
    ...bash('npm ci --no-audit'),
    output: text(
      deprecations(60, 400),
      engineBlock('@vitejs/plugin-react@4.3.1', '^14.18.0 || >=16.0.0', 'v12.22.12', '6.14.16'),
      deprecations(260, 500),
      engineBlock('eslint@9.9.0', '^18.18.0 || ^20.9.0 || >=21.1.0', 'v12.22.12', '6.14.16'),
      deprecations(90, 800),
      'added 987 packages in 22s',
    ),
    keep: [
      "package: '@vitejs/plugin-react@4.3.1'",
      "package: 'eslint@9.9.0'",
      "required: { node: '^18.18.0 || ^20.9.0 || >=21.1.0' }",
      "current: { node: 'v12.22.12', npm: '6.14.16' }",
    ],
    shrinkTo: 0.5,
  },
  {
    name: 'clippy: every warning keeps its message line among 48 diagnostics with code frames',
    klass: 'lint-all-messages',
    ...bash('cargo clippy --all-targets'),
    output: text(
      '    Checking storage v0.3.1 (/work/storage)',
      RUST_WARNINGS.flat(),
      'warning: `storage` (lib) generated 48 warnings (run `cargo clippy --fix --lib -p storage` to apply 12 suggestions)',
      '    Finished `dev` profile [unoptimized + debuginfo] target(s) in 4.21s',
    ),
    keep: [...new Set(RUST_WARNINGS.map((d) => d[0] as string)), 'generated 48 warnings'],
  },
  {
    name: 'typescript-eslint codeframe: every diagnostic keeps its message line',
    klass: 'lint-all-messages',
    ...bash('npx eslint --format codeframe src'),
    output: text(Array.from({ length: 40 }, (_, i) => codeframe(i)).flat(), '40 errors found.'),
    keep: [...Array.from({ length: 40 }, (_, i) => (codeframe(i)[0] as string).replace(/:$/, '')), '40 errors found.'],
  },
];
