/**
 * Package-manager chatter for the harm suite, shaped as npm, yarn, pnpm, pip, composer, apt and
 * bundler print it during an install: fetch, resolution, link and build steps, hundreds of lines
 * naming packages. Real dependency trees hold packages whose names are failure or warning words
 * (`es-errors`, `http-errors`, `abort-controller`, `deprecation`, `Deprecated`, `warning`), so
 * they are here too: a name is not a report.
 * Invariant: deterministic; no line reports a failure or a warning outside a package's name.
 */
import { rng } from '../../helpers/random.js';
import { pick } from './noise.js';

/** npm packages as a real lockfile lists them, failure and warning words in names included. */
export const NPM_PACKAGES = [
  'es-errors',
  'http-errors',
  'error-ex',
  'abort-controller',
  'deprecation',
  'warning',
  'is-error',
  'serialize-error',
  'p-timeout',
  'signal-exit',
  'fast-deep-equal',
  'lodash',
  'debug',
  'ms',
  'semver',
  'chalk',
  'ansi-styles',
  'supports-color',
  'has-flag',
  'color-convert',
  'safe-buffer',
  'inherits',
  'readable-stream',
  'string_decoder',
  'util-deprecate',
  'glob',
  'minimatch',
  'brace-expansion',
  'balanced-match',
  'once',
  'wrappy',
  'inflight',
  'path-is-absolute',
  'fs.realpath',
  'graceful-fs',
  'yallist',
  'lru-cache',
  'commander',
  'picomatch',
  'micromatch',
  'braces',
  'fill-range',
  'to-regex-range',
  'is-number',
  'get-intrinsic',
  'function-bind',
  'hasown',
  'call-bind',
  'define-data-property',
  'gopd',
  'has-symbols',
  'has-proto',
  'es-define-property',
  'set-function-length',
  'object-inspect',
  'side-channel',
  'qs',
  'body-parser',
  'express',
  'statuses',
  'on-finished',
  'depd',
  'toidentifier',
  'setprototypeof',
  'iconv-lite',
  'raw-body',
];

/** Python packages, `Deprecated` and `exceptiongroup` among them (real dependencies of opentelemetry and pytest). */
export const PY_PACKAGES = [
  'requests',
  'urllib3',
  'idna',
  'certifi',
  'charset-normalizer',
  'Deprecated',
  'wrapt',
  'exceptiongroup',
  'pytest',
  'pluggy',
  'iniconfig',
  'packaging',
  'tomli',
  'opentelemetry-api',
  'importlib-metadata',
  'zipp',
  'typing-extensions',
  'pydantic',
  'pydantic-core',
  'annotated-types',
  'click',
  'rich',
  'markdown-it-py',
  'mdurl',
  'pygments',
  'fastapi',
  'starlette',
  'anyio',
  'sniffio',
  'h11',
  'httpcore',
  'httpx',
  'jinja2',
  'markupsafe',
  'pyyaml',
  'python-dateutil',
  'six',
  'attrs',
  'retry',
  'tenacity',
];

function version(r: () => number): string {
  return `${Math.floor(r() * 9)}.${Math.floor(r() * 30)}.${Math.floor(r() * 20)}`;
}

