/**
 * Filler for the harm suite: deterministic lines shaped like what real tools print between the
 * facts that matter (pytest progress, cargo/npm/pip/docker chatter, server logs, kubectl rows…).
 * Invariant: no filler line reports a failure or a warning, so a fact placed among them is the
 * only thing a good compression has to keep.
 */
import { rng } from '../../helpers/random.js';

const WORDS = [
  'core',
  'api',
  'auth',
  'billing',
  'cache',
  'client',
  'config',
  'db',
  'events',
  'http',
  'jobs',
  'models',
  'orders',
  'parser',
  'queue',
  'router',
  'search',
  'session',
  'storage',
  'users',
  'utils',
  'views',
  'worker',
];
const CRATES = [
  'serde',
  'serde_json',
  'tokio',
  'syn',
  'quote',
  'proc-macro2',
  'libc',
  'memchr',
  'regex',
  'regex-syntax',
  'aho-corasick',
  'bytes',
  'futures-core',
  'futures-util',
  'pin-project-lite',
  'mio',
  'socket2',
  'tracing',
  'tracing-core',
  'once_cell',
  'log',
  'itoa',
  'ryu',
  'hashbrown',
  'indexmap',
  'smallvec',
  'cfg-if',
  'unicode-ident',
  'autocfg',
  'bitflags',
  'parking_lot',
  'lock_api',
  'scopeguard',
  'rand',
  'rand_core',
  'getrandom',
  'clap',
  'anyhow',
  'thiserror',
  'hyper',
  'http',
  'httparse',
  'h2',
  'tower',
  'axum',
  'time',
  'chrono',
  'uuid',
  'url',
  'percent-encoding',
];

export function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)] as T;
}

function ms(r: () => number): string {
  return `${Math.floor(r() * 900 + 10)}ms`;
}

function times<T>(n: number, seed: number, f: (i: number, r: () => number) => T): T[] {
  const r = rng(seed);
  return Array.from({ length: n }, (_, i) => f(i, r));
}

