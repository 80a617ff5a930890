/**
 * A real small filesystem for fault tests: a tmpfs of a few KiB mounted on a temporary folder,
 * which can be filled (ENOSPC), freed, and remounted read-only (EROFS). Mounting needs root (or
 * CAP_SYS_ADMIN); where it is not permitted (CI without privileges), `mountTinyFs` returns the
 * reason and the caller skips with a note; the injected-fault tests cover the same code there.
 *
 * Invariant: every mount made here is unmounted by `unmount()` (call it in `afterEach`).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TinyFs {
  /** The mount point (empty at first). */
  dir: string;
  /** Fills the remaining space with a filler file until the disk reports ENOSPC. */
  fill(): void;
  /** Deletes the filler: the space is back. */
  free(): void;
  readOnly(): void;
  readWrite(): void;
  unmount(): void;
}

let probed: string | null | undefined;

/** Why a tmpfs cannot be mounted here, or null when it can (probed once per process). */
export function tinyFsUnavailable(): string | null {
  if (probed !== undefined) return probed;
  const fs = mountTinyFs(16 * 1024, true);
  if (typeof fs === 'string') return (probed = fs);
  fs.unmount();
  return (probed = null);
}

export function mountTinyFs(bytes = 64 * 1024, probing = false): TinyFs | string {
  if (process.platform !== 'linux') return 'tmpfs mounts are Linux only';
  if (!probing && tinyFsUnavailable() !== null) return tinyFsUnavailable() as string;
  const dir = mkdtempSync(join(tmpdir(), 'hmc-tinyfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    return `cannot mount a tmpfs here (${reason})`;
  }
  const filler = join(dir, '.filler');
  let mounted = true;
  const remount = (mode: 'ro' | 'rw'): void =>
    void execFileSync('mount', ['-o', `remount,${mode}`, dir], { stdio: 'pipe' });
  return {
    dir,
    fill() {
      // Chunks down to one byte, so not a byte of space is left for anyone.
      for (let chunk = 4096; chunk >= 1; chunk = Math.floor(chunk / 2)) {
        for (;;) {
          try {
            writeFileSync(filler, Buffer.alloc(chunk, 120), { flag: 'a' });
          } catch {
            break;
          }
        }
      }
    },
    free() {
      try {
        unlinkSync(filler);
      } catch {
        // Never filled.
      }
    },
    readOnly: () => remount('ro'),
    readWrite: () => remount('rw'),
    unmount() {
      if (!mounted) return;
      mounted = false;
      try {
        execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
