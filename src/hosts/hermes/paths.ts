/**
 * Where Hermes keeps its files, and so where HMC keeps its own by default: Hermes' home
 * ($HERMES_HOME, else ~/.hermes), the plugin's folder and config there, and HMC's state dir
 * inside it (`hmc_state`).
 *
 * Invariant: paths only; nothing here reads or writes a file.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { expandHome } from '../../config/paths.js';

/** Hermes' home: $HERMES_HOME, else ~/.hermes. */
export function hermesHome(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.HERMES_HOME?.trim();
  return home ? resolve(expandHome(home)) : join(homedir(), '.hermes');
}

/** HMC's state dir inside a Hermes home. */
export function hermesStateDir(home: string): string {
  return join(home, 'hmc_state');
}

/** The plugin's folder in a Hermes home (`hermes plugins install` puts it there). */
export function hermesPluginDir(home: string): string {
  return join(home, 'plugins', 'hmc');
}

/** Hermes' own config file. */
export function hermesConfigPath(home: string): string {
  return join(home, 'config.yaml');
}
