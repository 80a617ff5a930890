/**
 * Truncation: a long command log becomes its head, its tail and the lines that matter from the
 * cut middle (errors and their detail, exception headlines and root causes, failing-test titles,
 * warnings with their detail, locations, the final test summary); repetition collapses anywhere
 * in a log (repeated lines, runs of build chatter, carriage-return progress). Search listings and
 * documents (web pages, docs, help, reports, data) are kept whole up to `keep_whole_chars`.
 *
 * Invariants:
 * - Honest gaps: every marker's count is exactly the number of input lines it stands for (with
 *   `weights`, of the lines behind an earlier plan's lines); kept indices are strictly increasing
 *   and in range; kept lines + omitted lines = all lines.
 * - Never longer than the input: a gap whose marker would cost more than its lines keeps its
 *   lines (so does a gap of one line up to 160 chars), and a plan that saves nothing is skipped.
 * - No failure is dropped from a log: every failing-test title, and one line for each distinct
 *   failure word (error, Fehler, 失败, TypeError, exit code 2…), is kept whatever the budget.
 * - Failed outputs ARE truncated (a 5,000-line failing build is the case that needs it most);
 *   what keeps the failure is the rule above and `keep_important`, not a blanket exemption.
 * - File reads (`kind === 'file'`) are never truncated: source is the code filter's job.
 * - A text ending in "\n" has an empty last element in `lines`; it is not counted as a line
 *   and is always kept, so the output keeps its final newline.
 */
import type { HmcConfig } from '../../config/keys.js';
import type { StrategyResult, ToolOutput } from '../../core/strategy.js';
import { skipped } from '../../core/strategy.js';
import { isDocument } from '../shared/documents.js';
import { lineContext, type LineContext } from '../shared/line-scores.js';
import { findRepetition, KEPT, SIMILAR, type Repetition } from '../shared/repetition.js';
import { sampleListing } from '../shared/search-listing.js';
import { planned } from './truncation-plan.js';
import { linesToCheck } from '../shared/lines-to-check.js';
import { failureTokens, isFailingTestTitle, isSummaryLine } from '../shared/signals.js';

export { omittedMarker, progressLine, repeatMarker, similarMarker } from './truncation-plan.js';

/** The head/tail window, scaled to fit `max_lines - 1` (one line for the marker) as the original does. */
export function windowSizes(cfg: HmcConfig['truncation']): { head: number; tail: number } {
  const budget = Math.max(1, cfg.max_lines - 1);
  let head = Math.max(0, Math.floor(cfg.head_lines));
  let tail = Math.max(0, Math.floor(cfg.tail_lines));
  if (tail === 0) return { head: Math.min(head, budget), tail: 0 };
  if (head + tail > budget) {
    head = Math.max(1, Math.floor((budget * head) / (head + tail)));
    tail = Math.max(1, budget - head);
  }
  return { head, tail };
}

/** A run of consecutive lines of one importance (indices into the input). */
interface Run {
  lines: number[];
  score: number;
}

/** What a line says once numbers are masked: two lines alike add one fact, not two. */
function signature(line: string): string {
  return line.replace(/\d+/g, '#').trim();
}

/** 0, n-1, 1, n-2, …: neither end of a long log is starved (Java's root cause comes last, Python's first). */
function fromBothEnds<T>(items: readonly T[]): T[] {
  const out: T[] = [];
  for (let lo = 0, hi = items.length - 1; lo <= hi; lo++, hi--) {
    out.push(items[lo] as T);
    if (hi !== lo) out.push(items[hi] as T);
  }
  return out;
}

/**
 * Picks from the middle: what must stay (failing-test titles, one line per new failure word, the
 * last summary), then up to `limit` more important lines. Runs of one importance are visited
 * strongest first, from both ends inwards; a first pass takes only lines that say something not
 * yet kept (by signature), a second pass fills the rest of the budget in the same order. Lines
 * of a rare kind (`rare`) are taken before any of them.
 */
