/**
 * Repetition in a log: which lines a collapse may leave out, and the final state of
 * carriage-return progress lines. Truncation turns the result into its plan and markers.
 *
 * - An exact repeat of the line before (a wait loop, a retry message) is left out; its marker
 *   says how many times the kept line was repeated.
 * - A run of at least `MIN_SIMILAR` unimportant lines of one kind keeps its first and last line:
 *   lines identical once timestamps, durations, sizes, rates, percentages and long hex ids are
 *   masked (heartbeats, layer ids), lines opening with the same build-progress verb (Compiling,
 *   Downloading, CC, asset…), asset-table rows (a path, then sizes), passing-test lines, and a
 *   package manager's lines of one step (package-steps.ts: fetch, resolution, link and build
 *   lines with their codes, listings of built packages), whatever names and codes they carry.
 *   Plain numbers are never masked: `1 of 3` and `2 of 3`, or a status 200 and 500, stay apart.
 * - A line overwritten by carriage returns keeps its final state, unless an overwritten state
 *   reported a failure or a warning (then the line is kept whole).
 *
 * Invariants: a line that matters (score > 0) is never part of a similar run; exact repeats
 * are byte-identical to the kept line, so nothing is lost but the count, which the marker gives.
 */
import { isPackageStep, packageStep } from './package-steps.js';
import { reportsFailure, reportsWarning } from './signals.js';

export const KEPT = 0;
export const REPEAT = 1;
export const SIMILAR = 2;

export interface Repetition {
  /** Per line: KEPT, REPEAT (same as the line before) or SIMILAR (inside a run of one kind). */
  hidden: Uint8Array;
  /** Carriage-return lines shown by their final state: index → that state and how many were overwritten. */
  progress: Map<number, { text: string; overwritten: number }>;
}

const MIN_SIMILAR = 4;
/** Lines of one kind differ in length by at most this much (masked values are short). */
const NEAR_LENGTH = 12;

/**
 * Values that change on every line of a repetitive log without changing what it says, as one
 * alternation (one pass per line), most specific first: ISO, access-log and syslog timestamps,
 * times of day and elapsed mm:ss, hex ids and digests, sizes and rates, durations, percentages.
 */
