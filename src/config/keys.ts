/**
 * The config's API over its one table of keys (`table.ts`, the rows; `validators.ts`, the checks):
 * the `HmcConfig` type derived from the rows, the defaults, and the validation of a parsed file.
 * Defaults, validation, the type and the docs in `config.yaml.example` all come from the table
 * (STYLE 11).
 *
 * Invariant: a bad value is reported with its key's path and falls back to that key's default
 * alone; nothing here throws.
 */
import { suggestKey } from './suggest.js';
import { CONFIG_KEYS } from './table.js';
import type { ConfigKey } from './validators.js';

export { CONFIG_KEYS } from './table.js';
export type { ConfigKey, PriceEntry } from './validators.js';

/** One key's path and the type of its value. */
type Leaf = (typeof CONFIG_KEYS)[number] extends infer K
  ? K extends ConfigKey<infer P, infer T>
    ? { path: P; value: T }
    : never
  : never;
type Head<P extends string> = P extends `${infer H}.${string}` ? H : P;
type Under<L, H extends string> = L extends { path: `${H}.${infer R}`; value: infer V } ? { path: R; value: V } : never;
/** The nested object the dotted paths describe: `truncation.max_lines` → `{ truncation: { max_lines } }`. */
type Tree<L extends { path: string; value: unknown }> = {
  [H in Head<L['path']>]: [Extract<L, { path: H }>] extends [never]
    ? Tree<Under<L, H>>
    : Extract<L, { path: H }>['value'];
};

/**
 * The config, derived from the table above (a key added there is typed here, with no second
 * copy). Each key's meaning is its row's `doc` (also in docs/configuration.md).
 */
export type HmcConfig = Tree<Leaf>;

/** A dotted path of the table whose keys include an `enabled` switch: a strategy's section. */
export type SwitchedSection = Leaf['path'] extends infer P ? (P extends `${infer S}.enabled` ? S : never) : never;

/** The config's value at a dotted path (`strategies.clearing` → that section). */
export type ConfigAt<P extends string, T = HmcConfig> = P extends `${infer H}.${infer R}`
  ? H extends keyof T
    ? ConfigAt<R, T[H]>
    : never
  : P extends keyof T
    ? T[P]
    : never;

/** The section at `path` (the strategy registry reads each strategy's own section this way). */
export function sectionOf<P extends SwitchedSection>(config: HmcConfig, path: P): ConfigAt<P> & { enabled: boolean } {
  let node: unknown = config;
  for (const part of path.split('.'))
    node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[part] : undefined;
  // `path` is one of the table's switched sections, so a config built from the table has it there.
  return node as ConfigAt<P> & { enabled: boolean };
}

/** A config problem, named by key path, for logs and `hmc doctor`. */
export interface ConfigIssue {
  path: string;
  message: string;
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (typeof next !== 'object' || next === null) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts[parts.length - 1] as string] = value;
}

function getPath(source: unknown, path: string): { found: boolean; value: unknown } {
  let node: unknown = source;
  for (const part of path.split('.')) {
    if (typeof node !== 'object' || node === null || Array.isArray(node) || !(part in node))
      return { found: false, value: undefined };
    node = (node as Record<string, unknown>)[part];
  }
  return { found: true, value: node };
}

function clone<T>(value: T): T {
  return value === null || typeof value !== 'object' ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/** The defaults, freshly built (callers may mutate their copy). */
export function defaultConfig(): HmcConfig {
  const out: Record<string, unknown> = {};
  for (const key of CONFIG_KEYS) setPath(out, key.path, clone(key.default));
  return out as unknown as HmcConfig;
}

/**
 * Builds a config from parsed YAML (or anything): each key validated on its own, a bad one
 * reported by path and replaced by its default; unknown keys reported too (typos are common).
 */
export function resolveConfig(raw: unknown): { config: HmcConfig; issues: ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  const out: Record<string, unknown> = {};
  if (raw !== null && raw !== undefined && (typeof raw !== 'object' || Array.isArray(raw))) {
    issues.push({ path: '(root)', message: 'config must be a mapping of keys; using the defaults' });
    raw = {};
  }
  for (const key of CONFIG_KEYS) {
    const { found, value } = getPath(raw, key.path);
    if (!found || value === undefined) {
      setPath(out, key.path, clone(key.default));
      continue;
    }
    const checked = key.validate(value);
    if (checked.ok) {
      setPath(out, key.path, checked.value);
      if (checked.warning) issues.push({ path: key.path, message: `${key.path}: ${checked.warning}` });
    } else {
      issues.push({
        path: key.path,
        message: `${key.path}: expected ${checked.expected}, got ${JSON.stringify(value)}; using the default ${JSON.stringify(key.default)}`,
      });
      setPath(out, key.path, clone(key.default));
    }
  }
  for (const unknownPath of unknownKeys(raw, '')) {
    const meant = suggestKey(unknownPath, KNOWN_PREFIXES);
    issues.push({
      path: unknownPath,
      message: `${unknownPath}: unknown key, ignored${meant ? `; did you mean \`${meant}\`?` : ''}`,
    });
  }
  const config = out as unknown as HmcConfig;
  if (config.truncation.head_lines + config.truncation.tail_lines >= config.truncation.max_lines) {
    issues.push({
      path: 'truncation.max_lines',
      message: 'truncation.max_lines: should exceed head_lines + tail_lines; the window is scaled to fit',
    });
  }
  return { config, issues };
}

const KNOWN_PREFIXES = new Set(
  CONFIG_KEYS.flatMap((k) => k.path.split('.').map((_, i, parts) => parts.slice(0, i + 1).join('.'))),
);
const LEAF_KEYS = new Set<string>(CONFIG_KEYS.map((k) => k.path));

function unknownKeys(raw: unknown, prefix: string): string[] {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return [];
  const found: string[] = [];
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (!KNOWN_PREFIXES.has(path)) found.push(path);
    else if (!LEAF_KEYS.has(path)) found.push(...unknownKeys(v, path));
  }
  return found;
}
