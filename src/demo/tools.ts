/**
 * Real tools for the demo agent, run on this project's own files and shaped exactly as Hermes'
 * tools shape their results (DESIGN §5): `read_file` with `N|` gutters, `search_files` with
 * matches, `terminal` with output / exit_code / error.
 *
 * Invariant: read-only and harmless (reads, greps, listings, version queries); every command has
 * a timeout; a failing tool is a tool result with an error, never an exception.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { promisify } from 'node:util';
import { errorText } from '../core/errors.js';

const run = promisify(execFile);

/** Hermes' read_file: `{content: "1|…", total_lines, file_size, truncated}`; 500 lines at most. */
export function readFileTool(root: string, path: string, offset = 1, limit = 500): string {
  try {
    const text = readFileSync(join(root, path), 'utf8');
    const lines = text.split('\n');
    const slice = lines.slice(offset - 1, offset - 1 + limit);
    const content = slice.map((l, i) => `${offset + i}|${l}`).join('\n');
    return JSON.stringify({
      content,
      total_lines: lines.length,
      file_size: Buffer.byteLength(text),
      truncated: offset - 1 + limit < lines.length,
      is_binary: false,
      is_image: false,
    });
  } catch (err) {
    return JSON.stringify({ error: `Failed to read file: ${errorText(err)}` });
  }
}

/** Hermes' search_files (content search): `{total_count, matches: [{path, line, content}]}`. */
export function searchFilesTool(root: string, pattern: string, under = '.', limit = 200): string {
  let re: RegExp;
  try {
    re = new RegExp(pattern);
  } catch (err) {
    return JSON.stringify({ error: `Invalid pattern: ${errorText(err)}` });
  }
  const matches: { path: string; line: number; content: string }[] = [];
  let total = 0;
  for (const file of walk(join(root, under))) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    text.split('\n').forEach((line, i) => {
      if (!re.test(line)) return;
      total++;
      if (matches.length < limit)
        matches.push({
          path: relative(root, file).split(sep).join('/'),
          line: i + 1,
          content: line.trim().slice(0, 200),
        });
    });
  }
  return JSON.stringify({ total_count: total, matches, truncated: total > limit });
}

/** Hermes' terminal: `{output, exit_code, error}`, stderr merged, output stripped. */
export async function terminalTool(root: string, command: string, args: readonly string[]): Promise<string> {
  try {
    const { stdout, stderr } = await run(command, args, {
      cwd: root,
      timeout: 15_000,
      maxBuffer: 4 * 1024 * 1024,
      env: { ...process.env, GIT_PAGER: 'cat', NO_COLOR: '1' },
    });
    return JSON.stringify({ output: `${stdout}${stderr}`.trim(), exit_code: 0, error: null });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; code?: number | string; message?: string };
    const exit = typeof e.code === 'number' ? e.code : 1;
    const output = `${e.stdout ?? ''}${e.stderr ?? ''}`.trim();
    return JSON.stringify({
      output,
      exit_code: exit,
      error: typeof e.code === 'string' ? `${e.code}: ${e.message ?? ''}` : null,
    });
  }
}

const SKIP = new Set(['node_modules', '.git', 'dist', '.venv', '__pycache__']);

function* walk(dir: string): Generator<string> {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of entries.sort()) {
    if (SKIP.has(name) || name.startsWith('.')) continue;
    const path = join(dir, name);
    let isDir = false;
    try {
      isDir = statSync(path).isDirectory();
    } catch {
      continue;
    }
    if (isDir) yield* walk(path);
    else if (/\.(ts|js|py|md|json|yaml|yml)$/.test(name)) yield path;
  }
}