export const noise = {
  /** `tests/test_users.py::test_case_3 PASSED                     [ 12%]` */
  pytestVerbose: (n: number, seed = 1): string[] =>
    times(n, seed, (i, r) => {
      const pct = String(Math.floor((i * 100) / Math.max(1, n))).padStart(3);
      return `tests/test_${pick(r, WORDS)}.py::test_${pick(r, WORDS)}_${i} PASSED`.padEnd(70) + `[${pct}%]`;
    }),
  /** `2024-05-02 10:31:07,114 INFO [worker-3] processed order 10231 in 42ms` */
  appLog: (n: number, seed = 2): string[] =>
    times(n, seed, (i, r) => {
      const s = String(7 + (i % 50)).padStart(2, '0');
      return `2024-05-02 10:31:${s},${String(100 + i).slice(-3)} INFO [worker-${i % 4}] ${pick(r, ['processed', 'queued', 'synced', 'indexed'])} ${pick(r, WORDS)} ${10000 + i * 7} in ${ms(r)}`;
    }),
  /** `   Compiling serde v1.0.190` */
  cargoCompiling: (n: number, seed = 3): string[] =>
    times(
      n,
      seed,
      (i, r) =>
        `   Compiling ${CRATES[i % CRATES.length]}${i >= CRATES.length ? `-${i}` : ''} v${Math.floor(r() * 3)}.${Math.floor(r() * 20)}.${Math.floor(r() * 30)}`,
    ),
  /** `npm http fetch GET 200 https://registry.example/lodash 34ms (cache revalidated)` style npm verbose chatter. */
  npmVerbose: (n: number, seed = 4): string[] =>
    times(
      n,
      seed,
      (_i, r) =>
        `npm http fetch GET 200 https://registry.npmjs.org/${pick(r, WORDS)}-${pick(r, CRATES)} ${ms(r)} (cache revalidated)`,
    ),
  /** `Collecting requests>=2.0` / `  Downloading requests-2.31.0-py3-none-any.whl (62 kB)` */
  pipInstall: (n: number, seed = 5): string[] =>
    times(n, seed, (i, r) =>
      i % 2 === 0
        ? `Collecting ${pick(r, CRATES).replace(/_/g, '-')}>=${Math.floor(r() * 4)}.0`
        : `  Downloading ${pick(r, CRATES)}-${Math.floor(r() * 4)}.${Math.floor(r() * 9)}.0-py3-none-any.whl (${Math.floor(r() * 900)} kB)`,
    ),
  /** `#12 [builder 4/9] RUN go mod download` docker buildkit lines. */
  dockerBuild: (n: number, seed = 6): string[] =>
    times(
      n,
      seed,
      (i, r) =>
        `#${i + 5} ${(r() * 9).toFixed(2)} ${pick(r, ['go: downloading', 'fetch', 'extracting', 'writing layer'])} ${pick(r, WORDS)}/${pick(r, CRATES)} v0.${i}.0`,
    ),
  /** kubectl get pods rows, all Running. */
  kubectlPods: (n: number, seed = 7): string[] =>
    times(
      n,
      seed,
      (i, r) =>
        `${pick(r, WORDS)}-deployment-7d9f8c${String(1000 + i)}-x${i}k2p`.padEnd(48) +
        `1/1     Running   0          ${Math.floor(r() * 9) + 1}d`,
    ),
  /** gradle `> Task :core:compileJava UP-TO-DATE` */
  gradleTasks: (n: number, seed = 8): string[] =>
    times(
      n,
      seed,
      (_i, r) =>
        `> Task :${pick(r, WORDS)}:${pick(r, ['compileJava', 'processResources', 'classes', 'jar', 'compileTestJava', 'processTestResources', 'testClasses'])}${r() < 0.5 ? ' UP-TO-DATE' : ''}`,
    ),
  /** maven `[INFO] Downloaded from central: https://repo.maven.apache.org/… (12 kB at 300 kB/s)` */
  mavenInfo: (n: number, seed = 9): string[] =>
    times(
      n,
      seed,
      (i, r) =>
        `[INFO] Downloaded from central: https://repo.maven.apache.org/maven2/org/${pick(r, WORDS)}/${pick(r, CRATES)}/1.${i}/${pick(r, CRATES)}-1.${i}.jar (${Math.floor(r() * 900)} kB at 1.2 MB/s)`,
    ),
  /** go test -v passing lines. */
  goTestPass: (n: number, seed = 10): string[] =>
    times(n, seed, (i, r) =>
      i % 2 === 0
        ? `=== RUN   Test${pick(r, ['Parse', 'Load', 'Save', 'Route'])}${i}`
        : `--- PASS: Test${pick(r, ['Parse', 'Load', 'Save', 'Route'])}${i - 1} (0.0${Math.floor(r() * 9)}s)`,
    ),
  /** jest/vitest passing test lines. */
  jestPass: (n: number, seed = 11): string[] =>
    times(
      n,
      seed,
      (i, r) =>
        `    ✓ ${pick(r, ['renders', 'handles', 'parses', 'returns', 'updates'])} ${pick(r, WORDS)} case ${i} (${Math.floor(r() * 40) + 1} ms)`,
    ),
  /** terraform plan resource lines. */
  terraformPlan: (n: number, seed = 12): string[] =>
    times(
      n,
      seed,
      (i, r) =>
        `      + ${pick(r, ['tags', 'name', 'arn', 'id', 'cidr_block', 'instance_type', 'ami'])}${' '.repeat(6)}= ${r() < 0.5 ? '(known after apply)' : `"${pick(r, WORDS)}-${i}"`}`,
    ),
  /** git log --oneline */
  gitLog: (n: number, seed = 13): string[] =>
    times(
      n,
      seed,
      (_i, r) =>
        `${Math.floor(r() * 0xfffffff)
          .toString(16)
          .padStart(
            7,
            '0',
          )} ${pick(r, ['Add', 'Update', 'Refactor', 'Tidy', 'Document'])} ${pick(r, WORDS)} ${pick(r, ['handler', 'tests', 'config', 'docs', 'types'])}`,
    ),
  /** Plain English sentences of a docs page, none with a failure or warning word. */
  prose: (n: number, seed = 14): string[] =>
    times(n, seed, (i, r) => {
      const subject = pick(r, [
        'The client',
        'This option',
        'Each worker',
        'The scheduler',
        'A request',
        'The cache layer',
        'Every job',
      ]);
      const verb = pick(r, ['keeps', 'sends', 'stores', 'reads', 'returns', 'accepts', 'records']);
      const obj = pick(r, [
        'a copy of the settings',
        'the current state',
        'one entry per key',
        'the headers it was given',
        'a summary of the batch',
        'the list of members',
      ]);
      return `${subject} ${verb} ${obj} ${pick(r, ['when it starts', 'after each call', 'between runs', 'for later use', 'on every update'])}, section ${i + 1}.`;
    }),
  /** Source-ish lines of a grep hit: `src/users/models.py:41:    def save(self):` */
  grepHits: (n: number, seed = 15, pattern = 'user_id'): string[] =>
    times(
      n,
      seed,
      (i, r) =>
        `src/${pick(r, WORDS)}/${pick(r, WORDS)}_${i % 7}.py:${Math.floor(r() * 400) + 1}:    ${pick(r, ['self.', 'return ', 'if ', 'filters["', 'log.info('])}${pattern}${pick(r, [')', ' = None', '"]', ' is not None:', ', extra)'])}`,
    ),
  /** Paths as `find` lists them. */
  paths: (n: number, seed = 16, root = '.'): string[] =>
    times(
      n,
      seed,
      (i, r) => `${root}/src/${pick(r, WORDS)}/${pick(r, WORDS)}_${i}.${pick(r, ['py', 'ts', 'go', 'rs'])}`,
    ),
};

/** Joins lines the way a tool prints them (final newline included). */
export function text(...parts: Array<string | readonly string[]>): string {
  return parts.flatMap((p) => (typeof p === 'string' ? [p] : p)).join('\n') + '\n';
}
