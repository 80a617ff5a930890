/** Runs the `hmc` CLI from source (tests spawn it with `node --import tsx`). */
import { main } from '../../src/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
