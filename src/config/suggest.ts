/**
 * "Did you mean": the known key an unknown one most likely stands for (issue 27, finding 2: a typo
 * like `enabeld` said only "unknown key, ignored"). A sibling within a small edit distance
 * (letters swapped, one missing, one extra, one wrong; case ignored), else the one key anywhere in
 * the table whose last part is the same name (`max_lines` written at the top instead of under
 * `truncation`).
 *
 * Invariant: pure; a suggestion is a key of the table, never a guess farther than the distance
 * allows; ties give no suggestion rather than the wrong one.
 */

/** Optimal string alignment distance (Levenshtein plus swapping two neighbours), case-folded. */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  const d: number[][] = Array.from({ length: s.length + 1 }, (_, i) =>
    Array.from({ length: t.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const row = d[i] as number[];
      const up = d[i - 1] as number[];
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      row[j] = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1])
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (d[s.length] as number[])[t.length] as number;
}

/** How far a name may be from a key and still be taken for it: 1 for short names, 2 from 6 letters. */
function allowed(name: string): number {
  return name.length >= 6 ? 2 : 1;
}

/**
 * The key `unknown` (a dotted path the table does not know) most likely meant, among `known`
 * (every path and path prefix of the table), or null.
 */
export function suggestKey(unknown: string, known: Iterable<string>): string | null {
  const parts = unknown.split('.');
  const leaf = parts[parts.length - 1] ?? '';
  const parent = parts.slice(0, -1).join('.');
  const all = [...known];
  const siblings = all.filter((k) =>
    parent ? k.startsWith(`${parent}.`) && !k.slice(parent.length + 1).includes('.') : !k.includes('.'),
  );
  let best: string | null = null;
  let bestDistance = Infinity;
  let tie = false;
  for (const key of siblings) {
    const distance = editDistance(leaf, key.slice(parent ? parent.length + 1 : 0));
    if (distance < bestDistance) [best, bestDistance, tie] = [key, distance, false];
    else if (distance === bestDistance) tie = true;
  }
  if (best !== null && !tie && bestDistance <= allowed(leaf)) return best;
  // The right name in the wrong place: one key elsewhere ends with it.
  const elsewhere = all.filter((k) => k !== unknown && k.split('.').at(-1)?.toLowerCase() === leaf.toLowerCase());
  return elsewhere.length === 1 ? (elsewhere[0] as string) : null;
}
