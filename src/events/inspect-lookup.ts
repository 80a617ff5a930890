/**
 * Finds an inspector record (a tool output before and after compression) by id: first in a
 * process's memory, then through the index of the `<stateDir>/inspect/*.jsonl` files
 * (inspect-index.ts), the latest copy winning.
 *
 * Invariant: read-only; a missing folder, unreadable file or corrupt line means "not found",
 * never an exception.
 */
import type { InspectRecord } from './types.js';
import { createInspectIndex, type InspectIndex } from './inspect-index.js';

export interface LookupOptions {
  /** In-memory records of this process (e.g. `sink.recentInspect`). */
  memory?: (id: string) => InspectRecord | undefined;
  /** A long-lived index of the state dir (the dashboard keeps one); default: a one-off index. */
  index?: InspectIndex;
}

export async function findInspectRecord(
  stateDir: string,
  id: string,
  opts: LookupOptions = {},
): Promise<InspectRecord | null> {
  const hit = opts.memory?.(id);
  if (hit) return hit;
  return (opts.index ?? createInspectIndex(stateDir)).find(id);
}
