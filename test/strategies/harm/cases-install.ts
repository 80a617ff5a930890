/**
 * Install logs (issue 15): warnings in the middle of long package-manager output (engine
 * mismatches, deprecations, abandoned packages, peer dependencies) among hundreds of progress
 * lines must survive; and the progress itself (fetch, resolution and link steps repeated with
 * codes, long listings of built packages) should shrink.
 */
import { bash, type HarmCase } from './case.js';
import { text } from './noise.js';
import { NPM_PACKAGES, pkgNoise } from './package-noise.js';

export const installWarningCases: HarmCase[] = [
  {
    name: 'npm EBADENGINE and deprecations among hundreds of fetch lines (some packages named like errors)',
    klass: 'install-warning',
    ...bash('npm ci --loglevel http'),
    output: text(
      pkgNoise.npmFetch(140, 301),
      'npm WARN EBADENGINE Unsupported engine {',
      "npm WARN EBADENGINE   package: 'vite@5.2.11',",
      "npm WARN EBADENGINE   required: { node: '^18.0.0 || >=20.0.0' },",
      "npm WARN EBADENGINE   current: { node: 'v16.20.2', npm: '8.19.4' }",
      'npm WARN EBADENGINE }',
      pkgNoise.npmFetch(120, 302),
      'npm WARN deprecated inflight@1.0.6: This module is not supported, and leaks memory. Do not use it. Check out lru-cache if you want a good and tested way to coalesce async requests by a key value, which is much more comprehensive and powerful.',
      pkgNoise.npmFetch(90, 303),
      'npm WARN deprecated rimraf@3.0.2: Rimraf versions prior to v4 are no longer supported',
      pkgNoise.npmFetch(60, 304),
      '',
      'added 812 packages, and audited 813 packages in 24s',
      '',
      '142 packages are looking for funding',
      '  run `npm fund` for details',
      '',
      'found 0 vulnerabilities',
    ),
    keep: [
      "required: { node: '^18.0.0 || >=20.0.0' }",
      "current: { node: 'v16.20.2', npm: '8.19.4' }",
      'inflight@1.0.6: This module is not supported',
      'rimraf@3.0.2: Rimraf versions prior to v4',
    ],
  },
  {
    name: 'yarn engine and peer warnings in a verbose install',
    klass: 'install-warning',
    ...bash('yarn install --ignore-engines --verbose'),
    output: text(
      'yarn install v1.22.19',
      '[1/4] Resolving packages...',
      NPM_PACKAGES.map(
        (p, i) =>
          `verbose ${(0.3 + i * 0.01).toFixed(3)} Performing "GET" request to "https://registry.yarnpkg.com/${p}".`,
      ),
      'warning vite@5.2.11: The engine "node" is incompatible with this module. Expected version "^18.0.0 || >=20.0.0". Got "16.20.2"',
      NPM_PACKAGES.map(
        (p, i) =>
          `verbose ${(1.3 + i * 0.01).toFixed(3)} Request "https://registry.yarnpkg.com/${p}" finished with status code 200.`,
      ),
      '[2/4] Fetching packages...',
      NPM_PACKAGES.map(
        (p, i) =>
          `verbose ${(2.3 + i * 0.01).toFixed(3)} Copying "/usr/local/share/.cache/yarn/v6/npm-${p}-1.0.${i}/node_modules/${p}/package.json" to "/app/node_modules/${p}/package.json".`,
      ),
      '[3/4] Linking dependencies...',
      'warning " > @testing-library/user-event@14.5.2" has unmet peer dependency "@testing-library/dom@>=7.21.4".',
      NPM_PACKAGES.map((p, i) => `verbose ${(3.3 + i * 0.01).toFixed(3)} Creating directory "/app/node_modules/${p}".`),
      '[4/4] Building fresh packages...',
      'success Saved lockfile.',
      'Done in 42.18s.',
    ),
    keep: [
      'The engine "node" is incompatible with this module. Expected version "^18.0.0 || >=20.0.0". Got "16.20.2"',
      'has unmet peer dependency "@testing-library/dom@>=7.21.4"',
    ],
  },
  {
    name: 'pnpm deprecations and a peer issue among progress lines',
    klass: 'install-warning',
    ...bash('pnpm install'),
    output: text(
      'Lockfile is up to date, resolution step is skipped',
      pkgNoise.pnpmProgress(40, 812).slice(0, 20),
      ' WARN  deprecated inflight@1.0.6: This module is not supported, and leaks memory. Do not use it.',
      pkgNoise.pnpmProgress(40, 812).slice(20, 39),
      ' WARN  4 deprecated subdependencies found: glob@7.2.3, inflight@1.0.6, rimraf@3.0.2, rollup-plugin-terser@7.0.2',
      'Packages: +812',
      '+'.repeat(120),
      pkgNoise.pnpmProgress(40, 812).slice(39),
      ' WARN  Issues with peer dependencies found',
      '.',
      '└─┬ @vitejs/plugin-react 4.0.0',
      '  └── ✕ unmet peer vite@^4.2.0: found 5.2.11',
      '',
      'dependencies:',
      '+ react 18.3.1',
      '+ react-dom 18.3.1',
      '',
      'Done in 9.8s',
    ),
    keep: [
      '4 deprecated subdependencies found: glob@7.2.3, inflight@1.0.6, rimraf@3.0.2, rollup-plugin-terser@7.0.2',
      'unmet peer vite@^4.2.0: found 5.2.11',
    ],
  },
  {
    name: 'pip DEPRECATION and a missing extra among collect and download lines (a package named Deprecated)',
    klass: 'install-warning',
    ...bash('pip install -r requirements.txt'),
    output: text(
      pkgNoise.pipInstall(110, 305),
      "WARNING: typer 0.12.3 does not provide the extra 'all'",
      pkgNoise.pipInstall(90, 306),
      "DEPRECATION: Building 'pyyaml' using the legacy setup.py bdist_wheel mechanism, which will be removed in a future version. pip 25.3 will enforce this behaviour change. A possible replacement is to use the standardized build interface by setting the `--use-pep517` option. Discussion can be found at https://github.com/pypa/pip/issues/6334",
      pkgNoise.pipInstall(60, 307),
      'Installing collected packages: urllib3, idna, charset-normalizer, certifi, requests, wrapt, Deprecated, opentelemetry-api',
      'Successfully installed Deprecated-1.2.14 certifi-2024.2.2 charset-normalizer-3.3.2 idna-3.7 opentelemetry-api-1.24.0 requests-2.31.0 urllib3-2.2.1 wrapt-1.16.0',
    ),
    keep: [
      "typer 0.12.3 does not provide the extra 'all'",
      "Building 'pyyaml' using the legacy setup.py bdist_wheel mechanism",
    ],
  },
  {
    name: 'composer abandoned package among hundreds of install lines',
    klass: 'install-warning',
    ...bash('composer install'),
    output: text(
      'Installing dependencies from lock file (including require-dev)',
      'Verifying lock file contents can be installed on current platform.',
      'Package operations: 118 installs, 0 updates, 0 removals',
      pkgNoise.composerInstall(120, 308),
      'Generating optimized autoload files',
      'Package fabpot/goutte is abandoned, you should avoid using it. Use symfony/browser-kit instead.',
      pkgNoise.composerInstall(116, 309),
      '> Illuminate\\Foundation\\ComposerScripts::postAutoloadDump',
      '> @php artisan package:discover --ansi',
      '  INFO  Discovering packages.',
      '86 packages you are using are looking for funding.',
      'Use the `composer fund` command to find out more!',
    ),
    keep: ['Package fabpot/goutte is abandoned, you should avoid using it. Use symfony/browser-kit instead.'],
  },
  {
    name: 'apt W: line about a deprecated keyring among fetch, unpack and setup lines',
    klass: 'install-warning',
    ...bash('apt-get update && apt-get install -y python3.11'),
    output: text(
      pkgNoise.aptInstall(60, 310).slice(0, 20),
      'W: http://ppa.launchpad.net/deadsnakes/ppa/ubuntu/dists/jammy/InRelease: Key is stored in legacy trusted.gpg keyring (/etc/apt/trusted.gpg), see the DEPRECATION section in apt-key(8) for details.',
      'Reading package lists...',
      pkgNoise.aptInstall(60, 310).slice(20),
      pkgNoise.aptInstall(90, 311),
      'Processing triggers for libc-bin (2.36-9+deb12u4) ...',
    ),
    keep: ['Key is stored in legacy trusted.gpg keyring (/etc/apt/trusted.gpg)'],
  },
  {
    name: 'gradle deprecation notice among downloads and tasks',
    klass: 'install-warning',
    ...bash('./gradlew build'),
    output: text(
      Array.from(
        { length: 120 },
        (_, i) =>
          `Download https://repo.maven.apache.org/maven2/org/${['slf4j', 'junit', 'apache', 'jetbrains'][i % 4]}/artifact-${i}/1.${i}.0/artifact-${i}-1.${i}.0.jar`,
      ),
      Array.from(
        { length: 40 },
        (_, i) =>
          `> Task :${['core', 'api', 'web'][i % 3]}:${['compileJava', 'processResources', 'classes', 'jar'][i % 4]}`,
      ),
      '',
      'Deprecated Gradle features were used in this build, making it incompatible with Gradle 9.0.',
      '',
      "You can use '--warning-mode all' to show the individual deprecation warnings and determine if they come from your own scripts or plugins.",
      '',
      Array.from({ length: 40 }, (_, i) => `> Task :${['core', 'api', 'web'][i % 3]}:test${i}`),
      'BUILD SUCCESSFUL in 1m 12s',
      '48 actionable tasks: 48 executed',
    ),
    keep: ['Deprecated Gradle features were used in this build, making it incompatible with Gradle 9.0.'],
  },
];

