/**
 * The list-wide rewrites in force for a session: which outputs are sent as placeholders and why,
 * each placeholder's words (so they never change once sent: the prompt cache), the calls whose
 * arguments are sent short, the user's sweep waiting for the next pass, and how many were made.
 *
 * Invariant: read-only to the outside; list-wide/batch.ts records what a pass put in force,
 * control/control.ts asks for a sweep. Saved whole, so a new process sends the same bytes.
 */
import type { InputClearing } from '../../strategies/list-wide/input-clearing.js';
import type { Prune, PruneKind, StaleDetail } from './held.js';

export interface SavedPruning {
  pruned: Record<string, PruneKind>;
  pruned_text: Record<string, string>;
  pruned_age: Record<string, number>;
  pruned_stale: Record<string, StaleDetail>;
  inputs_cleared?: Record<string, InputClearing>;
  swept: string[];
  prune_count: number;
  last_batch_turn: number;
}

export class Pruning {
  private readonly kinds = new Map<string, PruneKind>();
  private readonly texts = new Map<string, string>();
  private readonly ages = new Map<string, number>();
  private readonly stales = new Map<string, StaleDetail>();
  private readonly cleared = new Map<string, InputClearing>();
  private readonly sweeps = new Set<string>();
  private _sweepPending = false;
  private _pruneCount = 0;
  private readonly _lastBatchTurn: number = 0;

  constructor(saved?: SavedPruning) {
    if (!saved) return;
    for (const [k, v] of Object.entries(saved.pruned)) this.kinds.set(k, v);
    for (const [k, v] of Object.entries(saved.pruned_text)) this.texts.set(k, v);
    for (const [k, v] of Object.entries(saved.pruned_age)) this.ages.set(k, v);
    for (const [k, v] of Object.entries(saved.pruned_stale)) this.stales.set(k, v);
    for (const [k, v] of Object.entries(saved.inputs_cleared ?? {})) this.cleared.set(k, v);
    for (const k of saved.swept) this.sweeps.add(k);
    this._pruneCount = saved.prune_count;
    this._lastBatchTurn = saved.last_batch_turn;
  }

  /** Keys whose list-wide rewrite is in force, and why. */
  get pruned(): ReadonlyMap<string, PruneKind> {
    return this.kinds;
  }
  /** How each placeholder in force was worded, so it never changes once sent (prompt cache). */
  get prunedText(): ReadonlyMap<string, string> {
    return this.texts;
  }
  get prunedAge(): ReadonlyMap<string, number> {
    return this.ages;
  }
  get prunedStale(): ReadonlyMap<string, StaleDetail> {
    return this.stales;
  }
  /** Calls whose arguments are sent short, and why (saved, so a new process sends the same bytes). */
  get inputsCleared(): ReadonlyMap<string, InputClearing> {
    return this.cleared;
  }
  /** Keys the user swept (hmc_control sweep), applied at the next model call. */
  get swept(): ReadonlySet<string> {
    return this.sweeps;
  }
  get sweepPending(): boolean {
    return this._sweepPending;
  }
  get pruneCount(): number {
    return this._pruneCount;
  }
  /** Kept as saved (older files carry it; nothing sets it any more). */
  get lastBatchTurn(): number {
    return this._lastBatchTurn;
  }

  /** The output `key` is sent as `prune` now (null: as it is again); its words are kept. */
  recordPrune(key: string, prune: Prune | null): void {
    this.texts.delete(key);
    this.ages.delete(key);
    this.stales.delete(key);
    if (!prune) {
      this.kinds.delete(key);
      return;
    }
    this.kinds.set(key, prune.strategy);
    this.texts.set(key, prune.text);
    if (prune.age !== undefined) this.ages.set(key, prune.age);
    if (prune.stale !== undefined) this.stales.set(key, prune.stale);
  }

  /** A new placeholder went in force (counted once per output). */
  countPrune(): void {
    this._pruneCount++;
  }

  /** Call `id`'s arguments are sent short (`clearing`), or as they are again (null). */
  recordInputs(id: string, clearing: InputClearing | null): void {
    if (clearing) this.cleared.set(id, clearing);
    else this.cleared.delete(id);
  }

  /** The user swept `keys`: the next model call applies it. */
  requestSweep(keys: readonly string[]): void {
    for (const key of keys) this.sweeps.add(key);
    if (keys.length > 0) this._sweepPending = true;
  }

  /** A pass that was going to cost a cache break anyway took the sweep. */
  sweepTaken(): void {
    this._sweepPending = false;
  }
}