export const pkgNoise = {
  /** `npm http fetch GET 200 https://registry.npmjs.org/es-errors 81ms (cache hit)`: npm --loglevel http/verbose. */
  npmFetch: (n: number, seed: number): string[] => {
    const r = rng(seed);
    return Array.from({ length: n }, (_, i) => {
      const code = r() < 0.7 ? 200 : 304;
      const cache = code === 304 ? 'cache revalidated' : pick(r, ['cache hit', 'cache miss', 'cache stale']);
      return `npm http fetch GET ${code} https://registry.npmjs.org/${NPM_PACKAGES[i % NPM_PACKAGES.length]} ${Math.floor(r() * 400) + 5}ms (${cache})`;
    });
  },
  /** yarn berry's fetch step: `➤ YN0013: │ es-errors@npm:1.3.0 can't be found in the cache and will be fetched from the remote registry`. */
  yarnFetch: (n: number, seed: number): string[] => {
    const r = rng(seed);
    return Array.from(
      { length: n },
      (_, i) =>
        `➤ YN0013: │ ${NPM_PACKAGES[i % NPM_PACKAGES.length]}@npm:${version(r)} can't be found in the cache and will be fetched from the remote registry`,
    );
  },
  /** yarn berry's link step: `➤ YN0007: │ esbuild@npm:0.18.20 must be built because it never has been before or the last one failed`. */
  yarnBuild: (names: readonly string[], seed: number): string[] => {
    const r = rng(seed);
    return names.map(
      (name) =>
        `➤ YN0007: │ ${name}@npm:${version(r)} must be built because it never has been before or the last one failed`,
    );
  },
  /** pnpm's progress lines, one per refresh in a log (no terminal): `Progress: resolved 57, reused 41, downloaded 2, added 0`. */
  pnpmProgress: (n: number, total: number): string[] =>
    Array.from({ length: n }, (_, i) => {
      const resolved = Math.round(((i + 1) * total) / n);
      const downloaded = Math.round(resolved * 0.06);
      return `Progress: resolved ${resolved}, reused ${resolved - downloaded}, downloaded ${downloaded}, added ${i === n - 1 ? resolved : 0}${i === n - 1 ? ', done' : ''}`;
    }),
  /** pip: `Collecting Deprecated>=1.2.6 (from opentelemetry-api)` / `  Downloading ….whl (9.5 kB)` / `Requirement already satisfied: …`. */
  pipInstall: (n: number, seed: number): string[] => {
    const r = rng(seed);
    return Array.from({ length: n }, (_, i) => {
      const name = PY_PACKAGES[Math.floor(i / 2) % PY_PACKAGES.length] as string;
      if (i % 6 === 5)
        return `Requirement already satisfied: ${name.toLowerCase()}>=1.0 in /usr/local/lib/python3.11/site-packages (from -r requirements.txt (line ${i})) (${version(r)})`;
      return i % 2 === 0
        ? `Collecting ${name}>=${Math.floor(r() * 3)}.0 (from ${pick(r, PY_PACKAGES)})`
        : `  Downloading ${name.replace(/-/g, '_')}-${version(r)}-py3-none-any.whl.metadata (${(r() * 90 + 1).toFixed(1)} kB)`;
    });
  },
  /** composer: `  - Installing symfony/console (v6.4.1): Extracting archive`. */
  composerInstall: (n: number, seed: number): string[] => {
    const r = rng(seed);
    const vendors = [
      'symfony',
      'laravel',
      'guzzlehttp',
      'monolog',
      'doctrine',
      'nesbot',
      'league',
      'psr',
      'ramsey',
      'vlucas',
    ];
    const names = [
      'console',
      'http-kernel',
      'error-handler',
      'finder',
      'process',
      'event-dispatcher',
      'routing',
      'mime',
      'var-dumper',
      'deprecation-contracts',
    ];
    return Array.from(
      { length: n },
      (_, i) =>
        `  - ${i % 2 === 0 ? 'Downloading' : 'Installing'} ${pick(r, vendors)}/${names[i % names.length]} (v${version(r)})${i % 2 === 1 ? ': Extracting archive' : ''}`,
    );
  },
  /** apt-get: `Get:12 http://deb.debian.org/debian bookworm/main amd64 libssl3 amd64 3.0.11-1~deb12u2 [2,019 kB]` then Unpacking / Setting up. */
  aptInstall: (n: number, seed: number): string[] => {
    const r = rng(seed);
    const debs = [
      'libssl3',
      'libcurl4',
      'ca-certificates',
      'libexpat1',
      'libpython3.11',
      'python3.11',
      'libsqlite3-0',
      'libffi8',
      'libgdbm6',
      'perl-base',
    ];
    return Array.from({ length: n }, (_, i) => {
      const deb = debs[i % debs.length] as string;
      const step = Math.floor((i * 3) / n);
      if (step === 0)
        return `Get:${i + 1} http://deb.debian.org/debian bookworm/main amd64 ${deb} amd64 ${version(r)}-1 [${Math.floor(r() * 3000)} kB]`;
      if (step === 1) return `Unpacking ${deb}:amd64 (${version(r)}-1) ...`;
      return `Setting up ${deb}:amd64 (${version(r)}-1) ...`;
    });
  },
};
