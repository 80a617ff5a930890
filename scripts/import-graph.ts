// Prints the import graph's circles and upward arrows, read from the code's own imports
// (`npx tsx scripts/import-graph.ts`, `--edges` adds every arrow between folders). Exit code 1
// when it finds either; test/architecture/import-graph.test.ts runs the same check.
//
// Invariant: the layer table below is the one written down in src/README.md; a folder of src/
// missing from it is reported, never silently ranked.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The layers of src/, top to bottom. A file may import from its own folder or from a folder on
 * a lower line; two folders on the same line never import each other.
 */
export const LAYERS: readonly (readonly string[])[] = [
  ['cli'],
  ['app'],
  ['server', 'engine', 'demo'],
  ['strategies', 'summarise'],
  ['store', 'events', 'protocol', 'hosts'],
  ['config'],
  ['core'],
];

/** One import between two files, as paths relative to the repository root. */
export interface Arrow {
  from: string;
  to: string;
}

export interface GraphReport {
  /** Every file of src/ with the files of src/ it imports. */
  files: Map<string, string[]>;
  /** Groups of files that import each other in a loop (strongly connected, size > 1). */
  circles: string[][];
  /** Arrows from a folder to a folder on a higher or the same layer. */
  upward: Arrow[];
  /** Folders of src/ that the layer table does not name. */
  unranked: string[];
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...listFiles(path));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The relative imports of one source text (static, re-exports, side-effect and dynamic). */
export function importsOf(source: string): string[] {
  const out: string[] = [];
  for (const match of source.matchAll(IMPORT)) {
    const spec = match[1] ?? match[2] ?? match[3];
    if (spec?.startsWith('.')) out.push(spec);
  }
  return out;
}

/** The folder of src/ a file belongs to (`src/engine/turn/sync.ts` → `engine`; a file at the root of src/ → `core`). */
export function folderOf(file: string): string {
  const parts = file.split('/');
  return parts.length > 2 ? (parts[1] as string) : 'core';
}

function rankOf(folder: string): number | undefined {
  const index = LAYERS.findIndex((layer) => layer.includes(folder));
  return index < 0 ? undefined : index;
}

/** Strongly connected groups (Tarjan), each of more than one file or a file importing itself. */
export function circlesOf(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      let top: string;
      do {
        top = stack.pop() as string;
        onStack.delete(top);
        group.push(top);
      } while (top !== node);
      if (group.length > 1 || (graph.get(node) ?? []).includes(node)) out.push(group.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return out;
}

/** Reads src/ under `root` and reports circles, upward arrows and unranked folders. */
export function analyse(root: string): GraphReport {
  const files = new Map<string, string[]>();
  for (const path of listFiles(join(root, 'src')).sort()) {
    const file = relative(root, path);
    // Files outside src/ (bin/install-check.js) are the package's, not a layer's.
    const targets = importsOf(readFileSync(path, 'utf8'))
      .map((spec) => relative(root, resolve(dirname(path), spec)).replace(/\.js$/, '.ts'))
      .filter((target) => target.startsWith('src/'));
    files.set(file, [...new Set(targets)].sort());
  }
  const upward: Arrow[] = [];
  const unranked = new Set<string>();
  for (const [from, targets] of files) {
    for (const to of targets) {
      const a = folderOf(from);
      const b = folderOf(to);
      if (a === b) continue;
      const ra = rankOf(a);
      const rb = rankOf(b);
      if (ra === undefined) unranked.add(a);
      if (rb === undefined) unranked.add(b);
      if (ra !== undefined && rb !== undefined && ra >= rb) upward.push({ from, to });
    }
  }
  return { files, circles: circlesOf(files), upward, unranked: [...unranked].sort() };
}

/** Arrows between folders with their counts, `engine -> strategies  12`. */
export function folderEdges(files: Map<string, string[]>): string[] {
  const counts = new Map<string, number>();
  for (const [from, targets] of files) {
    for (const to of targets) {
      const key = `${folderOf(from)} -> ${folderOf(to)}`;
      if (folderOf(from) !== folderOf(to)) counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([key, n]) => `${key.padEnd(30)} ${n}`);
}

function main(): number {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const report = analyse(root);
  const out = process.stdout;
  out.write(`${report.files.size} files, ${[...report.files.values()].reduce((n, t) => n + t.length, 0)} imports\n`);
  out.write(`layers (top to bottom): ${LAYERS.map((l) => l.join(' ')).join(' | ')}\n`);
  out.write(`circles: ${report.circles.length}\n`);
  for (const group of report.circles) out.write(`  ${group.join(' <-> ')}\n`);
  out.write(`upward or sideways arrows: ${report.upward.length}\n`);
  for (const { from, to } of report.upward) out.write(`  ${from} -> ${to}\n`);
  if (report.unranked.length > 0) out.write(`folders missing from the layer table: ${report.unranked.join(', ')}\n`);
  if (process.argv.includes('--edges')) {
    out.write('arrows between folders:\n');
    for (const line of folderEdges(report.files)) out.write(`  ${line}\n`);
  }
  return report.circles.length + report.upward.length + report.unranked.length > 0 ? 1 : 0;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  process.exitCode = main();
