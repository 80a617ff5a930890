/**
 * Reads a shell command line just far enough to say what its output is: a search listing
 * (grep, rg, find, ls, git grep…, also after `cd x &&` and through `| head`), or a document
 * (curl of a page, a man page, `--help`, `cat README.md`). Commands come as agents record them:
 * a string, Codex's argv array, or wrapped in `bash -lc '…'`.
 *
 * Invariant: a guess only where the command says so; anything unclear answers false, and the
 * output stays a log.
 */

/** The command of a tool call's arguments (`command`, `cmd`; a string or an argv array), or ''. */
export function commandOf(args: Readonly<Record<string, unknown>>): string {
  for (const key of ['command', 'cmd']) {
    const value = args[key];
    if (typeof value === 'string') return unwrapShell(value);
    if (Array.isArray(value) && value.every((v) => typeof v === 'string'))
      return unwrapShell(argvToLine(value as string[]));
  }
  return '';
}

/** `["bash", "-lc", "rg -n x"]` → `bash -lc 'rg -n x'` (quoted so unwrapShell reads it back). */
function argvToLine(argv: readonly string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

const SHELL_WRAPPER = /^\s*(?:\/\S*\/)?(?:ba|z|da)?sh\s+(?:-\w+\s+)*-\w*c\s+(['"])([\s\S]*)\1\s*$/;

/** `bash -lc 'grep x'` → `grep x`; anything else unchanged. */
function unwrapShell(command: string): string {
  const m = SHELL_WRAPPER.exec(command);
  if (!m) return command;
  const body = m[2] ?? '';
  return m[1] === "'" ? body.replace(/'\\''/g, "'") : body.replace(/\\"/g, '"');
}

/** Commands whose whole output is a listing of hits or paths. */
const SEARCH_COMMANDS =
  /^(?:grep|egrep|fgrep|rg|ag|ack|ack-grep|find|fd|fdfind|ls|tree|locate|git\s+(?:grep|ls-files|ls-tree)|xargs\s+(?:-\S+\s+)*(?:grep|rg))$/;
/** Pipeline stages that keep a listing a listing. */
const LISTING_FILTERS = /^(?:head|tail|sort|uniq|cut|grep|egrep|rg|awk|sed|column|less|more|cat|tr)$/;
/** Prefixes that do not change what a command prints. */
const PREFIX =
  /^(?:(?:sudo|time|nice|command|env|nohup)\s+(?:-\S+\s+)*|timeout\s+\S+\s+|[A-Za-z_][A-Za-z0-9_]*=\S*\s+)+/;

/** The simple commands of the last `&&` / `;` / `||` step, as pipeline stages. */
function lastStepStages(command: string): string[] {
  const steps = command
    .split(/&&|\|\||;|\n/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const last = steps[steps.length - 1] ?? '';
  return last.split(/(?<!\|)\|(?!\|)/).map((s) =>
    s
      .trim()
      .replace(PREFIX, '')
      .replace(/\s+2>&1\s*$/, ''),
  );
}

/** The program of a stage, `git grep` kept together, and xargs with its program. */
function programOf(stage: string): string {
  const words = stage.split(/\s+/);
  const first = (words[0] ?? '').replace(/^.*\//, '');
  if (first === 'git') return `git ${words.find((w, i) => i > 0 && !w.startsWith('-')) ?? ''}`;
  if (first === 'xargs') return `xargs ${words.slice(1).find((w) => !w.startsWith('-')) ?? ''}`;
  return first;
}

/** True when the command's output is a search listing: its last step is a search, filtered at most, or ends in a grep. */
export function isSearchCommand(command: string): boolean {
  if (command === '') return false;
  const stages = lastStepStages(command);
  const [first, ...rest] = stages;
  if (first === undefined) return false;
  // `strings x | grep flag`, `pytest | grep FAIL`: whatever came before, the output is the matching lines.
  const last = stages[stages.length - 1] ?? '';
  if (
    stages.length > 1 &&
    /^(?:grep|egrep|fgrep|rg)$/.test(programOf(last)) &&
    !/\s-\w*[vcqL]\w*\b|\s--(?:invert-match|count|quiet)\b/.test(last)
  )
    return true;
  if (!SEARCH_COMMANDS.test(programOf(first))) return false;
  // `ls` alone or `find` with -exec/-delete prints something else too; keep to plain listings.
  if (/\s-(?:exec|execdir|delete|ok)\b/.test(first)) return false;
  return rest.every((stage) => LISTING_FILTERS.test(programOf(stage)));
}

/** Commands that print a document: a fetched page, a manual, help text, a prose file. */
const DOC_FETCH = /^(?:curl|wget|http|https|httpie|xh|lynx|w3m|links|elinks|man|info|pydoc\d?|tldr)$/;
// Not `.txt`: a plain-text file may hold prose or a log, so its lines decide (documents.ts, log-text.ts).
const DOC_FILE =
  /\.(?:md|markdown|mdx|rst|adoc|asciidoc|html?|org|tex|json|ya?ml|toml|csv|tsv|xml|ini|cfg|conf)\b|(?:^|\/)(?:README|LICENSE|CHANGELOG|CONTRIBUTING|NOTICE|AUTHORS|COPYING)(?:\.\w+)?\b/i;

/** True when the command's output is a document the agent reads (never cut below a generous size). */
export function isDocumentCommand(command: string): boolean {
  if (command === '') return false;
  const stages = lastStepStages(command);
  const first = stages[0] ?? '';
  const program = programOf(first);
  if (DOC_FETCH.test(program)) return !/\s-(?:o|O)\s|\s--output\b/.test(first);
  if (/(?:^|\s)(?:--help|-h|help)\s*$/.test(first) || /\bkubectl\s+explain\b/.test(first)) return true;
  if (/^(?:cat|bat|less|more|head|tail|sed|jq|yq)$/.test(program) && DOC_FILE.test(first)) return true;
  // A page fetched from a one-liner script: python -c "…requests.get(…)…", node -e "fetch(…)".
  return /\b(?:requests\.get|urlopen|fetch)\(\s*['"]https?:/.test(first);
}

/** Programs whose next word says what they do: `git status`, `npm test`, `cargo build` are kept together. */
const WITH_SUBCOMMAND = new Set([
  'git',
  'npm',
  'pnpm',
  'yarn',
  'bun',
  'npx',
  'cargo',
  'go',
  'docker',
  'kubectl',
  'uv',
  'poetry',
  'pip',
  'pip3',
  'dotnet',
  'gradle',
  'mvn',
  'bazel',
  'helm',
  'terraform',
  'gh',
  'deno',
  'conda',
  'brew',
  'apt',
  'apt-get',
  'rustup',
  'mix',
  'bundle',
  'rails',
]);

/**
 * The program a shell command runs, for grouping outputs by command (issue 17, finding 7: "average
 * saved per command kind"): the first word of its last step, a path cut to its name, with the
 * sub-command of tools like git and npm (`git status`, `npm run test`), `python -m pytest` as
 * `pytest`, `bash -lc '…'` unwrapped. '' when the command is empty.
 */
export function commandProgram(command: string): string {
  const stage = lastStepStages(command)[0] ?? '';
  const words = stage.split(/\s+/).filter((w) => w !== '');
  const first = (words[0] ?? '').replace(/^.*\//, '').replace(/^["']|["']$/g, '');
  if (first === '') return '';
  // Options that take a value (`git -C dir`, `git -c key=value`) are not the sub-command.
  const rest = words
    .slice(1)
    .filter((w, i, all) => !w.startsWith('-') && !(first === 'git' && /^-[Cc]$/.test(all[i - 1] ?? '')));
  let program = first;
  if (/^python[\d.]*$/.test(first) && words[1] === '-m' && words[2]) program = words[2];
  else if (WITH_SUBCOMMAND.has(first) && rest[0])
    program =
      ['run', 'exec', 'x'].includes(rest[0]) && rest[1] ? `${first} ${rest[0]} ${rest[1]}` : `${first} ${rest[0]}`;
  return program.slice(0, 60);
}
