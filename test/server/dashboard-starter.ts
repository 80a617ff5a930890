/**
 * A process that asks for the shared dashboard through hmc_control, as a `hermes chat -q` turn's
 * sidecar does, prints the answer as one JSON line and exits: `dashboard-starter.ts <state dir>
 * <start|status|stop>`. Spawned by test/server/background.test.ts with `node --import tsx`.
 */
import { defaultConfig } from '../../src/config/keys.js';
import { createRuntime } from '../../src/app/runtime.js';

const [stateDir, sub] = process.argv.slice(2);
const runtime = await createRuntime({ stateDir, config: defaultConfig(), dashboardPort: 0, log: () => {} });
const answer = await runtime.api.control({ args: { action: 'dashboard', sub_action: sub } });
await runtime.close();
process.stdout.write(`${JSON.stringify(answer)}\n`);
