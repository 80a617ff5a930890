/**
 * Short-circuit: an output that is wholly a known success (tests passed, clean git, already
 * installed, a bare `{"status": "ok"}`) becomes a one-line note such as `[tests: 42 passed]`.
 *
 * Invariant (DESIGN §4.1): a one-liner stands only for an output that says nothing else. The
 * rule, which fixes the original's match-anywhere false positives (reference §14 C):
 *   1. never for a failed call (`isError`), a file read or search results (those are what the
 *      agent asked to see), an empty text, or text for which `reportsFailure` is true;
 *   2. a line-shaped success (test runners, git, package managers) fires only when EVERY
 *      non-blank line belongs to that shape's line vocabulary (banner, progress, per-test `ok`
 *      lines, the summary) and the shape's required lines are present; any other line (a warning,
 *      a print, a listed change, a build log) means the output carries more than the success, so
 *      we skip. ANSI colour codes are ignored while matching. Jest and mocha print describe
 *      titles as free text; an indented line followed by a deeper-indented one counts as a title;
 *   3. a JSON success fires only when the whole text parses as one object whose every field is
 *      part of the acknowledgement (status "ok", empty error fields, a "done"-like message, a
 *      clean lint report); an id, a path list or any other data means skip (objects over 4 KB
 *      are never acknowledgements and are not parsed);
 *   4. the replacement must be shorter than the text.
 * Facts the success itself carries are kept in the one-liner: test counts, skips, the branch.
 */
import type { HmcConfig } from '../../config/keys.js';
import type { StrategyResult, ToolOutput } from '../../core/strategy.js';
import { replacedBy, skipped } from '../../core/strategy.js';
import { reportsFailure } from '../shared/signals.js';
import { parseJsonObjectText } from '../shared/json-object.js';

const UP_TO_DATE = '[ok: already up to date]';
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;
const BLANK = /^\s*$/;
const LEADING_SPACE = /^\s*/;
/** npm / yarn script headers (`> pkg@1.0.0 test`, `> vitest run`). */
const SCRIPT_HEADER = /^> \S.*$/;
const TICK = /^\s*[✓✔√]\s.*$/;

