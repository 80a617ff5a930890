// Writes dist/hmc_control.schema.json, the `hmc_control` tool schema the Hermes bridge registers
// before the sidecar has started (it starts on the first hook); `npm run build` runs it after tsc.
// The sidecar's hello sends the same object (src/engine/control/control-schema.ts), so the two never differ.
import { mkdirSync, writeFileSync } from 'node:fs';
import { CONTROL_TOOL_SCHEMA } from '../src/engine/control/control-schema.js';

const dist = new URL('../dist/', import.meta.url);
mkdirSync(dist, { recursive: true });
writeFileSync(new URL('hmc_control.schema.json', dist), `${JSON.stringify(CONTROL_TOOL_SCHEMA, null, 2)}\n`);
