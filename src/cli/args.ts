/**
 * The command line's one convention (docs/cli.md), in one place: `--help` / `-h` on every command
 * prints its usage on stdout and exits 0; a usage error (an unknown option, a bad value, a missing
 * argument, a named file or session that cannot be used) is one line naming what is wrong, then
 * the usage, on stderr, exit 2; a command that ran and found a problem exits 1.
 *
 * Invariant: a command signals a usage error by throwing UsageError (or by node:util parseArgs'
 * own ERR_PARSE_ARGS_* errors); main.ts turns both into the same stderr lines and exit code 2.
 */
import { statSync } from 'node:fs';
import { basename, isAbsolute, relative } from 'node:path';
import { errorText } from '../core/errors.js';

export const EXIT_OK = 0;
export const EXIT_PROBLEM = 1;
export const EXIT_USAGE = 2;

/** Something wrong with what the command line asked for: the message names it. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** True when `--help` or `-h` comes before a `--`. */
export function wantsHelp(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    if (a === '--help' || a === '-h') return true;
  }
  return false;
}

/** node:util parseArgs' errors (unknown option, missing value…) as one short sentence, or null. */
export function parseArgsProblem(err: unknown): string | null {
  const code = typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : '';
  if (!code.startsWith('ERR_PARSE_ARGS')) return null;
  const text = errorText(err);
  // Node adds advice on positionals starting with '-'; the first sentence says what is wrong.
  return (text.split(/(?<=\.) /)[0] ?? text).replace(/\.$/, '').replace(/^Unknown option/, 'unknown option');
}

/**
 * A file named on the command line that the command will read: a usage error naming the file and
 * what is wrong with it (missing, a directory, unreadable) instead of a bare ENOENT or EISDIR.
 */
export function readableFile(path: string, what = 'file'): string {
  let isFile = false;
  try {
    const st = statSync(path);
    if (st.isDirectory()) throw new UsageError(`${path} is a directory, not a ${what}`);
    isFile = st.isFile();
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === 'ENOENT' ? `${path}: no such ${what}` : `cannot read ${path}: ${(err as Error).message}`,
    );
  }
  if (!isFile) throw new UsageError(`${path} is not a regular file`);
  return path;
}

/**
 * How the user runs this command line, for hints that name another command (`… dashboard stop`):
 * `hmc` is not put on PATH by an install (issue 17, finding 5), so a hint must say what works.
 * `HMC_INVOKED_AS` when the caller sets it (the Hermes bridge: `hermes hmc`); `hmc` when run as a
 * bin of that name (an npm link); else `node <the script>` (relative when under the working dir).
 */
export function invokedAs(
  env: NodeJS.ProcessEnv = process.env,
  argv: readonly string[] = process.argv,
  cwd = process.cwd(),
): string {
  const said = env.HMC_INVOKED_AS?.trim();
  if (said) return said;
  const script = argv[1] ?? '';
  if (basename(script) === 'hmc') return 'hmc';
  const rel = relative(cwd, script);
  return `node ${rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : script}`;
}

/** An explicit `--config` must exist (without the flag, a missing config.yaml means the defaults). */
export function explicitConfig(path: string | undefined): string | undefined {
  return path === undefined ? undefined : readableFile(path, 'config file');
}