/** One line-shaped success. */
interface LineShape {
  name: string;
  /** Every non-blank line must match one of these (or `required`). */
  vocabulary: readonly RegExp[];
  /** Each of these must match at least one line. */
  required: readonly RegExp[];
  /** Allow describe/suite titles: an indented line followed by a more indented one (jest, mocha). */
  titles?: boolean;
  /** The one-liner, from the (ANSI-free, non-blank) lines; null when the counts make no sense. */
  render(lines: readonly string[]): string | null;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** `[tests: 5 passed]`, `[tests: 5 passed, 2 skipped]`, plus any other non-zero count (xfailed…). */
function testsLine(passed: number, others: ReadonlyArray<readonly [string, number]> = []): string | null {
  if (!(passed > 0)) return null;
  const extra = others
    .filter(([, n]) => n > 0)
    .map(([label, n]) => `, ${n} ${label}`)
    .join('');
  return `[tests: ${passed} passed${extra}]`;
}

/** Sums `N label` pairs over the lines matched by `line`. */
function sumCounts(lines: readonly string[], line: RegExp): Map<string, number> {
  const counts = new Map<string, number>();
  for (const l of lines) {
    if (!line.test(l)) continue;
    for (const m of l.matchAll(COUNT_PAIR)) {
      const label = (m[2] ?? '').toLowerCase();
      counts.set(label, (counts.get(label) ?? 0) + Number(m[1]));
    }
  }
  return counts;
}
const COUNT_PAIR = /(\d+) (passed|skipped|ignored|deselected|xfailed|xpassed|todo|pending)\b/gi;

const PYTEST_SUMMARY =
  /^=*\s*(?:\d+ (?:passed|skipped|deselected|xfailed|xpassed)(?:, )?)+ in [\d.]+\s?s(?:econds)?(?: \([\d:.]+\))?\s*=*$/;
const CARGO_SUMMARY =
  /^test result: ok\. \d+ passed; 0 failed; \d+ ignored; \d+ measured; \d+ filtered out(?:; finished in [\d.]+s)?$/;
const JEST_SUMMARY = /^Tests:\s+(?:\d+ (?:skipped|todo|passed), )*\d+ total$/;
const VITEST_SUMMARY = /^\s*Tests\s+(?:\d+ (?:passed|skipped|todo)(?: \| )?)+ \(\d+\)$/;
const MOCHA_SUMMARY = /^\s*\d+ passing \([\d.]+\s*m?s\)$/;

const SHAPES: readonly LineShape[] = [
  {
    name: 'pytest',
    vocabulary: [
      /^=+ test session starts =+$/,
      /^platform \S+ -- Python /,
      /^(?:rootdir|configfile|inifile|testpaths|plugins|cachedir|hypothesis profile|asyncio|timeout):/,
      /^collect(?:ing|ed) .*\d+ items?(?: \/ \d+ (?:de)?selected)*\s*$/,
      /^\S+\.py [.sxX]+\s*(?:\[\s*\d+%\])?$/,
      /^[.sxX]+\s*(?:\[\s*\d+%\])?$/,
      // The path before the first `::` has no colon: `\S+::\S+` was quadratic on a line of colons (issue 19).
      /^[^\s:]+::\S+ (?:PASSED|SKIPPED(?: \([^)]*\))?|XFAIL|XPASS)(?:\s+\[\s*\d+%\])?$/,
      /^=+ short test summary info =+$/,
      /^SKIPPED \[\d+\] .*$/,
    ],
    required: [PYTEST_SUMMARY],
    render: (lines) => {
      const c = sumCounts(lines, PYTEST_SUMMARY);
      return testsLine(c.get('passed') ?? 0, [
        ['skipped', c.get('skipped') ?? 0],
        ['xfailed', c.get('xfailed') ?? 0],
        ['xpassed', c.get('xpassed') ?? 0],
        ['deselected', c.get('deselected') ?? 0],
      ]);
    },
  },
  {
    name: 'unittest',
    vocabulary: [/^[.sx]+$/, /^-{20,}$/],
    required: [
      /^Ran \d+ tests? in [\d.]+s$/,
      /^OK(?: \((?:skipped|expected failures)=\d+(?:, (?:skipped|expected failures)=\d+)?\))?$/,
    ],
    render: (lines) => {
      const ran = Number(lines.find((l) => l.startsWith('Ran '))?.match(/\d+/)?.[0] ?? 0);
      const ok = lines.find((l) => l.startsWith('OK')) ?? '';
      const skippedCount = Number(ok.match(/skipped=(\d+)/)?.[1] ?? 0);
      const xfail = Number(ok.match(/expected failures=(\d+)/)?.[1] ?? 0);
      return testsLine(ran - skippedCount - xfail, [
        ['skipped', skippedCount],
        ['expected failures', xfail],
      ]);
    },
  },
  {
    name: 'cargo',
    vocabulary: [
      /^\s*(?:Compiling|Finished|Running|Doc-tests|Fresh|Checking|Downloaded|Downloading|Blocking|Updating|Locking|Adding)\b.*$/,
      /^running \d+ tests?$/,
      /^test \S.* \.\.\. (?:ok|ignored(?:, .*)?)$/,
    ],
    required: [CARGO_SUMMARY],
    render: (lines) => {
      const c = sumCounts(lines, CARGO_SUMMARY);
      return testsLine(c.get('passed') ?? 0, [['skipped', c.get('ignored') ?? 0]]);
    },
  },
  {
    name: 'go',
    vocabulary: [
      /^=== (?:RUN|PAUSE|CONT|NAME)\s+\S+$/,
      /^\s*--- (?:PASS|SKIP): \S+ \([\d.]+s\)$/,
      /^PASS$/,
      /^\?\s+\S+\s+\[no test files\]$/,
    ],
    required: [/^ok\s+\S+\s+(?:[\d.]+s|\(cached\))(?:\s+coverage: [\d.]+% of statements.*)?$/],
    render: (lines) => {
      const passed = lines.filter((l) => /^\s*--- PASS: /.test(l)).length;
      const skips = lines.filter((l) => /^\s*--- SKIP: /.test(l)).length;
      if (passed > 0) return testsLine(passed, [['skipped', skips]]);
      // Without -v, go test prints no counts: say what is known, per package.
      const packages = lines.filter((l) => /^ok\s/.test(l)).length;
      return `[tests: ${plural(packages, 'package')} passed]`;
    },
  },
  {
    name: 'jest',
    vocabulary: [
      SCRIPT_HEADER,
      /^\s*PASS\s+\S.*$/,
      TICK,
      /^\s*○\s(?:skipped|todo)\s.*$/,
      /^Test Suites:\s+(?:\d+ (?:skipped|passed), )*\d+ total$/,
      /^Snapshots:\s+(?:\d+ (?:passed|written), )*\d+ total$/,
      /^Time:\s+[\d.]+\s*m?s(?:, estimated [\d.]+\s*m?s)?$/,
      /^Ran all test suites.*$/,
    ],
    required: [JEST_SUMMARY],
    titles: true,
    render: (lines) => {
      const c = sumCounts(lines, JEST_SUMMARY);
      return testsLine(c.get('passed') ?? 0, [
        ['skipped', c.get('skipped') ?? 0],
        ['todo', c.get('todo') ?? 0],
      ]);
    },
  },
  {
    name: 'vitest',
    vocabulary: [
      SCRIPT_HEADER,
      /^\s*RUN\s+v[\d.]+.*$/,
      TICK,
      /^\s*↓\s.*$/,
      /^\s*Test Files\s+(?:\d+ (?:passed|skipped)(?: \| )?)+ \(\d+\)$/,
      /^\s*Start at\s+\S+$/,
      /^\s*Duration\s+[\d.]+\s*m?s(?: \(.*\))?$/,
    ],
    required: [VITEST_SUMMARY],
    render: (lines) => {
      const c = sumCounts(lines, VITEST_SUMMARY);
      return testsLine(c.get('passed') ?? 0, [
        ['skipped', c.get('skipped') ?? 0],
        ['todo', c.get('todo') ?? 0],
      ]);
    },
  },
  {
    name: 'mocha',
    vocabulary: [SCRIPT_HEADER, TICK, /^\s*-\s.*$/, /^\s*\d+ pending$/, /^\s*[․.]+$/],
    required: [MOCHA_SUMMARY],
    titles: true,
    render: (lines) => {
      const passed = Number(lines.find((l) => MOCHA_SUMMARY.test(l))?.match(/\d+/)?.[0] ?? 0);
      const pending = Number(lines.find((l) => /^\s*\d+ pending$/.test(l))?.match(/\d+/)?.[0] ?? 0);
      return testsLine(passed, [['skipped', pending]]);
    },
  },
  {
    name: 'counts',
    vocabulary: [],
    required: [/^\s*\d+ (?:tests? )?passed,\s*0 failed(?:,\s*\d+ skipped)?\.?\s*$/],
    render: (lines) => {
      const c = sumCounts(lines, /passed/);
      return testsLine(c.get('passed') ?? 0, [['skipped', c.get('skipped') ?? 0]]);
    },
  },
  {
    name: 'git-status-clean',
    vocabulary: [/^On branch \S+$/, /^HEAD detached (?:at|from) \S+$/, /^Your branch is up to date with '[^']+'\.$/],
    required: [/^nothing to commit,? \(?working (?:tree|directory) clean\)?$/],
    render: (lines) => {
      // The branch is a fact the agent may need; the original dropped it.
      const branch = lines.map((l) => l.match(/^On branch (\S+)$/)?.[1]).find((b) => b !== undefined);
      const upstream = lines
        .map((l) => l.match(/^Your branch is up to date with '([^']+)'\.$/)?.[1])
        .find((u) => u !== undefined);
      if (branch === undefined) return '[ok: clean]';
      return `[ok: clean, on branch ${branch}${upstream === undefined ? '' : `, up to date with ${upstream}`}]`;
    },
  },
  {
    name: 'git-up-to-date',
    vocabulary: [/^From \S+$/, /^\s*\* branch\s+\S+\s+-> FETCH_HEAD$/],
    required: [/^(?:Already up[ -]to[ -]date|Everything up-to-date)\.?$/],
    render: () => UP_TO_DATE,
  },
  {
    name: 'pip',
    vocabulary: [/^\[notice\] .*$/],
    required: [/^Requirement already satisfied: \S.*$/],
    render: () => UP_TO_DATE,
  },
  {
    name: 'npm',
    vocabulary: [
      /^\d+ packages? (?:are|is) looking for funding$/,
      /^\s+run `npm fund` for details$/,
      /^found 0 vulnerabilities$/,
    ],
    required: [/^up to date(?:, audited \d+ packages?)? in [\d.]+\s*m?s$/],
    render: () => UP_TO_DATE,
  },
  {
    name: 'apt',
    vocabulary: [
      /^(?:Reading package lists|Building dependency tree|Reading state information)\.\.\.(?: Done)?$/,
      /^\S+ set to manually installed\.$/,
      /^0 upgraded, 0 newly installed, 0 to remove and \d+ not upgraded\.$/,
    ],
    required: [/^\S+ is already the newest version \(.*\)\.$/],
    render: () => UP_TO_DATE,
  },
  {
    name: 'already-installed',
    vocabulary: [],
    required: [/^(?:[Pp]ackage )?'?[\w.@/-]+'?(?: [\w.-]+)? is already installed\.?$/],
    render: () => UP_TO_DATE,
  },
];