function pickImportant(
  lines: readonly string[],
  middle: readonly number[],
  scores: Uint8Array,
  partners: Int32Array,
  hot: Uint8Array,
  covered: Set<string>,
  limit: number,
  rare: readonly number[] = [],
): number[] {
  const picked = new Set<number>();
  // A line goes with its partner (a diagnostic's message and its location): never one without the other.
  const pick = (i: number): number => {
    picked.add(i);
    const p = partners[i] ?? -1;
    if (p < 0 || picked.has(p)) return 1;
    picked.add(p);
    return 2;
  };
  const runs: Run[] = [];
  let lastSummary = -1;
  let prevPos = -2;
  for (let p = 0; p < middle.length; p++) {
    const i = middle[p] as number;
    const line = lines[i] ?? '';
    const s = scores[i] ?? 0;
    if (s === 0) continue;
    if (s >= 2 && failuresToKeep(lines, [i], covered, hot).length > 0) pick(i);
    if (s === 3 && isSummaryLine(line)) lastSummary = i;
    const prev = runs[runs.length - 1];
    if (prev !== undefined && prevPos === p - 1 && prev.score === s) prev.lines.push(i);
    else runs.push({ lines: [i], score: s });
    prevPos = p;
  }
  if (lastSummary >= 0) pick(lastSummary);

  const order = [3, 2, 1].flatMap((score) => fromBothEnds(runs.filter((r) => r.score === score)));
  const seen = new Set<string>();
  for (const i of picked) seen.add(signature(lines[i] ?? ''));
  let room = limit;
  // Lines of a rare kind among a ruling one come first (rareKindLines).
  for (const i of rare) {
    if (room <= 0) break;
    if (picked.has(i)) continue;
    seen.add(signature(lines[i] ?? ''));
    room -= pick(i);
  }
  for (const run of order) {
    for (const i of run.lines) {
      if (room <= 0) break;
      const sig = signature(lines[i] ?? '');
      if (picked.has(i) || seen.has(sig)) continue;
      seen.add(sig);
      room -= pick(i);
    }
  }
  for (const run of order) {
    for (const i of run.lines) {
      if (room <= 0) break;
      if (picked.has(i)) continue;
      room -= pick(i);
    }
  }
  return [...picked];
}

/** Failing-test titles and one line per failure word not yet `covered`, among `candidates`. */
function failuresToKeep(
  lines: readonly string[],
  candidates: readonly number[],
  covered: Set<string>,
  hot: Uint8Array,
): number[] {
  const keep: number[] = [];
  for (const i of candidates) {
    if (hot[i] === 0) continue;
    const line = lines[i] ?? '';
    const tokens = failureTokens(line);
    if (isFailingTestTitle(line) || tokens.some((t) => !covered.has(t))) keep.push(i);
    for (const t of tokens) covered.add(t);
  }
  return keep;
}

/**
 * A document over its size limit: as many head lines as fit in 3/4 of it, tail lines in the
 * rest, and any failure the cut middle reports.
 */
function documentWindow(
  lines: readonly string[],
  visible: readonly number[],
  hot: Uint8Array,
  budgetChars: number,
): number[] {
  const head: number[] = [];
  let used = 0;
  for (const i of visible) {
    const cost = (lines[i] ?? '').length + 1;
    if (used + cost > (budgetChars * 3) / 4) break;
    head.push(i);
    used += cost;
  }
  const tail: number[] = [];
  for (let k = visible.length - 1; k >= head.length; k--) {
    const i = visible[k] as number;
    const cost = (lines[i] ?? '').length + 1;
    if (used + cost > budgetChars) break;
    tail.push(i);
    used += cost;
  }
  const ends = [...head, ...tail];
  const covered = new Set<string>();
  for (const i of ends) if (hot[i] === 1) for (const t of failureTokens(lines[i] ?? '')) covered.add(t);
  const kept = new Set(ends);
  const middle = visible.filter((i) => !kept.has(i));
  return [...new Set([...ends, ...failuresToKeep(lines, middle, covered, hot)])].sort((a, b) => a - b);
}

