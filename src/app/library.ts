/**
 * HMC as a library, for TypeScript hosts in the same process (the package's `main`: dist/app/library.js): a runtime
 * (engine, config file, state dir, analytics, dashboard control) and the in-process host that
 * applies its edits to a conversation in place and restores them exactly. Python hosts (Hermes)
 * use the sidecar instead (`hmc sidecar --stdio`, docs/hermes.md).
 *
 * Invariant: re-exports only; nothing runs on import.
 */
export { createRuntime, type Runtime, type RuntimeOptions } from './runtime.js';
export { InProcessHost } from '../hosts/in-process.js';
export { defaultConfig, resolveConfig, type HmcConfig } from '../config/keys.js';
export type { HmcHostApi } from '../core/host-api.js';
export type { Message } from '../core/message.js';
