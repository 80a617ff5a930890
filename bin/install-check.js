// The install checks of `hmc doctor`, those that need no build and no dependency: Node's version,
// the dependencies, the native SQLite module (and when it is missing, why npm could not build it
// and the command that fixes it), the compiled CLI, the page's build and the Hermes tab's build. bin/hmc.js runs them
// when dist/ is missing (an `npm install` that failed); src/cli/doctor.ts runs them every time.
//
// Invariant: plain JavaScript on Node's built-ins only, so it runs exactly when `npm install`
// failed; every check answers and none throws; a failed check names what is missing and how to
// fix it, in plain words.
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';

export const MIN_NODE = [20, 19];

/** @typedef {{ name: string, ok: boolean, detail: string, fix?: string }} Check */

/**
 * @param {string} root the package root (where package.json, node_modules, dist and web/dist live)
 * @param {{ nodeVersion?: string, env?: NodeJS.ProcessEnv, execPath?: string }} [opts]
 * @returns {Promise<Check[]>}
 */
export async function installChecks(root, opts = {}) {
  const env = opts.env ?? process.env;
  return [
    checkNode(opts.nodeVersion ?? process.versions.node),
    checkDependencies(root),
    await checkSqlite(root, env, opts.execPath ?? process.execPath),
    checkBuild(root),
    checkWeb(root),
    checkTab(root),
  ];
}

/** @param {string} version @returns {Check} */
export function checkNode(version) {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  const ok = major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
  return ok
    ? { name: 'node', ok, detail: `Node ${version}` }
    : {
        name: 'node',
        ok,
        detail: `Node ${version} is older than ${MIN_NODE.join('.')}`,
        fix: 'install Node 20.19 or newer (nodejs.org, or your package manager), then `npm install` again',
      };
}

/** @param {string} root @returns {Check} */
function checkDependencies(root) {
  if (existsSync(join(root, 'node_modules', 'yaml', 'package.json')))
    return { name: 'dependencies', ok: true, detail: `${join(root, 'node_modules')} is in place` };
  return {
    name: 'dependencies',
    ok: false,
    detail: `${join(root, 'node_modules')} is missing or incomplete: \`npm install\` has not run here, or it failed (npm removes everything when one package fails)`,
    fix: `run \`npm install\` in ${root}; when it fails on better-sqlite3 (\`gyp ERR!\`), the sqlite line says why and what to run`,
  };
}

/** @param {string} root @param {NodeJS.ProcessEnv} env @param {string} execPath @returns {Promise<Check>} */
async function checkSqlite(root, env, execPath) {
  const pkg = join(root, 'node_modules', 'better-sqlite3');
  if (!existsSync(join(pkg, 'package.json'))) {
    const why = whyNoBuild(env, execPath);
    return {
      name: 'sqlite',
      ok: false,
      detail: `better-sqlite3 is not installed. If \`npm install\` failed on it: ${why.detail}`,
      fix: why.fix(root),
    };
  }
  if (!existsSync(join(pkg, 'build', 'Release', 'better_sqlite3.node'))) {
    const why = whyNoBuild(env, execPath);
    return {
      name: 'sqlite',
      ok: false,
      detail: `better-sqlite3's native module was never built. ${why.detail}`,
      fix: why.fix(root),
    };
  }
  try {
    const Database = createRequire(join(root, 'package.json'))('better-sqlite3');
    const db = new Database(':memory:');
    db.prepare('select 1').get();
    db.close();
    return { name: 'sqlite', ok: true, detail: 'better-sqlite3 loads' };
  } catch (err) {
    const text = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
    if (/NODE_MODULE_VERSION|was compiled against a different Node/.test(text)) {
      return {
        name: 'sqlite',
        ok: false,
        detail: `better-sqlite3 was built for another Node version (${text})`,
        fix: `run \`npm rebuild better-sqlite3\` in ${root} with the Node that runs HMC (${process.version})`,
      };
    }
    return {
      name: 'sqlite',
      ok: false,
      detail: `better-sqlite3 does not load: ${text}`,
      fix: `run \`npm rebuild better-sqlite3\` in ${root}`,
    };
  }
}

/**
 * Why npm could not build better-sqlite3, from what this machine has: npm first downloads a
 * prebuilt binary (prebuild-install, from github.com); failing that, node-gyp compiles it, which
 * needs Node's C headers (downloaded from nodejs.org unless `nodedir` points at local ones),
 * Python and a C++ toolchain.
 * @param {NodeJS.ProcessEnv} env @param {string} execPath
 */
