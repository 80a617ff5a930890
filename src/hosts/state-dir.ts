/**
 * HMC's state dir (DESIGN §8): where sessions, events, recall copies and the analytics database
 * live. An explicit option, then $HMC_STATE_DIR, then the home host's place for it (the first
 * host of the registry, hosts/index.ts; Hermes: $HERMES_HOME/hmc_state).
 *
 * Invariant: the same inputs give the same path in every process (the sidecar, `hmc dashboard`,
 * `hmc control` and the bridge must all find one state dir).
 */
import { resolve } from 'node:path';
import { expandHome } from '../config/paths.js';
import { HOME_HOST } from './index.js';

/** The state dir: --state-dir, else $HMC_STATE_DIR, else the home host's (Hermes: $HERMES_HOME/hmc_state). */
export function resolveStateDir(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = explicit?.trim() || env.HMC_STATE_DIR?.trim();
  return chosen ? resolve(expandHome(chosen)) : HOME_HOST.stateDir(undefined, env);
}
