/**
 * Every protection rule in one place (DESIGN §4.2): which tool outputs no strategy may touch, and
 * which ones dedup, error purge and sweep must leave alone.
 *
 * Invariant: protection is decided before any strategy runs; a protected output is passed through.
 */
import type { HmcConfig } from '../../config/keys.js';
import { ALWAYS_PROTECTED } from '../../hosts/index.js';
import { isOwnTool } from '../../hosts/own-tool.js';

// Writes and patches report what changed (and lint errors); they are never rewritten: the
// vocabulary marks them (hosts/tools.ts, ALWAYS_PROTECTED). HMC's own answers (`hmc_control`,
// however the host names it: hosts/own-tool.ts) reach the model exactly as made: every rule
// below protects them, whatever the config says.

/** Lower-case tool names that also hold HMC's own tool under any of its names. */
class ToolNames extends Set<string> {
  override has(name: string): boolean {
    return super.has(name) || isOwnTool(name);
  }
}

export interface Protection {
  /** No strategy touches this output. */
  tool(name: string): boolean;
  /**
   * This tool's call arguments are never cleared: a tool the user named in compress.protected_tools.
   * The tools whose outputs are always protected (write_file, patch: their outputs report what
   * changed) are in that list by default for their outputs, not their arguments.
   */
  inputs(name: string): boolean;
  /** A read of this path is never compressed. */
  file(path: string | undefined): boolean;
  dedup: ReadonlySet<string>;
  errorPurge: ReadonlySet<string>;
  sweep: ReadonlySet<string>;
}

const cache = new WeakMap<HmcConfig, Protection>();

/** Paths whose protection is remembered per config (past it the memory starts again). */
const MAX_REMEMBERED_PATHS = 10_000;

/** The rules of a config, built once per config object (every hook asks; a reload makes a new one). */
export function protectionFor(config: HmcConfig): Protection {
  let rules = cache.get(config);
  if (!rules) cache.set(config, (rules = buildProtection(config)));
  return rules;
}

function buildProtection(config: HmcConfig): Protection {
  const tools = new Set([...ALWAYS_PROTECTED, ...config.compress.protected_tools].map((t) => t.toLowerCase()));
  const named = new Set(
    config.compress.protected_tools.map((t) => t.toLowerCase()).filter((t) => !ALWAYS_PROTECTED.has(t)),
  );
  const patterns = config.protected_file_patterns.map(globToRegExp);
  // Every pass asks of every read's path: each path's answer is worked out once per config.
  const files = new Map<string, boolean>();
  const file = (path: string): boolean => {
    let known = files.get(path);
    if (known === undefined) {
      if (files.size >= MAX_REMEMBERED_PATHS) files.clear();
      known = patterns.some((re) => re.test(path) || re.test(basename(path)));
      files.set(path, known);
    }
    return known;
  };
  const lower = (names: readonly string[]) => new ToolNames([...tools, ...names.map((t) => t.toLowerCase())]);
  return {
    tool: (name) => tools.has(name.toLowerCase()) || isOwnTool(name),
    inputs: (name) => named.has(name.toLowerCase()),
    file: (path) => path !== undefined && patterns.length > 0 && file(path),
    dedup: lower(config.strategies.deduplication.protected_tools),
    errorPurge: lower(config.strategies.purge_errors.protected_tools),
    sweep: lower(config.strategies.deduplication.protected_tools),
  };
}

function basename(path: string): string {
  const i = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return i >= 0 ? path.slice(i + 1) : path;
}

/** `**` matches across folders, `*` within one, `?` one character; a leading `**\/` may match nothing. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*' && glob[i + 1] === '*') {
      const slash = glob[i + 2] === '/';
      re += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}
