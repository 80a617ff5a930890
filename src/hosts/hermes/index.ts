/**
 * Hermes Agent, the host HMC was built for: it loads the Python bridge (`__init__.py`, the
 * `hmc_bridge` package) as a plugin, which starts `hmc sidecar --stdio` and speaks the protocol.
 * Its home is also where HMC keeps its state dir by default (paths.ts); the bridge names its
 * config.yaml in the `hello` and the sidecar reads the window and the compressor's threshold
 * there (config-file.ts). Its tool names are in the shared vocabulary (hosts/tools.ts); doctor.ts
 * checks its install. README.md names every part of this host, Python and TypeScript.
 *
 * Invariant: Hermes facts live in this folder; the engine never names Hermes (it finds this
 * object in the registry, hosts/index.ts, by the `host` of the hello).
 */
import type { AgentHost } from '../host.js';
import { readHermesConfig } from './config-file.js';
import { hermesChecks } from './doctor.js';
import { hermesHome, hermesStateDir } from './paths.js';
import { hermesPluginFromEnv, hermesWatch } from './plugin-state.js';

export const hermes = {
  name: 'hermes',
  doctor: (home: string | undefined) => hermesChecks(home ?? hermesHome()),
  readConfig: readHermesConfig,
  configAlias: 'hermes_config',
  stateDir: (home: string | undefined, env: NodeJS.ProcessEnv) => hermesStateDir(home ?? hermesHome(env)),
  pluginWatch: (env: NodeJS.ProcessEnv) => {
    const ref = hermesPluginFromEnv(env);
    return ref ? hermesWatch(ref) : null;
  },
} as const satisfies AgentHost;
