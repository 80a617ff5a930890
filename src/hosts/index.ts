/**
 * The hosts registry: every agent host HMC knows, and the tool vocabulary they make together.
 * A new host is its folder beside hermes/ and one line in HOSTS; `hmc doctor` then runs its
 * checks (with `--<name>-home` and `--no-<name>`), and its own tool names join the vocabulary.
 *
 * Invariant: a tool name has one kind, whichever host calls it (a host cannot re-kind a name of
 * the shared table; test/hosts/tools.test.ts checks it).
 */
import { hermes } from './hermes/index.js';
import type { AgentHost } from './host.js';
import { TOOLS, type ToolKind, type ToolWord } from './tools.js';

export const HOSTS = [hermes] as const satisfies readonly AgentHost[];

/** A registered host's name. */
export type HostName = (typeof HOSTS)[number]['name'];

/** Every row: the shared table, then what the hosts add. */
export const VOCABULARY: readonly ToolWord[] = [...TOOLS, ...HOSTS.flatMap((h: AgentHost) => h.tools ?? [])];

const BY_NAME = new Map<string, ToolWord>();
for (const word of VOCABULARY) if (!BY_NAME.has(word.name)) BY_NAME.set(word.name, word);

/** What the tool named `name` (any case) does, when the vocabulary knows it. */
export function toolKind(name: string): ToolKind | undefined {
  return BY_NAME.get(name.toLowerCase())?.kind;
}

/** Tools whose outputs report what changed: never rewritten by any strategy (DESIGN §4.2). */
export const ALWAYS_PROTECTED: ReadonlySet<string> = new Set(VOCABULARY.filter((w) => w.protected === true).map((w) => w.name));