/** A describe/suite title: indented, and the next non-blank line is indented deeper. */
function isTitle(lines: readonly string[], i: number): boolean {
  const indent = (LEADING_SPACE.exec(lines[i] ?? '')?.[0] ?? '').length;
  const next = lines[i + 1];
  if (indent === 0 || next === undefined) return false;
  return (LEADING_SPACE.exec(next)?.[0] ?? '').length > indent;
}

/** The first two non-blank lines, cleaned (what `matchShape` reads first); none for an output of blank lines. */
function firstLines(lines: readonly string[], clean: (line: string) => string): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length && out.length < 2; i++) {
    const line = clean(lines[i] ?? '');
    if (line !== '') out.push(line);
  }
  return out;
}

/** False when `matchShape` surely fails at the first line of `head` (a shape with no lines at all may still match). */
function opensShape(shape: LineShape, head: readonly string[]): boolean {
  const first = head[0];
  if (first === undefined) return true;
  return (
    shape.required.some((re) => re.test(first)) ||
    shape.vocabulary.some((re) => re.test(first)) ||
    (shape.titles === true && isTitle(head, 0))
  );
}

function matchShape(shape: LineShape, lines: readonly string[]): string | null {
  const seen = shape.required.map(() => false);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    let known = false;
    shape.required.forEach((re, k) => {
      if (re.test(line)) {
        seen[k] = true;
        known = true;
      }
    });
    if (known || shape.vocabulary.some((re) => re.test(line))) continue;
    if (shape.titles === true && isTitle(lines, i)) continue;
    return null;
  }
  return seen.every(Boolean) ? shape.render(lines) : null;
}

