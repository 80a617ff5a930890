/**
 * One error type for the store, carrying SQLite's code (SQLITE_BUSY, SQLITE_FULL, SQLITE_CORRUPT…)
 * or our own (HMC_NO_DB, HMC_SCHEMA_OLD, HMC_SCHEMA_NEWER), so callers branch on `code`, never on
 * message text.
 *
 * Invariant: the message is one readable line that says what failed.
 */
import { errorCode, errorText } from '../core/errors.js';

export class StoreError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreError';
    this.code = code;
  }

  /** Wraps any thrown value, keeping SQLite's code when there is one. */
  static wrap(err: unknown, context: string): StoreError {
    const code = errorCode(err) ?? 'HMC_ERROR';
    const detail = errorText(err);
    return new StoreError(code, `${context}: ${detail}`, { cause: err });
  }
}

/** What a writer should do about an error. */
export type Fault = 'busy' | 'full' | 'readonly' | 'corrupt' | 'other';

export function classify(err: unknown): Fault {
  const code = errorCode(err) ?? '';
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'busy';
  if (code.startsWith('SQLITE_FULL') || code === 'ENOSPC') return 'full';
  // HMC_SHM_UNWRITABLE: a -shm made immutable under this process (shm-guard.ts), a read-only fault too.
  if (
    code.startsWith('SQLITE_READONLY') ||
    code === 'EACCES' ||
    code === 'EPERM' ||
    code === 'EROFS' ||
    code === 'HMC_SHM_UNWRITABLE'
  )
    return 'readonly';
  if (code.startsWith('SQLITE_CORRUPT') || code.startsWith('SQLITE_NOTADB')) return 'corrupt';
  return 'other';
}
