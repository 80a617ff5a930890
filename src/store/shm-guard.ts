/**
 * SQLite maps a WAL database's `-shm` into memory and writes to it on every transaction, even a
 * read. Made immutable under a running process (`chattr +i`, by root), the next such write is a
 * SIGBUS that kills the process: one hook left unanswered, nothing logged (issue 19, finding 7).
 * No signal handler can recover from that fault, so the only safe course is to look before SQLite
 * touches the mapping: every call of a store first checks that a `-shm` it may have mapped for
 * writing is still writable. When it is not, the store is left alone for good (never closed: closing
 * checkpoints, which writes there too), its calls fail with HMC_SHM_UNWRITABLE (a read-only fault:
 * the recorder keeps the sessions, logs one line and retries), no new connection to that database
 * is opened while the `-shm` stays unwritable (SQLite would share the same mapping), and the
 * process ends with `process.exit`, which skips the cleanup that would close it (cli/main.ts).
 *
 * Invariant: a store whose `-shm` was not writable when it was opened is read-only-mapped by SQLite
 * and never abandoned; the check is one access() call per store call.
 */
import { accessSync, constants, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { StoreError } from './errors.js';

/** Stores left alone because their `-shm` stopped being writable: kept referenced, never closed. */
const abandoned = new Set<object>();
/**
 * Their databases: SQLite shares one mapping of a `-shm` among all connections of a process, so a
 * new connection to one of them would write to the same mapping.
 */
const abandonedPaths = new Set<string>();

/** How many stores this process had to leave alone (the process must then end with `process.exit`). */
export function abandonedStores(): number {
  return abandoned.size;
}

/**
 * Why no connection may be opened to `path` now (null when one may): this process left a store of
 * it alone and its `-shm` is still not writable. Checked before every open (db.ts, integrity.ts).
 */
export function refusesOpen(path: string): string | null {
  if (!abandonedPaths.has(resolve(path))) return null;
  const shm = `${path}-shm`;
  return existsSync(shm) && !writable(shm)
    ? `${shm} is not writable and this process still maps it; the database is left alone until it is`
    : null;
}

function writable(file: string): boolean {
  try {
    accessSync(file, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * `store` with every method guarded: before each call, the `-shm` of `path` is checked when it was
 * writable at open (so SQLite may have mapped it for writing). `closeWith` closes the connection;
 * an abandoned store's close does nothing.
 */
export function guardShm<T extends object>(store: T, path: string): T {
  const shm = `${path}-shm`;
  // A -shm that does not exist yet is made writable by SQLite when it is created.
  const mappedForWriting = !existsSync(shm) || writable(shm);
  let left = false;
  const check = (): void => {
    if (left)
      throw new StoreError(
        'HMC_SHM_UNWRITABLE',
        `${shm} stopped being writable while mapped; this process leaves the database alone`,
      );
    if (!mappedForWriting || !existsSync(shm) || writable(shm)) return;
    left = true;
    abandoned.add(store);
    abandonedPaths.add(resolve(path));
    throw new StoreError(
      'HMC_SHM_UNWRITABLE',
      `${shm} stopped being writable while mapped (made immutable?); this process leaves the database alone until it is writable again (touching it would kill the process)`,
    );
  };
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      const fn = value as (...args: unknown[]) => unknown;
      if (prop === 'close') {
        return (...args: unknown[]) => {
          if (left) return undefined;
          if (mappedForWriting && existsSync(shm) && !writable(shm)) {
            left = true;
            abandoned.add(store);
            abandonedPaths.add(resolve(path));
            return undefined;
          }
          return fn.apply(target, args);
        };
      }
      return (...args: unknown[]) => {
        check();
        return fn.apply(target, args);
      };
    },
  });
}