const MASK = new RegExp(
  [
    /\b\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?(?:Z|[+-]\d\d:?\d\d)?/,
    /\b\d{1,2}\/[A-Z][a-z]{2}\/\d{4}(?::\d\d){3}(?: [+-]\d{4})?/,
    /\b[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d\b/,
    /\b\d{1,2}:\d\d(?::\d\d)?(?:[.,]\d+)?\b/,
    /\b[0-9a-f]{7,}\b/,
    /\b\d+(?:\.\d+)?\s?(?:[kKMGT]i?B|B|bytes)(?:\/s)?\b/,
    /\b\d+(?:\.\d+)?\s?(?:ms|µs|us|ns|s|m|h)\b/,
    /\b\d+(?:\.\d+)?\s?%/,
  ]
    .map((re) => re.source)
    .join('|'),
  'g',
);
const DIGIT = /\d/;
/** A line with something besides white space (what `trim() !== ''` says, without a copy). */
const NOT_BLANK = /\S/;
const LETTER = /[a-z]/;

/** A plain run of digits or of hex letters alone is not a hex id: `1234567` stays a number. */
function maskValue(value: string): string {
  if (/^[0-9a-f]+$/.test(value) && !(DIGIT.test(value) && LETTER.test(value))) return value;
  return '#';
}

/** Build chatter: lines a clean build prints once per unit of work. */
const PROGRESS_VERB =
  /^\s*(?:\[(?:INFO|DEBUG)\]\s+|\[\s*\d+%\]\s+)?(Compiling|Checking|Documenting|Fresh|Downloading|Downloaded|Fetching|Installing|Building|Built target|Linking|Collecting|Using cached|Unpacking|Setting up|Preparing to unpack|Selecting previously unselected|Processing triggers|Scanning dependencies|Get:\d+|Hit:\d+|Ign:\d+|Holen:\d+|Pulling|Pushing|Pushed|Extracting|Generated|CC|CXX|LD|AR|AS|CCLD|CXXLD|GEN|INSTALL|OBJCOPY|asset|> Task)(?=\s|$)/;
/** Verbs one tool alternates between for each unit (pip: Collecting x, Downloading x.whl). */
const VERB_FAMILY: Readonly<Record<string, string>> = {
  Collecting: 'fetch',
  Downloading: 'fetch',
  Downloaded: 'fetch',
  'Using cached': 'fetch',
  Fetching: 'fetch',
};
/** Package-manager steps that belong to a build verb's family (pip's "Requirement already satisfied" among its Collecting lines). */
const STEP_FAMILY: Readonly<Record<string, string>> = { 'pip fetch': 'verb:fetch' };
const PASSING_TEST =
  /\bPASSED\b|^\s*[✓✔√]\s|\.\.\. ok\s*$|^\s*--- PASS:|^=== (?:RUN|PAUSE|CONT)\s|^ok \d+ - |^\(pass\)\s/;
const PATH_WITH_SIZE = /^\s*\S*[/\\]\S*\.\w+\s+.*\b\d+(?:\.\d+)?\s?(?:[kKMG]i?B|B)\b/;

/** What kind of line this is, for similar runs; null when it has no kind (it never joins a run). */
function kindOf(line: string): string | null {
  if (!NOT_BLANK.test(line)) return null;
  const verb = PROGRESS_VERB.exec(line);
  if (verb) {
    const word = (verb[1] ?? '').replace(/:\d+$/, '');
    return `verb:${VERB_FAMILY[word] ?? word}`;
  }
  const step = packageStep(line);
  if (step !== null) return STEP_FAMILY[step] ?? `step:${step}`;
  if (PASSING_TEST.test(line)) return 'pass';
  if (!DIGIT.test(line)) return null;
  const masked = line.replace(MASK, maskValue);
  if (PATH_WITH_SIZE.test(line)) return `path:${masked.replace(/^\s*\S+/, '').replace(/\s+/g, ' ')}`;
  return masked === line ? null : `mask:${masked}`;
}

/** Splits a carriage-return line into its visible states (a CRLF ending is not a state). */
function progressStates(line: string): string[] | null {
  const body = line.endsWith('\r') ? line.slice(0, -1) : line;
  if (!body.includes('\r')) return null;
  const states = body.split('\r').filter((s) => s.trim() !== '');
  return states.length >= 2 ? states : null;
}

/**
 * Finds repeats, similar runs (unless `similar` is false: a document's lines are each a fact)
 * and progress lines in `lines[0, count)` given their scores.
 */
export function findRepetition(
  lines: readonly string[],
  count: number,
  scores: Uint8Array,
  similar = true,
): Repetition {
  const hidden = new Uint8Array(count);
  const progress = new Map<number, { text: string; overwritten: number }>();
  for (let i = 0; i < count; i++) {
    const states = progressStates(lines[i] ?? '');
    if (states === null) continue;
    const earlier = states.slice(0, -1);
    if (earlier.some((s) => reportsFailure(s) || reportsWarning(s))) continue;
    progress.set(i, { text: states[states.length - 1] as string, overwritten: earlier.length });
  }
  // Most logs have no progress lines: then a line is shown as it is, with no map lookup.
  const shown =
    progress.size === 0
      ? (i: number): string => lines[i] ?? ''
      : (i: number): string => progress.get(i)?.text ?? lines[i] ?? '';

  for (let i = 1; i < count; i++) {
    if (shown(i) === shown(i - 1) && shown(i).trim() !== '') hidden[i] = REPEAT;
  }

  if (!similar) return { hidden, progress };
  let runStart = 0;
  let runKind: string | null = null;
  const closeRun = (end: number): void => {
    // Members strictly between the first and the last line, if the run is long enough.
    if (runKind === null || end - runStart < MIN_SIMILAR) return;
    for (let j = runStart + 1; j < end - 1; j++) if (hidden[j] === KEPT) hidden[j] = SIMILAR;
  };
  // Lines of one kind have about the same length; a line unlike both neighbours skips the masking.
  const near = (i: number, j: number): boolean =>
    j >= 0 && j < count && Math.abs(shown(i).length - shown(j).length) <= NEAR_LENGTH;
  for (let i = 0; i < count; i++) {
    const kind =
      (scores[i] ?? 0) === 0 &&
      (near(i, i - 1) || near(i, i + 1) || PROGRESS_VERB.test(shown(i)) || isPackageStep(shown(i)))
        ? kindOf(shown(i))
        : null;
    if (kind !== null && kind === runKind) continue;
    closeRun(i);
    runStart = i;
    runKind = kind;
  }
  closeRun(count);
  return { hidden, progress };
}
