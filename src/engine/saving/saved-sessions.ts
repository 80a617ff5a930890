/**
 * Sessions saved in the state dir (`<state dir>/sessions/<safe id>.json`), for a process that has
 * not seen one yet: `/hmc status` in a fresh Hermes process, `hmc control` in a terminal.
 *
 * Invariant: read-only; a torn, foreign or unreadable file is skipped (the next newest one
 * answers), never an exception.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parsePersisted } from '../session/persisted.js';

/** The id of the most recently saved session that reads back, if any. */
export function latestSavedSession(stateDir: string): string | undefined {
  const dir = join(stateDir, 'sessions');
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    return undefined;
  }
  const files: { file: string; mtime: number }[] = [];
  for (const name of names) {
    try {
      files.push({ file: join(dir, name), mtime: statSync(join(dir, name)).mtimeMs });
    } catch {
      // Vanished meanwhile.
    }
  }
  files.sort((a, b) => b.mtime - a.mtime);
  for (const { file } of files) {
    try {
      // File names are sanitised ids: the real id is inside.
      const saved = parsePersisted(JSON.parse(readFileSync(file, 'utf8')));
      if (saved) return saved.session_id;
    } catch {
      // A torn or foreign file: try the next newest.
    }
  }
  return undefined;
}
