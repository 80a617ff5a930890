/**
 * The config's problems in one line, for where the user looks: `/hmc status` and the notice
 * Hermes shows once per session (issue 27, finding 2: clear messages existed only in
 * `sidecar.log`, `/hmc config` and `hmc doctor`).
 *
 * Invariant: pure; null when there is nothing to say; the first problem is given whole (it names
 * its key, its line and any "did you mean"), the rest are counted and left to `/hmc config`.
 */
import type { ConfigIssue } from './keys.js';

export function problemsLine(issues: readonly ConfigIssue[], file: string | null): string | null {
  const first = issues[0];
  if (!first) return null;
  const n = issues.length;
  const where = file ? ` in ${file}` : '';
  const more = n > 1 ? ' (/hmc config lists all)' : '';
  return `config: ${n} problem${n === 1 ? '' : 's'}${where}: ${first.message}${more}`;
}
