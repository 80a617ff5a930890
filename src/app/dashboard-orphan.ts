/**
 * The background dashboard leaves when what started it is gone (issue 27, finding 1: after
 * `hermes plugins disable hmc` or `remove hmc` it kept running, its page a 404 once its files were
 * deleted, and `hermes hmc dashboard stop` no longer existed to stop it). It is orphaned when
 *
 * - the files it runs from are gone: the package's `bin/hmc.js` (a removed plugin folder), or
 * - it was started for Hermes ($HMC_HERMES_PLUGIN) and Hermes' config no longer loads the plugin
 *   (`plugins.disabled` lists it, or `plugins.enabled` does not: hosts/hermes/plugin-state.ts; the
 *   watch comes from the hosts registry, `pluginWatchOf`).
 *
 * Checked every `intervalMs` (5 s); the same finding twice in a row ends it (a config being
 * rewritten or a folder being replaced is not mistaken for a removal), so it exits 5–10 s after.
 *
 * Invariant: a check that cannot tell (an unreadable config, a broken YAML) never ends it; the
 * caller gets the reason once, as one line for its log.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PluginWatch } from '../hosts/host.js';

export interface OrphanWatch {
  /** The package the dashboard runs from (bin/hmc.js is looked for there). */
  packageRoot: string;
  /** Whether the host it serves still loads the plugin, when started for a host (Hermes). */
  host: PluginWatch | null;
}

/** The package root of this very file (dist/app/ or src/app/ → the root). */
export function ownPackageRoot(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
}

/** Why the dashboard is orphaned now, or null. */
export function orphanReason(w: OrphanWatch): string | null {
  const entry = join(w.packageRoot, 'bin', 'hmc.js');
  if (!existsSync(entry)) return `the files it runs from are gone (${entry}: the plugin was removed?)`;
  return w.host ? w.host.off() : null;
}

/** Calls `onOrphan(reason)` once, after two checks in a row found the dashboard orphaned. Returns a stop function. */
export function watchOrphan(w: OrphanWatch, onOrphan: (reason: string) => void, intervalMs = 5000): () => void {
  let seen: string | null = null;
  const timer = setInterval(() => {
    const reason = orphanReason(w);
    if (reason !== null && seen !== null) {
      clearInterval(timer);
      onOrphan(reason);
      return;
    }
    seen = reason;
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
