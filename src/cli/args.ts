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
    throw new UsageError(code === 'ENOENT' ? `${path}: no such ${what}` : `cannot read ${path}: ${(err as Error).message}`);
  }
  if (!isFile) throw new UsageError(`${path} is not a regular file`);
  return path;
}

/** An explicit `--config` must exist (without the flag, a missing config.yaml means the defaults). */
export function explicitConfig(path: string | undefined): string | undefined {
  return path === undefined ? undefined : readableFile(path, 'config file');
}
