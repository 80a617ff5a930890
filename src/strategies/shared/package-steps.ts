/**
 * Package managers' progress lines: the fetch, resolution, link and build steps npm, yarn, pnpm,
 * pip, composer, apt, cargo, go, maven, gradle, dotnet and bundler print once per package, often
 * hundreds of times per install. Two things follow from knowing one (issue 15):
 * - the names in it are names, not reports: `npm http fetch GET 200 …/es-errors`, `Collecting
 *   Deprecated>=1.2`, `Unpacking liberror-perl` report no failure and no warning, so the words of
 *   a failure or a warning are looked for outside them (and outside yarn's fixed wording for a
 *   fetch or a build, "can't be found in the cache", "… or the last one failed");
 * - lines of one step are one kind, whatever their names and codes: a run of them collapses.
 *
 * Invariant: only name-shaped tokens and the fixed wordings go; a plain word that reports
 * something (`failed`, `exit code 1`, `error`) stays wherever it is, so a step line that really
 * reports a failure still does. Pure.
 */

/** One step template: the line's start, and the kind its lines make together. */
interface Step {
  kind: string;
  start: RegExp;
}

const STEPS: readonly Step[] = [
  { kind: 'npm fetch', start: /^npm (?:http fetch|timing) / },
  { kind: 'yarn step', start: /^➤ YN0(?:013|007|008|019|032): / },
  {
    kind: 'yarn verbose',
    start: /^verbose \d+(?:\.\d+)? (?:Performing "|Request "|Copying "|Creating directory "|Removing extraneous)/,
  },
  { kind: 'pnpm progress', start: /^Progress: resolved \d+, reused \d+, downloaded \d+, added \d+/ },
  { kind: 'pip fetch', start: /^\s*(?:Requirement already satisfied: |Obtaining |Saved )/ },
  { kind: 'pip wheel', start: /^\s*(?:Building wheel for |Created wheel for |Stored in directory: )/ },
  {
    kind: 'pip uninstall',
    start: /^\s*(?:Attempting uninstall: |Found existing installation: |Uninstalling |Successfully uninstalled )/,
  },
  { kind: 'composer', start: /^\s+- (?:Downloading|Installing|Updating|Upgrading|Removing|Locking|Syncing) \S+ \(/ },
  { kind: 'go', start: /^go: (?:downloading|finding|extracting) \S+ v\d/ },
  { kind: 'maven download', start: /^\[INFO\] Download(?:ing|ed) from [\w.-]+: / },
  { kind: 'maven module', start: /^\[INFO\] \S.*? \.{2,} (?:SUCCESS|SKIPPED) \[/ },
  { kind: 'gradle download', start: /^Download https?:\/\// },
  { kind: 'dotnet built', start: /^\s+\S+ -> \S+\.(?:dll|exe|nupkg|wasm)$/ },
  {
    kind: 'bundler',
    start: /^(?:Fetching|Installing|Using) [\w.-]+ \d[\w.]*(?: \(was [^)]*\))?(?: with native extensions)?$/,
  },
  { kind: 'lerna', start: /^lerna (?:success|info) - \S+$/ },
];

/** Steps whose names are names but whose lines the build-verb rule of repetition.ts already groups. */
const NAMED_STEPS: readonly RegExp[] = [
  // pip
  /^\s*(?:Collecting|Downloading|Using cached) /,
  // apt, dpkg
  /^(?:Get|Hit|Ign):\d+ |^(?:Unpacking|Setting up|Preparing to unpack|Selecting previously unselected package) /,
  // cargo
  /^\s+(?:Compiling|Downloaded|Downloading|Checking|Fresh|Locking|Adding|Updating|Installing|Installed|Documenting) [\w-]+ v\d/,
];

/** Any step start at all: one cheap test before the exact ones. */
const ANY_STEP = new RegExp([...STEPS.map((s) => s.start), ...NAMED_STEPS].map((re) => `(?:${re.source})`).join('|'));

/** yarn's fixed wordings for a fetch and a build, which name no failure of their own. */
const FIXED_WORDING =
  / can't be found in the cache and will be fetched from the remote registry| must be built because it never has been before or the last one failed| must be rebuilt because its dependency tree changed/g;

/**
 * Name-shaped tokens: URLs, paths, `name@version`, version specs (`x>=1.2`), names joined by `-`
 * `_` or `.` (`es-errors`, `error_chain`, `Contoso.Errors`), and the first token after a step's
 * verb (a bare name such as `warning` or `Deprecated`).
 */
const NAME_TOKENS =
  /\b\w+:\/\/\S+|[^\s"']*\/[^\s"']*|[^\s"']*@[^\s"']*|[\w.-]+(?:[<>=!~]=?|===?)[^\s,)]*|\b(?!non-zero\b)[A-Za-z]\w*(?:[-_.]\w+)+/g;
const STEP_NAME =
  /^(\s*(?:-\s+)?(?:npm http fetch GET \d+|Collecting|Downloading|Using cached|Requirement already satisfied:|Obtaining|Unpacking|Setting up|Preparing to unpack|Selecting previously unselected package|Compiling|Downloaded|Checking|Fresh|Locking|Adding|Updating|Installing|Installed|Documenting|Fetching|Using|Uninstalling|Successfully uninstalled|Found existing installation:|Attempting uninstall:|Building wheel for|Created wheel for)\s+)\S+/;

/** The kind of package-manager step this line is (null: none). */
export function packageStep(line: string): string | null {
  if (!ANY_STEP.test(line)) return null;
  for (const step of STEPS) if (step.start.test(line)) return step.kind;
  return null;
}

/** True when the line is a package manager's progress line of any step. */
export function isPackageStep(line: string): boolean {
  return ANY_STEP.test(line);
}

/** The line with its package names and yarn's fixed wordings blanked, when it is a step line (else the line itself). */
export function withoutPackageNames(line: string): string {
  if (!ANY_STEP.test(line)) return line;
  return line.replace(FIXED_WORDING, ' ').replace(STEP_NAME, '$1 ').replace(NAME_TOKENS, ' ');
}
