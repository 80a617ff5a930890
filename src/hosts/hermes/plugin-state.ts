/**
 * Whether Hermes still loads the HMC plugin, by the rule its loader follows (hermes_cli/plugins.py
 * `_discover_and_load_inner`, 0.16.0 and 0.19.0): a plugin named in `plugins.disabled` (by its key
 * or its manifest name) never loads; otherwise it loads only when `plugins.enabled` lists it. The
 * bridge tells the processes it starts which config and names to watch ($HMC_HERMES_PLUGIN), so a
 * background dashboard can notice `hermes plugins disable hmc` (issue 27, finding 1).
 *
 * Invariant: never throws, and says "off" only on a config it read and understood: a missing,
 * unreadable or broken file, or one without a `plugins.enabled` list, is "cannot tell" (null).
 */
import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import type { PluginWatch } from '../host.js';

/** The environment variable the bridge sets: `{"config": "<Hermes' config.yaml>", "names": ["hmc"]}`. */
export const HERMES_PLUGIN_ENV = 'HMC_HERMES_PLUGIN';

export interface HermesPluginRef {
  /** Hermes' config.yaml. */
  config: string;
  /** The plugin's registry key and manifest name (Hermes matches either). */
  names: string[];
}

/** The plugin to watch, from $HMC_HERMES_PLUGIN (null: not started for Hermes, or unreadable). */
export function hermesPluginFromEnv(env: NodeJS.ProcessEnv = process.env): HermesPluginRef | null {
  const raw = env[HERMES_PLUGIN_ENV]?.trim();
  if (!raw) return null;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== 'object' || parsed === null) return null;
    const { config, names } = parsed as { config?: unknown; names?: unknown };
    const list = Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string' && n !== '') : [];
    return typeof config === 'string' && config && list.length > 0 ? { config, names: list } : null;
  } catch {
    return null;
  }
}

/** Why Hermes would not load the plugin now (a sentence), or null when it would or when it cannot tell. */
export function hermesPluginOff(
  ref: HermesPluginRef,
  read: (path: string) => string = (p) => readFileSync(p, 'utf8'),
): string | null {
  let doc: unknown;
  try {
    const parsed = parseDocument(read(ref.config), { uniqueKeys: false });
    if (parsed.errors.length > 0) return null;
    doc = parsed.toJS();
  } catch {
    return null;
  }
  const plugins = isRecord(doc) ? doc.plugins : undefined;
  if (!isRecord(plugins)) return null;
  const listed = (value: unknown): boolean => Array.isArray(value) && value.some((v) => ref.names.includes(String(v)));
  const name = ref.names[ref.names.length - 1] ?? 'hmc';
  if (listed(plugins.disabled)) return `the ${name} plugin is disabled in ${ref.config} (plugins.disabled)`;
  if (Array.isArray(plugins.enabled) && !listed(plugins.enabled))
    return `the ${name} plugin is no longer enabled in ${ref.config} (plugins.enabled)`;
  return null;
}

/** The watch of this plugin ref, as the registry hands it to the background dashboard. */
export function hermesWatch(ref: HermesPluginRef): PluginWatch {
  return { what: `${ref.config} stops enabling the ${ref.names.join('/')} plugin`, off: () => hermesPluginOff(ref) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
