/**
 * Where HMC keeps its files (DESIGN §8): the config file, the analytics database, file names of
 * sessions. Order: an explicit option, then the environment, then the default. (The state dir
 * itself defaults to the home host's: src/hosts/state-dir.ts.)
 */
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The analytics database: analytics.db_path, else $HMC_DB_PATH, else <state dir>/analytics.db. */
export function resolveDbPath(configured: string, stateDir: string, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = configured.trim() || env.HMC_DB_PATH?.trim();
  return chosen ? resolve(expandHome(chosen)) : join(stateDir, 'analytics.db');
}

export function expandHome(path: string): string {
  return path === '~' || path.startsWith('~/') ? join(homedir(), path.slice(1)) : path;
}

/** A session id made safe as a file name (the original only replaced "/"; reference §14 E15). */
export function safeFileName(id: string): string {
  const cleaned = id.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
  return (cleaned || '_').slice(0, 200);
}

/** The config file: --config, else $HMC_CONFIG, else config.yaml beside the plugin (the package root). */
export function resolveConfigPath(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = explicit?.trim() || env.HMC_CONFIG?.trim();
  if (chosen) return resolve(expandHome(chosen));
  // src/config or dist/config → the package root.
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'config.yaml');
}