/** A log is ruled by one kind of line when that kind is at least this share of its lines… */
const DOMINANT_SHARE = 0.5;
/** …and a kind of at most this share of them (and fewer lines than the ruling kind) is rare among it. */
const RARE_SHARE = 0.05;
/** Rare lines are a few facts, not a second log: past this many in all, none is singled out. */
const RARE_MAX_LINES = 40;

/** A line's kind: its first three words, each that is not a plain word (a name, a number, a path) read as `*`. */
function kindOf(line: string): string {
  const words = line.trim().split(/\s+/, 3);
  return words.map((w) => (/^[A-Za-z][A-Za-z_-]*:?$/.test(w) ? w : '*')).join(' ');
}

/** Lines sampled, evenly spaced, to find whether one kind rules a log (linear time on any size). */
const KIND_SAMPLE = 512;

/**
 * Lines of a rare kind in a log ruled by one kind (issue 25): hundreds of `npm WARN deprecated`
 * lines with a five-line `npm WARN EBADENGINE` block among them. The ruling kind is what a cut
 * should thin; the rare kind is a different fact (this Node is too old), so its lines are the
 * first the budget of important lines takes. Only scored lines (a warning, a failure, their
 * detail) can be rare facts; the ruling kind is found on a sample of all visible lines.
 */
