/**
 * Sessions saved in the state dir (`<state dir>/sessions/<safe id>.json`), for a process that has
 * not seen one yet: `/hmc status` in a fresh Hermes process, `hmc control` in a terminal.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parsePersisted } from './session.js';

/** The id of the most recently saved session, if any. */
export function latestSavedSession(stateDir: string): string | undefined {
  const dir = join(stateDir, 'sessions');
  let best: { file: string; mtime: number } | undefined;
  try {
    for (const name of readdirSync(dir)) {
      if (!name.endsWith('.json')) continue;
      const mtime = statSync(join(dir, name)).mtimeMs;
      if (!best || mtime > best.mtime) best = { file: join(dir, name), mtime };
    }
    // File names are sanitised ids: the real id is inside.
    return best ? parsePersisted(JSON.parse(readFileSync(best.file, 'utf8')))?.session_id : undefined;
  } catch {
    return undefined;
  }
}
