/**
 * A line diff between a tool output as returned and as the model saw it, for the inspector:
 * each line is kept, removed (only in before) or added (only in after: placeholders, markers).
 *
 * Small inputs get a minimal diff (Myers, edit distance capped at MAX_D); larger or very
 * different ones a greedy alignment that suits what compression does (the after text is mostly
 * an ordered subset of the before text plus marker lines).
 *
 * Invariant: concatenating kept+removed lines gives `before`, kept+added gives `after`.
 */
export type DiffOp = 'keep' | 'del' | 'add';
export interface DiffLine {
  op: DiffOp;
  text: string;
}

const MAX_D = 600;

export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before.split('\n');
  const b = after.split('\n');
  return myers(a, b) ?? greedy(a, b);
}

function myers(a: string[], b: string[]): DiffLine[] | null {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, MAX_D);
  const off = max + 1;
  let v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    const next = v.slice();
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && (v[off + k - 1] ?? 0) < (v[off + k + 1] ?? 0))
          ? (v[off + k + 1] ?? 0)
          : (v[off + k - 1] ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      next[off + k] = x;
      if (x >= n && y >= m) return backtrack(a, b, [...trace.slice(1), next], off, d);
    }
    v = next;
  }
  return null;
}

function backtrack(a: string[], b: string[], trace: Int32Array[], off: number, dEnd: number): DiffLine[] {
  const out: DiffLine[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = dEnd; d > 0; d--) {
    const v = trace[d - 1] ?? new Int32Array(0);
    const k = x - y;
    const prevK = k === -d || (k !== d && (v[off + k - 1] ?? 0) < (v[off + k + 1] ?? 0)) ? k + 1 : k - 1;
    const prevX = v[off + prevK] ?? 0;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) out.push({ op: 'keep', text: a[--x] ?? '' }) && y--;
    if (x === prevX) out.push({ op: 'add', text: b[--y] ?? '' });
    else out.push({ op: 'del', text: a[--x] ?? '' });
  }
  while (x > 0 && y > 0) {
    out.push({ op: 'keep', text: a[--x] ?? '' });
    y--;
  }
  return out.reverse();
}

function greedy(a: string[], b: string[]): DiffLine[] {
  const positions = new Map<string, number[]>();
  a.forEach((line, i) => {
    const list = positions.get(line);
    if (list) list.push(i);
    else positions.set(line, [i]);
  });
  const out: DiffLine[] = [];
  let i = 0;
  for (const line of b) {
    const list = positions.get(line);
    const at = list?.find((p) => p >= i);
    if (at === undefined) {
      out.push({ op: 'add', text: line });
      continue;
    }
    while (i < at) out.push({ op: 'del', text: a[i++] ?? '' });
    out.push({ op: 'keep', text: line });
    i = at + 1;
  }
  while (i < a.length) out.push({ op: 'del', text: a[i++] ?? '' });
  return out;
}
