/**
 * Truncation's plan (truncation.ts chooses the lines to keep): the kept lines in order, one marker
 * per gap (omitted, repeated, similar), a carriage-return line shown by its final state, and the
 * markers' words.
 *
 * Invariant: every marker's count is exactly the number of input lines it stands for (with
 * `weights`, of the lines behind an earlier plan's lines); a gap whose marker would cost more than
 * its lines keeps its lines; a plan that saves nothing is skipped.
 */
import type { LinePlanItem, StrategyResult } from '../../core/strategy.js';
import { keptLines, skipped } from '../../core/strategy.js';
import { KEPT, REPEAT, SIMILAR, type Repetition } from '../shared/repetition.js';

/** The original's gap marker (three ASCII dots), reference §4. */
export function omittedMarker(count: number): string {
  return `... (${count} ${count === 1 ? 'line' : 'lines'} omitted)`;
}

/** A collapsed run of exact repeats: the kept line above it appeared `count` more times. */
export function repeatMarker(count: number): string {
  return `... (previous line repeated ${count} more ${count === 1 ? 'time' : 'times'})`;
}

/** A collapsed run of lines of one kind (build chatter, heartbeats) between its kept first and last line. */
export function similarMarker(count: number): string {
  return `... (${count} similar ${count === 1 ? 'line' : 'lines'} omitted)`;
}

/** A carriage-return line shown by its final state. */
export function progressLine(finalState: string, overwritten: number): string {
  return `${finalState} ... (${overwritten} earlier progress ${overwritten === 1 ? 'state' : 'states'} omitted)`;
}

/** A one-line gap up to this long is kept as the line itself: a hole in a traceback costs more than it saves. */
const SMALL_GAP_CHARS = 160;

/** The marker for lines [from, to) that are not kept, counting `weights` (input lines per line). */
function gapMarker(rep: Repetition | null, from: number, to: number, weights: readonly number[] | undefined): string {
  let n = 0;
  for (let i = from; i < to; i++) n += weights?.[i] ?? 1;
  if (rep !== null) {
    const kinds = new Set<number>();
    for (let i = from; i < to; i++) kinds.add(rep.hidden[i] ?? KEPT);
    if (kinds.size === 1 && kinds.has(REPEAT)) return repeatMarker(n);
    if (kinds.size === 1 && kinds.has(SIMILAR)) return similarMarker(n);
  }
  return omittedMarker(n);
}

/** Builds the plan: kept indices (or their final progress state) in order, one marker per gap, small gaps kept whole. */
function buildPlan(
  lines: readonly string[],
  keep: readonly number[],
  count: number,
  rep: Repetition | null,
  weights: readonly number[] | undefined,
): { plan: LinePlanItem[]; chars: number } {
  const plan: LinePlanItem[] = [];
  let chars = 0;
  let next = 0;
  const emit = (i: number): void => {
    const progress = rep?.progress.get(i);
    if (progress !== undefined) {
      const marker = progressLine(progress.text, progress.overwritten);
      if (marker.length < (lines[i] ?? '').length) {
        plan.push({ marker });
        chars += marker.length + 1;
        return;
      }
    }
    plan.push(i);
    chars += (lines[i] ?? '').length + 1;
  };
  const gap = (from: number, to: number): void => {
    if (to <= from) return;
    const marker = gapMarker(rep, from, to, weights);
    let gapChars = 0;
    const budget = to - from === 1 ? Math.max(SMALL_GAP_CHARS, marker.length + 1) : marker.length + 1;
    for (let i = from; i < to && gapChars <= budget; i++) gapChars += (lines[i] ?? '').length + 1;
    if (gapChars <= budget) {
      for (let i = from; i < to; i++) emit(i);
    } else {
      plan.push({ marker });
      chars += marker.length + 1;
    }
  };
  for (const i of keep) {
    gap(next, i);
    emit(i);
    next = i + 1;
  }
  gap(next, count);
  return { plan, chars };
}

/** The plan keeping `keep`, unless it saves nothing. */
export function planned(
  lines: readonly string[],
  keep: readonly number[],
  count: number,
  trailingEmpty: boolean,
  text: string,
  rep: Repetition | null,
  weights: readonly number[] | undefined,
): StrategyResult {
  const { plan, chars } = buildPlan(lines, keep, count, rep, weights);
  if (trailingEmpty) plan.push(count);
  // The engine joins with "\n": the plan's size is its chars minus the one join it does not add.
  if (chars - (trailingEmpty ? 0 : 1) >= text.length) return skipped('the cut saves nothing');
  return keptLines(plan);
}