/** JSON success objects are tiny; anything larger carries data, and parsing it would only cost time. */
const MAX_JSON_CHARS = 4096;
const ACK_WORD =
  /^(?:ok|okay|done|success(?:ful(?:ly)?)?|succeeded|completed?|saved|updated|created|applied|finished|written|deleted|removed)[.!]?$/i;
const ERROR_KEY = /err|fail|warn|problem|stderr/i;

/** Null, false, 0, '', [], {} or an object of such: "nothing to report". */
function isEmptyValue(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.values(v as Record<string, unknown>).every(isEmptyValue);
  return false;
}

/** A lint report with nothing in it (descriptive fields such as the linter's name aside). */
function isCleanLint(v: unknown): boolean {
  if (isEmptyValue(v)) return true;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  return Object.entries(v as Record<string, unknown>).every(([k, x]) => {
    if (/^(?:status|result)$/i.test(k))
      return typeof x === 'string' && /^(?:ok|clean|passed|success|skipped)$/i.test(x);
    if (/^(?:linter|tool|language|name)$/i.test(k)) return typeof x === 'string';
    return isEmptyValue(x);
  });
}

/** True when a field of an acknowledgement object adds nothing beyond "it worked". */
function isAckField(key: string, value: unknown): boolean {
  if (ERROR_KEY.test(key)) return isEmptyValue(value);
  if (/^(?:success|ok)$/i.test(key)) return value === true;
  if (/^(?:message|msg|detail|details|result)$/i.test(key))
    return typeof value === 'string' && ACK_WORD.test(value.trim());
  return false;
}

