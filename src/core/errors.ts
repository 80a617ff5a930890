/**
 * Errors as every layer reports them: the one-sentence text of anything thrown, and its code.
 * (The host contract's own error, `ResyncError`, is declared with the contract in host-api.ts.)
 *
 * Invariant: nothing here throws, whatever is thrown at it (a string, null, an object).
 */

/** The message of a thrown value: an Error's message, else the value as text. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The first line of `errorText` (for one-line reports: doctor checks, config issues). */
export function errorLine(err: unknown): string {
  return errorText(err).split('\n')[0] ?? '';
}

/** The code a thrown value carries (SQLite's `SQLITE_BUSY`, Node's `ENOENT`), if any. */
export function errorCode(err: unknown): string | undefined {
  if (err && typeof err === 'object' && 'code' in err && typeof err.code === 'string') return err.code;
  return undefined;
}
