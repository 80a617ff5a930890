/**
 * Layer 1's state in a session: the summarised phases in force (oldest first), the summary waiting
 * for a pass, whether saved phases still have to go back on the held messages, the hint last sent.
 *
 * Invariant: read-only to the outside; layer1/layer1.ts stages, applies and drops phases, the
 * turn's answer (turn/call.ts) records the hint it sent.
 */
import type { Phase } from './held.js';

export interface StagedSummary {
  phase: Phase;
  updated: boolean;
}

export class Layer1State {
  private _phases: Phase[] = [];
  private _phasesToRehold = false;
  private _stagedPhase: StagedSummary | null = null;
  private _hintSent = '';

  constructor(saved?: { phases: Phase[]; staged_phase?: StagedSummary; hint_sent: string }) {
    if (!saved) return;
    this._phases = saved.phases;
    this._phasesToRehold = saved.phases.length > 0;
    this._stagedPhase = saved.staged_phase ?? null;
    this._hintSent = saved.hint_sent;
  }

  /** Layer 1's summarised ranges, oldest first. */
  get phases(): readonly Phase[] {
    return this._phases;
  }
  /** Phases loaded from disk whose summaries are not yet back on the held messages. */
  get phasesToRehold(): boolean {
    return this._phasesToRehold;
  }
  /** Layer 1's summary waiting for a pass (also saved, so a new process need not ask again). */
  get stagedPhase(): StagedSummary | null {
    return this._stagedPhase;
  }
  /** The layer-1 hint last sent. */
  get hintSent(): string {
    return this._hintSent;
  }

  /** A summary is ready for the next pass. */
  stage(phase: Phase, updated: boolean): void {
    this._stagedPhase = { phase, updated };
  }

  /** The waiting summary is gone (it went out, or its messages changed). */
  dropStaged(): void {
    this._stagedPhase = null;
  }

  /** `phase` went out: it is in force now (an update replaces the phase with its id). */
  putInForce(phase: Phase): void {
    this._phases = [...this._phases.filter((p) => p.id !== phase.id), phase].sort((a, b) => a.from - b.from);
  }

  /** The saved phases went back on the held messages: `kept` are those still over the same messages. */
  reheld(kept: Phase[]): void {
    this._phasesToRehold = false;
    this._phases = kept;
  }

  /** The held history was cut: only the phases `keep` says of are still in force. */
  keepPhases(keep: (phase: Phase) => boolean): void {
    this._phases = this._phases.filter(keep);
  }

  /** The turn's answer carried `hint`. */
  hintGiven(hint: string): void {
    this._hintSent = hint;
  }
}
