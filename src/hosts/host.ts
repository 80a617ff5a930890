/**
 * What HMC knows of an agent host, beyond the host contract it speaks (core/host-api.ts): its
 * name, the tool names its agents call that the shared vocabulary lacks, and what `hmc doctor`
 * checks of its install. A host registers one of these in hosts/index.ts.
 *
 * Invariant: a host's checks never throw; each is one line, ok or failed with a fix.
 */
import type { Check } from '../../bin/install-check.js';
import type { ToolWord } from './tools.js';

export type { Check };

export interface AgentHost {
  /** Short, lower case (`hermes`); `hmc doctor` takes `--<name>-home H` and `--no-<name>`. */
  readonly name: string;
  /** Tool names its agents call that hosts/tools.ts lacks, with their kinds. */
  readonly tools?: readonly ToolWord[];
  /** `hmc doctor`'s checks of the host's install (`home`: from `--<name>-home`, else its own default). */
  doctor?(home: string | undefined): Promise<Check[]>;
}