function matchJson(text: string): string | null {
  const obj = parseJsonObjectText(text, MAX_JSON_CHARS);
  if (obj === null) return null;
  const fields = Object.entries(obj);
  if (typeof obj.status === 'string' && /^ok$/i.test(obj.status)) {
    return fields.every(([k, v]) => k === 'status' || isAckField(k, v)) ? '[ok]' : null;
  }
  const written = obj.bytes_written;
  if (typeof written === 'number' && Number.isInteger(written) && written >= 0) {
    const ok = fields.every(([k, v]) => {
      if (k === 'bytes_written') return true;
      if (k === 'lint') return isCleanLint(v); // lint errors and warnings are facts (DESIGN §5)
      if (/^(?:dirs_created|created)$/.test(k)) return typeof v === 'boolean';
      if (/^(?:path|file_path)$/.test(k)) return typeof v === 'string';
      return isAckField(k, v);
    });
    return ok ? '[file written]' : null;
  }
  return null;
}

/** Collapses an output that is wholly a known success to one line; see the header for the rule. */
export function shortCircuit(output: ToolOutput, cfg: HmcConfig['short_circuits']): StrategyResult {
  if (!cfg.enabled) return skipped('short circuits disabled');
  if (output.isError) return skipped('the call failed');
  if (output.kind === 'file' || output.kind === 'search')
    return skipped(`a ${output.kind} output is what the agent asked to see`);
  const text = output.text;
  if (BLANK.test(text)) return skipped('empty output');

  // The shapes first: most outputs fail them at their first lines, and only an output that fits
  // one needs the whole-text failure scan (which then refuses it just the same).
  let replacement = matchJson(text);
  if (replacement === null) {
    const ansi = text.includes('\x1b');
    const clean = (l: string): string => (ansi ? l.replace(ANSI, '') : l).trimEnd();
    // A shape fails at its first line it does not know, and most outputs open with a line no
    // shape knows: the first two lines decide that, before all lines are cleaned.
    const head = firstLines(output.lines, clean);
    if (SHAPES.some((shape) => opensShape(shape, head))) {
      const lines = output.lines.map(clean).filter((l) => l !== '');
      for (const shape of SHAPES) {
        replacement = matchShape(shape, lines);
        if (replacement !== null) break;
      }
    }
  }
  if (replacement === null) return skipped('no known success shape covers the whole output');
  if (reportsFailure(text)) return skipped('the output reports a failure');
  if (replacement.length >= text.length) return skipped('the one-liner is not shorter');
  return replacedBy(replacement);
}
