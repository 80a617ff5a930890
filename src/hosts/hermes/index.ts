/**
 * Hermes Agent, the host HMC was built for: it loads the Python bridge (`__init__.py`, the
 * `hmc_bridge` package) as a plugin, which starts `hmc sidecar --stdio` and speaks the protocol.
 * Its home is also where HMC keeps its state dir by default (paths.ts). Its tool names are in the
 * shared vocabulary (hosts/tools.ts); doctor.ts checks its install.
 *
 * Invariant: Hermes facts live in this folder; the engine never names Hermes.
 */
import type { AgentHost } from '../host.js';
import { hermesChecks } from './doctor.js';
import { hermesHome } from './paths.js';

export const hermes = {
  name: 'hermes',
  doctor: (home: string | undefined) => hermesChecks(home ?? hermesHome()),
} as const satisfies AgentHost;
