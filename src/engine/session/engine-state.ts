/**
 * What HMC keeps as the host's context engine (issue 16): compactions made, the highest phase id
 * used, provider usage rows recorded; saved with the session (`context_engine`).
 *
 * Invariant: read-only to the outside; the counts only grow, each through the method for its event.
 */
import type { EngineState } from './persisted.js';

export class ContextEngineState {
  private state: EngineState;

  constructor(saved?: EngineState) {
    this.state = saved
      ? { ...saved }
      : { host_reduction: 0, last_phase_id: 0, compactions: 0, usage_seq: 0, usage_calls: 0 };
  }

  /** Host units HMC took off the conversation at the last save (Session.hostReduction). */
  get host_reduction(): number {
    return this.state.host_reduction;
  }
  /** The highest phase id used (layer 1 and compactions number their phases after it). */
  get last_phase_id(): number {
    return this.state.last_phase_id;
  }
  /** Compactions HMC made as the host's context engine. */
  get compactions(): number {
    return this.state.compactions;
  }
  /** Provider usage rows recorded (their sequence numbers). */
  get usage_seq(): number {
    return this.state.usage_seq;
  }
  /** Model calls counted when the last usage row came. */
  get usage_calls(): number {
    return this.state.usage_calls;
  }

  /** A phase numbered `id` was made (layer 1's summary, a compaction's range). */
  phaseNumbered(id: number): void {
    this.state.last_phase_id = Math.max(this.state.last_phase_id, id);
  }

  /** Compaction number `n` was made, its phases numbered `ids`. */
  compacted(n: number, ids: readonly number[]): void {
    this.state.compactions = n;
    this.state.last_phase_id = Math.max(this.state.last_phase_id, ...ids);
  }

  /** A provider usage row came with `modelCalls` calls counted: its sequence number. */
  usageRecorded(modelCalls: number): number {
    this.state.usage_calls = modelCalls;
    this.state.usage_seq += 1;
    return this.state.usage_seq;
  }

  /** The saved shape, with the host reduction as of now. */
  snapshot(hostReduction: number): EngineState {
    return { ...this.state, host_reduction: hostReduction };
  }
}
