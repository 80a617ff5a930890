/**
 * Which lines of an over-long search listing to keep. Every hit of a listing is a fact the agent
 * asked for, so truncation keeps a listing whole up to `keep_whole_chars`; only a longer one
 * comes here. It is never cut like a log (head and tail, losing the middle): the first hit of
 * every file (or every directory, for a list of paths) comes first, then further hits in order,
 * until the budget is spent; lines reporting a failure (`grep: x: Permission denied`) and the
 * first and last lines are always kept.
 *
 * Invariant: returns strictly increasing indices in [0, count).
 */
import { failureTokens } from './signals.js';

/** `path:12:` / `path:12-` (grep, rg), `path:3` (grep -c): the file; a bare path: its directory. */
function groupOf(line: string): string {
  const hit = /^(.+?):\d+(?:[:-]|$)/.exec(line);
  if (hit) return hit[1] ?? '';
  const path = line.trim();
  const slash = path.lastIndexOf('/');
  return slash > 0 ? path.slice(0, slash) : path;
}

export function sampleListing(lines: readonly string[], count: number, budgetChars: number): number[] {
  const keep = new Set<number>();
  let used = 0;
  const take = (i: number): boolean => {
    if (keep.has(i)) return true;
    const cost = (lines[i] ?? '').length + 1;
    if (used + cost > budgetChars) return false;
    keep.add(i);
    used += cost;
    return true;
  };
  const covered = new Set<string>();
  for (let i = 0; i < count; i++) {
    const tokens = failureTokens(lines[i] ?? '');
    if (tokens.some((t) => !covered.has(t))) {
      keep.add(i);
      used += (lines[i] ?? '').length + 1;
      for (const t of tokens) covered.add(t);
    }
  }
  keep.add(0);
  if (count > 1) keep.add(count - 1);
  const seen = new Set<string>();
  for (let i = 0; i < count && used < budgetChars; i++) {
    const group = groupOf(lines[i] ?? '');
    if (seen.has(group)) continue;
    seen.add(group);
    take(i);
  }
  for (let i = 0; i < count && used < budgetChars; i++) take(i);
  return [...keep].sort((a, b) => a - b);
}