const BUILT = [
  'esbuild',
  'core-js',
  'sharp',
  'bcrypt',
  'node-sass',
  'canvas',
  'sqlite3',
  'fsevents',
  'protobufjs',
  'husky',
  'cypress',
  'puppeteer',
  'nx',
  '@swc/core',
  'lefthook',
  'msw',
  'prisma',
  '@prisma/engines',
  'electron',
  'deasync',
  'better-sqlite3',
  'argon2',
  'utf-8-validate',
  'bufferutil',
  'es5-ext',
  'core-js-pure',
  'styled-components',
  'unrs-resolver',
  'workerd',
  'ngrok',
];

export const installShrinkCases: HarmCase[] = [
  {
    name: 'yarn berry fetch and link steps repeated with codes shrink',
    klass: 'repetitive',
    ...bash('yarn install'),
    output: text(
      '➤ YN0000: · Yarn 4.1.1',
      '➤ YN0000: ┌ Resolution step',
      '➤ YN0000: └ Completed in 0s 612ms',
      '➤ YN0000: ┌ Fetch step',
      pkgNoise.yarnFetch(70, 312),
      '➤ YN0000: └ Completed in 9s 201ms',
      '➤ YN0000: ┌ Link step',
      pkgNoise.yarnBuild(BUILT.slice(0, 12), 313),
      '➤ YN0000: └ Completed in 21s 18ms',
      '➤ YN0000: · Done in 31s 87ms',
    ),
    keep: ['Fetch step', 'Link step', 'Done in 31s 87ms'],
    shrinkTo: 0.4,
  },
  {
    name: 'npm fetch lines with status codes 200 and 304 shrink',
    klass: 'repetitive',
    ...bash('npm install --loglevel http'),
    output: text(
      pkgNoise.npmFetch(60, 314),
      '',
      'added 418 packages, and audited 419 packages in 11s',
      '',
      'found 0 vulnerabilities',
    ),
    keep: ['added 418 packages', 'found 0 vulnerabilities'],
    shrinkTo: 0.35,
  },
  {
    name: 'pnpm progress lines shrink to their last state',
    klass: 'repetitive',
    ...bash('pnpm install'),
    output: text('Lockfile is up to date, resolution step is skipped', pkgNoise.pnpmProgress(45, 640), 'Done in 6.1s'),
    keep: ['Progress: resolved 640, reused 602, downloaded 38, added 640, done', 'Done in 6.1s'],
    shrinkTo: 0.35,
  },
  {
    name: 'pip collect and download lines shrink',
    klass: 'repetitive',
    ...bash('pip install -r requirements.txt'),
    output: text(
      pkgNoise.pipInstall(48, 315),
      'Successfully installed Deprecated-1.2.14 certifi-2024.2.2 idna-3.7 requests-2.31.0 urllib3-2.2.1 wrapt-1.16.0',
    ),
    keep: ['Successfully installed Deprecated-1.2.14'],
    shrinkTo: 0.4,
  },
  {
    name: 'a long listing of built packages (yarn berry build step) shrinks',
    klass: 'repetitive',
    ...bash('yarn install'),
    output: text(
      '➤ YN0000: ┌ Link step',
      pkgNoise.yarnBuild(BUILT, 316),
      '➤ YN0000: └ Completed in 48s 311ms',
      '➤ YN0000: · Done in 1m 2s',
    ),
    keep: ['Completed in 48s 311ms', 'Done in 1m 2s'],
    shrinkTo: 0.35,
  },
  {
    name: 'maven reactor summary listing every built module shrinks',
    klass: 'repetitive',
    ...bash('mvn -q package'),
    output: text(
      '[INFO] ------------------------------------------------------------------------',
      '[INFO] Reactor Summary for platform 2.4.0-SNAPSHOT:',
      '[INFO] ',
      Array.from({ length: 36 }, (_, i) => {
        const name =
          `platform-${['core', 'api', 'web', 'batch', 'auth', 'billing'][i % 6]}-${Math.floor(i / 6) + 1} ${i + 1 < 10 ? '' : ''}`.trim();
        return `[INFO] ${`${name} `.padEnd(55, '.')} SUCCESS [  ${(1 + ((i * 7) % 23) / 3).toFixed(3)} s]`;
      }),
      '[INFO] ------------------------------------------------------------------------',
      '[INFO] BUILD SUCCESS',
      '[INFO] ------------------------------------------------------------------------',
      '[INFO] Total time:  01:42 min',
    ),
    keep: ['BUILD SUCCESS', 'Total time:  01:42 min'],
    shrinkTo: 0.45,
  },
  {
    name: 'dotnet build listing each built project shrinks',
    klass: 'repetitive',
    ...bash('dotnet build'),
    output: text(
      '  Determining projects to restore...',
      '  All projects are up-to-date for restore.',
      Array.from({ length: 30 }, (_, i) => {
        const p = `Contoso.${['Core', 'Data', 'Web', 'Jobs', 'Auth'][i % 5]}${Math.floor(i / 5) || ''}`;
        return `  ${p} -> /src/${p}/bin/Debug/net8.0/${p}.dll`;
      }),
      '',
      'Build succeeded.',
      '    0 Warning(s)',
      '    0 Error(s)',
      '',
      'Time Elapsed 00:00:41.27',
    ),
    keep: ['Build succeeded.', '0 Error(s)'],
    shrinkTo: 0.45,
  },
];
