/**
 * Retention of the per-process event and inspector files in the state dir.
 *
 * Policy (documented in docs/dashboard.md): a file not written for 7 days is deleted; if the
 * files of one folder still take more than 256 MiB, the least recently written go first. A
 * process's own current file is never deleted. Each live file also caps itself (jsonl-appender.ts).
 *
 * Invariant: cleanup never throws; a file it cannot stat or delete is left alone.
 */
import { readdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

export const RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
export const FOLDER_CAP_BYTES = 256 * 1024 * 1024;

export interface CleanupOptions {
  keep?: ReadonlySet<string>;
  now?: number;
  maxAgeMs?: number;
  maxBytes?: number;
}

/** Deletes old `.jsonl` files in `dir`; returns the names deleted. */
export function cleanupFolder(dir: string, opts: CleanupOptions = {}): string[] {
  const now = opts.now ?? Date.now();
  const maxAge = opts.maxAgeMs ?? RETENTION_MS;
  const maxBytes = opts.maxBytes ?? FOLDER_CAP_BYTES;
  const keep = opts.keep ?? new Set<string>();
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.jsonl'));
  } catch {
    return [];
  }
  const files: { name: string; mtime: number; size: number }[] = [];
  for (const name of names) {
    try {
      const st = statSync(join(dir, name));
      if (st.isFile()) files.push({ name, mtime: st.mtimeMs, size: st.size });
    } catch {
      // Vanished meanwhile.
    }
  }
  const deleted: string[] = [];
  const remove = (name: string): boolean => {
    if (keep.has(name)) return false;
    try {
      unlinkSync(join(dir, name));
      deleted.push(name);
      return true;
    } catch {
      return false;
    }
  };
  const live = files.filter((f) => !(now - f.mtime > maxAge && remove(f.name)));
  let total = live.reduce((s, f) => s + f.size, 0);
  for (const f of live.sort((a, b) => a.mtime - b.mtime)) {
    if (total <= maxBytes) break;
    if (remove(f.name)) total -= f.size;
  }
  return deleted;
}
