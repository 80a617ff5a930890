/**
 * Finds an inspector record (a tool output before and after compression) by id: first in a
 * process's memory, then in the `<stateDir>/inspect/*.jsonl` files, newest file first, latest
 * record of a file winning (a session may compress the same output again).
 *
 * Invariant: read-only; a missing folder, unreadable file or corrupt line means "not found",
 * never an exception.
 */
import { createReadStream, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { InspectRecord } from './types.js';
import { isInspectRecord, parseLine } from './guards.js';
import { inspectDir } from './state-dir-sink.js';

export interface LookupOptions {
  /** In-memory records of this process (e.g. `sink.recentInspect`). */
  memory?: (id: string) => InspectRecord | undefined;
}

export async function findInspectRecord(stateDir: string, id: string, opts: LookupOptions = {}): Promise<InspectRecord | null> {
  const hit = opts.memory?.(id);
  if (hit) return hit;
  const dir = inspectDir(stateDir);
  let names: { name: string; mtime: number }[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith('.jsonl'))
      .map((name) => ({ name, mtime: safeMtime(join(dir, name)) }))
      .sort((a, b) => b.mtime - a.mtime);
  } catch {
    return null;
  }
  const needle = JSON.stringify(id);
  for (const { name } of names) {
    const found = await scanFile(join(dir, name), id, needle);
    if (found) return found;
  }
  return null;
}

function safeMtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

async function scanFile(path: string, id: string, needle: string): Promise<InspectRecord | null> {
  let found: InspectRecord | null = null;
  try {
    const rl = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
    for await (const line of rl) {
      // Cheap substring test first: most lines are other records with large bodies.
      if (!line.includes(needle)) continue;
      const v = parseLine(line);
      if (isInspectRecord(v) && v.id === id) found = v;
    }
  } catch {
    return found;
  }
  return found;
}
