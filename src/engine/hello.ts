/**
 * The sidecar's `hello` answer: what it can do, and what a host needs from it before the first
 * hook: the `hmc_control` tool schema, how big a stretch of a long history to send per `partial`
 * call, and the figures it read in the host's config (the bridge names Hermes' config.yaml). The
 * host's reader is found in the hosts registry by the hello's `host`: the engine names no host.
 *
 * Invariant: pure apart from reading the config file the host named; never throws.
 */
import { helloHostConfig } from '../hosts/index.js';
import type { HelloParams, HelloResult } from '../core/host-api.js';
import { VERSION } from '../core/version.js';
import { CONTROL_TOOL_SCHEMA } from './control/control-schema.js';

/** `context_engine`: should_compress, compress, update_from_response, engine_session (core/context-engine.ts). */
export const CAPABILITIES = ['append', 'replace', 'edits', 'model_call', 'llm.complete', 'partial', 'context_engine'];

/**
 * A long history (a resumed session) goes ahead in `partial` calls of about this many bytes, so
 * no call carries, or makes the sidecar work on, more than that (issue 11: one 100 K-message call
 * outlasted the bridge's 2 s hook limit).
 */
export const STREAM_BYTES = 1024 * 1024;

export function helloAnswer(params: HelloParams): HelloResult {
  const answer: HelloResult = {
    version: VERSION,
    protocol: 1,
    capabilities: [...CAPABILITIES],
    control_schema: CONTROL_TOOL_SCHEMA,
    stream_bytes: STREAM_BYTES,
  };
  const hostConfig = helloHostConfig(params);
  if (hostConfig) answer.host_config = hostConfig;
  return answer;
}
