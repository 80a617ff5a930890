/**
 * Where layer 1 starts summarising, as a share of the context window: the lower of
 * `compress.max_context_percent` and `background_compression.threshold_share` of the host's own
 * compression threshold (the one the host sent, else `background_compression.host_threshold`), so
 * HMC's cheaper pass comes before the host compacts (docs/engine.md "Layer 1").
 *
 * Invariant: one rule for the engine (layer1.ts decides with it) and the page (the turn event
 * carries it, so the context chart's dashed line is where this session's layer 1 fires).
 */
import type { HmcConfig } from '../../config/keys.js';

/** The context use (0..1 of the window) past which layer 1 summarises older turns. */
export function summariseShare(config: HmcConfig, hostThreshold: number | undefined): number {
  const bc = config.background_compression;
  return Math.min(config.compress.max_context_percent, bc.threshold_share * (hostThreshold ?? bc.host_threshold));
}