export function whyNoBuild(env, execPath) {
  const prefix = nodePrefix(execPath);
  const localHeaders = prefix !== null && existsSync(join(prefix, 'include', 'node', 'node_api.h'));
  const nodedir = env.npm_config_nodedir?.trim() || null;
  const cached = existsSync(
    join(env.HOME || homedir(), '.cache', 'node-gyp', process.versions.node, 'include', 'node', 'node_api.h'),
  );
  const missingTools = ['python3', 'make'].filter((t) => !onPath(t, env));
  if (!onPath('c++', env) && !onPath('g++', env) && !onPath('clang++', env)) missingTools.push('a C++ compiler');
  const steps = 'npm tried a prebuilt binary (downloaded from github.com), then compiling it with node-gyp';
  if (missingTools.length > 0) {
    return {
      detail: `${steps}; compiling needs ${missingTools.join(', ')}, not found on PATH.`,
      fix: (/** @type {string} */ root) =>
        `install ${missingTools.join(', ')} (Debian/Ubuntu: \`sudo apt install python3 make g++\`), then \`npm install\` in ${root}`,
    };
  }
  if (!nodedir && !cached && localHeaders) {
    return {
      detail: `${steps}, which downloads Node's headers from nodejs.org unless told where local ones are: this machine has them in ${join(prefix ?? '', 'include', 'node')}, but npm's \`nodedir\` is not set.`,
      fix: (/** @type {string} */ root) =>
        `run \`npm_config_nodedir=${prefix} npm install\` in ${root} (or set it once: \`export npm_config_nodedir=${prefix}\` in your shell profile)`,
    };
  }
  if (!nodedir && !cached) {
    return {
      detail: `${steps}, which downloads Node's headers from nodejs.org; both downloads need network access (a proxy or a firewall stops them), and no local headers were found next to ${execPath}.`,
      fix: (/** @type {string} */ root) =>
        `allow npm to reach github.com and nodejs.org (behind a proxy: \`npm config set https-proxy http://proxy:port\`), or install Node's development headers (they come with nodejs.org builds; Debian/Ubuntu's nodejs: \`sudo apt install libnode-dev\`) and run \`npm_config_nodedir=/usr npm install\` in ${root}`,
    };
  }
  return {
    detail: `${steps}; the headers${nodedir ? ` (nodedir=${nodedir})` : ''} and build tools look present, so the compiler itself failed.`,
    fix: (/** @type {string} */ root) =>
      `run \`npm install\` in ${root} again and read the first \`gyp ERR!\` / compiler error it prints`,
  };
}

/** The prefix Node was installed under (/usr for /usr/bin/node), or null. @param {string} execPath */
function nodePrefix(execPath) {
  try {
    return dirname(dirname(realpathSync(execPath)));
  } catch {
    return null;
  }
}

/** @param {string} name @param {NodeJS.ProcessEnv} env */
function onPath(name, env) {
  return (env.PATH ?? '').split(delimiter).some((dir) => dir && existsSync(join(dir, name)));
}

/** @param {string} root @returns {Check} */
function checkBuild(root) {
  const entry = join(root, 'dist', 'cli', 'main.js');
  return existsSync(entry)
    ? { name: 'build', ok: true, detail: `${entry} exists` }
    : {
        name: 'build',
        ok: false,
        detail: `${entry} is missing: the CLI is compiled by \`npm install\` (its \`prepare\` step), which runs only once every dependency installed`,
        fix: `fix the lines above, then run \`npm install\` in ${root}`,
      };
}

/** @param {string} root @returns {Check} */
function checkWeb(root) {
  const index = join(root, 'web', 'dist', 'index.html');
  return existsSync(index)
    ? { name: 'dashboard build', ok: true, detail: `${index} exists` }
    : {
        name: 'dashboard build',
        ok: false,
        detail: `${index} is missing`,
        fix: `run \`npm install\` (or \`npm run build\`) in ${root}`,
      };
}

/**
 * HMC's page and its tab in Hermes' dashboard were built (issue 27, finding 6): every file the
 * page's index.html loads (/assets/…), and the script and styles dashboard/manifest.json names.
 * @param {string} root @returns {Check}
 */
export function checkTab(root) {
  const missing = [];
  const page = join(root, 'web', 'dist', 'index.html');
  if (existsSync(page)) {
    const html = readFileSync(page, 'utf8');
    for (const m of html.matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g)) {
      if (m[1] && !existsSync(join(root, 'web', 'dist', m[1]))) missing.push(join(root, 'web', 'dist', m[1]));
    }
  }
  const manifestPath = join(root, 'dashboard', 'manifest.json');
  /** @type {Record<string, unknown>} */
  let manifest = {};
  try {
    manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  } catch (err) {
    return {
      name: 'hermes tab build',
      ok: false,
      detail: `${manifestPath} cannot be read (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`,
      fix: `reinstall HMC in ${root} (the plugin's dashboard/ folder is incomplete)`,
    };
  }
  for (const key of ['entry', 'css']) {
    const file = typeof manifest[key] === 'string' ? join(root, 'dashboard', String(manifest[key])) : '';
    if (file && !existsSync(file)) missing.push(file);
  }
  return missing.length === 0
    ? {
        name: 'hermes tab build',
        ok: true,
        detail: `the page's assets and ${join(root, 'dashboard', 'dist')} (HMC's tab in Hermes' dashboard) are in place`,
      }
    : {
        name: 'hermes tab build',
        ok: false,
        detail: `missing: ${missing.join(', ')}`,
        fix: `run \`npm run build\` in ${root} (then restart \`hermes dashboard\` for the tab)`,
      };
}

/** One line per check, `ok` or `FAIL`, and the fix under a failure. @param {Check} check */
export function formatCheck(check) {
  const head = `${check.ok ? 'ok  ' : 'FAIL'}  ${check.name.padEnd(16)} ${check.detail}`;
  return check.ok || !check.fix ? head : `${head}\n      fix: ${check.fix}`;
}
