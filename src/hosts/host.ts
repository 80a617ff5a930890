/**
 * What HMC knows of an agent host, beyond the host contract it speaks (core/host-api.ts): its
 * name, the tool names its agents call that the shared vocabulary lacks, what `hmc doctor` checks
 * of its install, how to read the figures HMC needs from its own config file, and where HMC keeps
 * its state when it is the home host. A host registers one of these in hosts/index.ts; the engine
 * and the app find it there by the name its `hello` gives, and never import a host's folder.
 *
 * Invariant: a host's checks and its config reader never throw; each check is one line, ok or
 * failed with a fix; a config file that is missing or broken gives no figures, never a guess.
 */
import type { Check } from '../../bin/install-check.js';
import type { HostConfigFacts } from '../core/host-api.js';
import type { ToolWord } from './tools.js';

export type { Check };

/** Whether the host still loads HMC's plugin: a background dashboard watches it to leave once it is gone. */
export interface PluginWatch {
  /** What is watched, for the dashboard's log line (`<config> stops enabling the hmc plugin`). */
  readonly what: string;
  /** Why the host would not load the plugin now (a sentence), or null when it would or cannot tell. Never throws. */
  off(): string | null;
}

export interface AgentHost {
  /** Short, lower case (`hermes`): the `host` of its `hello`; `hmc doctor` takes `--<name>-home H` and `--no-<name>`. */
  readonly name: string;
  /** Tool names its agents call that hosts/tools.ts lacks, with their kinds. */
  readonly tools?: readonly ToolWord[];
  /** `hmc doctor`'s checks of the host's install (`home`: from `--<name>-home`, else its own default). */
  doctor(home: string | undefined): Promise<Check[]>;
  /**
   * The figures of the host's own config file at `path` (its model's window, where its own
   * compressor fires), read when its `hello` names the file (`host_config_file`). Never throws.
   */
  readConfig?(path: string): HostConfigFacts;
  /**
   * The `hello` field an older bridge of this host named its config file with (Hermes:
   * `hermes_config`). Still read, by this host's reader, so a bridge and a sidecar of different
   * versions keep working after an update (docs/hermes.md, "The hello").
   */
  readonly configAlias?: string;
  /**
   * HMC's state dir in this host's home (`home`: given, e.g. `--<name>-home`; else the host's own
   * default from `env`). Read for the home host only (hosts/index.ts, HOME_HOST).
   */
  stateDir?(home: string | undefined, env: NodeJS.ProcessEnv): string;
  /** The plugin watch the host's bridge asked for in the environment of the processes it starts, else null. */
  pluginWatch?(env: NodeJS.ProcessEnv): PluginWatch | null;
}