function rareKindLines(
  lines: readonly string[],
  visible: readonly number[],
  middle: readonly number[],
  scores: Uint8Array,
): number[] {
  const sampled = new Map<string, number>();
  const step = Math.max(1, Math.floor(visible.length / KIND_SAMPLE));
  let samples = 0;
  for (let k = 0; k < visible.length; k += step, samples++) {
    const kind = kindOf(lines[visible[k] as number] ?? '');
    sampled.set(kind, (sampled.get(kind) ?? 0) + 1);
  }
  let ruling = '';
  let top = 0;
  for (const [kind, n] of sampled) if (n > top) [ruling, top] = [kind, n];
  if (top < DOMINANT_SHARE * samples || ruling === '' || /^[* ]+$/.test(ruling)) return [];
  const kinds = new Map<number, string>();
  const counts = new Map<string, number>();
  for (const i of visible) {
    if ((scores[i] ?? 0) === 0) continue;
    const kind = kindOf(lines[i] ?? '');
    if (kind === '' || kind === ruling || /^[* ]+$/.test(kind)) continue;
    kinds.set(i, kind);
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  const rare: number[] = [];
  for (const i of middle) {
    const kind = kinds.get(i);
    if (kind !== undefined && (counts.get(kind) ?? 0) <= RARE_SHARE * visible.length) rare.push(i);
  }
  return rare.length <= RARE_MAX_LINES ? rare : [];
}

/** Every diagnostic's message line in `middle`, with its location (issue 25: a linter's findings are the facts). */
function diagnosticMessages(middle: readonly number[], messages: Uint8Array, partners: Int32Array): number[] {
  const out: number[] = [];
  for (const i of middle) {
    if (messages[i] !== 1) continue;
    out.push(i);
    const p = partners[i] ?? -1;
    if (p >= 0) out.push(p);
  }
  return out;
}

/** A long log: head and tail of the visible lines, plus what matters from the middle. */
function cutLog(
  lines: readonly string[],
  visible: readonly number[],
  context: LineContext,
  hot: Uint8Array,
  cfg: HmcConfig['truncation'],
): number[] {
  const { scores, partners, messages } = context;
  const { head, tail } = windowSizes(cfg);
  if (head + tail >= visible.length) return [...visible];
  const ends = [...visible.slice(0, head), ...visible.slice(visible.length - tail)];
  const covered = new Set<string>();
  for (const i of ends) if (hot[i] === 1) for (const t of failureTokens(lines[i] ?? '')) covered.add(t);
  const middle = visible.slice(head, visible.length - tail);
  // Without keep_important, failure words and failing-test titles still stay: no budget for the rest.
  const rare = cfg.keep_important ? rareKindLines(lines, visible, middle, scores) : [];
  const picks = pickImportant(
    lines,
    middle,
    scores,
    partners,
    hot,
    covered,
    cfg.keep_important ? cfg.max_important_lines : 0,
    rare,
  );
  // Every diagnostic's message stays, whatever the budget (with keep_important: the user's switch for all of this).
  const messageLines = cfg.keep_important ? diagnosticMessages(middle, messages, partners) : [];
  return [...new Set([...ends, ...picks, ...messageLines])].sort((a, b) => a - b);
}

/** Cuts and collapses a long output; see the header for the rules. */
export function truncate(
  output: ToolOutput,
  cfg: HmcConfig['truncation'],
  weights?: readonly number[],
): StrategyResult {
  if (!cfg.enabled) return skipped('truncation disabled');
  if (output.kind === 'file') return skipped('a file read is left whole (the code filter handles source)');
  const { text, lines } = output;
  if (text.length === 0) return skipped('empty output');
  // "a\nb\n" is two lines; the empty string after the final newline is not a line.
  const trailingEmpty = lines.length > 1 && lines[lines.length - 1] === '';
  const count = trailingEmpty ? lines.length - 1 : lines.length;

  let keep: number[];
  let rep: Repetition | null = null;
  if (output.kind === 'search') {
    if (text.length <= cfg.keep_whole_chars) return skipped('a search listing is kept whole up to keep_whole_chars');
    keep = sampleListing(lines, count, cfg.keep_whole_chars);
  } else {
    // Short outputs are left alone: a collapse or cut would save too little to be worth a marker.
    if (text.length < cfg.min_content_length) return skipped('shorter than min_content_length');
    // A log too short to cut keeps every line that repetition does not hide, and scores only keep a
    // line out of a similar run (a scored line never joins one): when no similar run is found with
    // no line scored, none is found with the scores, and the repetition is the same. Most short
    // outputs end here, without being scored.
    if (count <= cfg.max_lines && text.length <= cfg.keep_whole_chars) {
      const unscored = findRepetition(lines, count, UNSCORED, true);
      if (!unscored.hidden.includes(SIMILAR))
        return planned(lines, visibleOf(unscored, count), count, trailingEmpty, text, unscored, weights);
    }
    // One scan of the whole text finds the lines that may matter; only those are read one by one.
    const hot = linesToCheck(lines, count, text);
    const context = lineContext(lines, count, hot);
    const { scores } = context;
    // Past twice max_lines a cut is certain and the middle's similar runs go with it: looking for
    // them (masking every line) would cost more than it changes.
    rep = findRepetition(lines, count, scores, count <= 2 * cfg.max_lines);
    // Whether this is a document is asked only when it matters (most outputs: never), it costs a pass.
    let document: boolean | null = null;
    const isDoc = (): boolean => (document ??= isDocument(output));
    if (rep.hidden.includes(SIMILAR) && isDoc()) rep = findRepetition(lines, count, scores, false);
    const visible = visibleOf(rep, count);
    const long = visible.length > cfg.max_lines || text.length > cfg.keep_whole_chars;
    if (long && isDoc())
      keep = text.length <= cfg.keep_whole_chars ? visible : documentWindow(lines, visible, hot, cfg.keep_whole_chars);
    else if (visible.length > cfg.max_lines) keep = cutLog(lines, visible, context, hot, cfg);
    else keep = visible;
  }

  return planned(lines, keep, count, trailingEmpty, text, rep, weights);
}

/** No line scored: every score reads as 0. */
const UNSCORED = new Uint8Array(0);

/** The lines repetition leaves visible. */
function visibleOf(rep: Repetition, count: number): number[] {
  const visible: number[] = [];
  for (let i = 0; i < count; i++) if (rep.hidden[i] === KEPT) visible.push(i);
  return visible;
}
