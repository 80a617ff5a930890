/**
 * The hosts registry: every agent host HMC knows, and the tool vocabulary they make together.
 * A new host is its folder beside hermes/ and one line in HOSTS; `hmc doctor` then runs its
 * checks (with `--<name>-home` and `--no-<name>`), its own tool names join the vocabulary, and a
 * `hello` that names it (`host`) gets the figures of the config file it names read by its reader.
 * The engine and the app reach a host only through here (test/architecture/hosts-door.test.ts).
 *
 * Invariant: a tool name has one kind, whichever host calls it (a host cannot re-kind a name of
 * the shared table; test/hosts/tools.test.ts checks it). A name not registered is no error: its
 * host gets what an unnamed one gets (no config read; capabilities: hosts/capabilities.ts).
 */
import type { HelloParams, HostConfigFacts } from '../core/host-api.js';
import { hermes } from './hermes/index.js';
import type { AgentHost, PluginWatch } from './host.js';
import { TOOLS, type ToolKind, type ToolWord } from './tools.js';

export const HOSTS = [hermes] as const satisfies readonly AgentHost[];

/** A registered host's name. */
export type HostName = (typeof HOSTS)[number]['name'];

/** The home host: HMC's state dir defaults to its home (hosts/state-dir.ts). The first registered. */
export const HOME_HOST = HOSTS[0] satisfies Required<Pick<AgentHost, 'stateDir'>>;

/** The registered host of this name (a `hello`'s `host`), else undefined. */
export function hostNamed(name: unknown): AgentHost | undefined {
  return HOSTS.find((host: AgentHost) => host.name === name);
}

/**
 * The figures of the host config file a `hello` names: `host_config_file`, read by the reader of
 * the host the hello names; else a registered host's older field for it (`configAlias`, Hermes'
 * `hermes_config`), read by that host's reader. Undefined when no file is named, or the host is
 * not registered or reads no config (the answer then carries no `host_config`).
 */
export function helloHostConfig(hello: HelloParams): HostConfigFacts | undefined {
  const named = hostNamed(hello.host);
  const file = hello.host_config_file;
  if (typeof file === 'string' && file && named?.readConfig) return named.readConfig(file);
  for (const host of HOSTS as readonly AgentHost[]) {
    const old = host.configAlias === undefined ? undefined : hello[host.configAlias];
    if (typeof old === 'string' && old && host.readConfig) return host.readConfig(old);
  }
  return undefined;
}

/** The plugin watch a registered host's bridge set in this environment (Hermes: $HMC_HERMES_PLUGIN), else null. */
export function pluginWatchOf(env: NodeJS.ProcessEnv = process.env): PluginWatch | null {
  for (const host of HOSTS as readonly AgentHost[]) {
    const watch = host.pluginWatch?.(env) ?? null;
    if (watch) return watch;
  }
  return null;
}

/** Every row: the shared table, then what the hosts add. */
export const VOCABULARY: readonly ToolWord[] = [...TOOLS, ...HOSTS.flatMap((h: AgentHost) => h.tools ?? [])];

const BY_NAME = new Map<string, ToolWord>();
for (const word of VOCABULARY) if (!BY_NAME.has(word.name)) BY_NAME.set(word.name, word);

/** What the tool named `name` (any case) does, when the vocabulary knows it. */
export function toolKind(name: string): ToolKind | undefined {
  return BY_NAME.get(name.toLowerCase())?.kind;
}

/** Tools whose outputs report what changed: never rewritten by any strategy (DESIGN §4.2). */
export const ALWAYS_PROTECTED: ReadonlySet<string> = new Set(
  VOCABULARY.filter((w) => w.protected === true).map((w) => w.name),
);
