/**
 * Issue 11, fault 1: a full disk used to stop the live events and inspector copies of a process
 * for good (one ENOSPC set a permanent failed flag). These tests fill the disk, by an injected
 * ENOSPC and by a real tmpfs of 64 KiB, and check that writing resumes once space is back, with
 * one log line per episode.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JsonlAppender, type AppendHandle } from '../../src/events/jsonl-appender.js';
import { createStateDirSink } from '../../src/events/state-dir-sink.js';
import { tailStateDir } from '../../src/events/tail.js';
import type { HmcEvent } from '../../src/events/types.js';
import { mountTinyFs, tinyFsUnavailable, type TinyFs } from '../helpers/tiny-fs.js';
import { turnPayload } from '../server/helpers.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'hmc-app-'));
  cleanups.push(() => rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }));
  return d;
};
const until = async (pred: () => boolean, ms = 5000): Promise<void> => {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};
const lines = (file: string): string[] => readFileSync(file, 'utf8').split('\n').filter(Boolean);
const enospc = (): Error => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });

/** A real file whose writes fail with ENOSPC while `disk.full` is set; a failing write lands half. */
function faultyDisk(): { full: boolean; openFile: (path: string) => Promise<AppendHandle> } {
  const disk = {
    full: false,
    async openFile(path: string): Promise<AppendHandle> {
      mkdirSync(dirname(path), { recursive: true });
      const h = await open(path, 'a+', 0o600);
      return {
        async write(buf: Buffer, offset: number, length: number) {
          if (disk.full) {
            // As a real full disk does: a short write first, then the error on the next one.
            if (length > 1) return h.write(buf, offset, Math.floor(length / 2));
            throw enospc();
          }
          return h.write(buf, offset, length);
        },
        read: (b, o, l, p) => h.read(b, o, l, p),
        truncate: (n) => h.truncate(n),
        stat: () => h.stat(),
        close: () => h.close(),
      };
    },
  };
  return disk;
}

describe('JsonlAppender on a failing disk', () => {
  it('recovers after ENOSPC once space returns (regression: one ENOSPC stopped the events for good)', async () => {
    const file = join(tmp(), 'events', 'p.jsonl');
    const logs: string[] = [];
    const disk = faultyDisk();
    const app = new JsonlAppender({
      path: file,
      log: (l) => logs.push(l),
      openFile: disk.openFile,
      retryMs: 5,
      maxRetryMs: 20,
    });
    app.append('{"n":1}');
    await app.flush();
    disk.full = true;
    // One append per hook, as a busy session would make while the disk is full.
    for (let n = 2; n <= 60; n++) {
      app.append(`{"n":${n}}`);
      await new Promise((r) => setTimeout(r, 1));
    }
    await until(() => app.failing);
    disk.full = false;
    for (let n = 61; n <= 70; n++) app.append(`{"n":${n}}`);
    await until(() => !app.failing);
    await app.close();
    const parsed = lines(file).flatMap((l) => {
      try {
        return [JSON.parse(l) as { n: number }];
      } catch {
        return [];
      }
    });
    // Everything after the disk came back is there, in order; a write the full disk cut short
    // left a torn line of its own, never glued to a whole one.
    const ns = parsed.map((p) => p.n);
    expect(ns[0]).toBe(1);
    expect(ns.slice(-10)).toEqual([61, 62, 63, 64, 65, 66, 67, 68, 69, 70]);
    const torn = lines(file).filter((l) => !/^\{"n":\d+\}$/.test(l));
    for (const l of torn) expect(l).toMatch(/^\{("(n("(:\d*)?)?)?)?$/);
    // One line when it failed, one when it recovered: not one per hook.
    expect(logs.filter((l) => l.includes('cannot write'))).toHaveLength(1);
    expect(logs.filter((l) => l.includes(' again after '))).toHaveLength(1);
    expect(logs.find((l) => l.includes(' again after '))).toMatch(/no line was lost|line\(s\) were lost/);
  });

  it('keeps retrying on its own when nothing new is appended, and writes what waited', async () => {
    const file = join(tmp(), 'p.jsonl');
    const logs: string[] = [];
    const disk = faultyDisk();
    const app = new JsonlAppender({
      path: file,
      log: (l) => logs.push(l),
      openFile: disk.openFile,
      retryMs: 5,
      maxRetryMs: 10,
    });
    disk.full = true;
    app.append('{"n":1}');
    await until(() => app.failing);
    app.append('{"n":2}');
    disk.full = false;
    await until(() => !app.failing);
    await app.close();
    expect(lines(file).at(-1)).toBe('{"n":2}');
  });
});

describe('events on a real full disk (64 KiB tmpfs)', () => {
  const skip = tinyFsUnavailable();
  it.skipIf(skip !== null)(
    `a dashboard in another process sees events again once space returns${skip ? ` (skipped: ${skip})` : ''}`,
    async () => {
      const fs = mountTinyFs(64 * 1024) as TinyFs;
      cleanups.push(() => fs.unmount());
      const logs: string[] = [];
      const sink = createStateDirSink({
        stateDir: fs.dir,
        source: 'hermes-1',
        inspector: false,
        log: (l) => logs.push(l),
      });
      // The other process: a standalone dashboard following the state dir.
      const seen: HmcEvent[] = [];
      const tail = await tailStateDir(fs.dir, (e) => seen.push(e), { log: () => undefined, pollMs: 50 });
      cleanups.push(() => void tail.close());
      sink.emit(turnPayload('s', 1, 10));
      await until(() => seen.length === 1);
      fs.fill();
      for (let turn = 2; turn <= 40; turn++) {
        sink.emit(turnPayload('s', turn, turn * 10));
        await new Promise((r) => setTimeout(r, 2));
      }
      await until(() => logs.some((l) => l.includes('cannot write')));
      fs.free();
      sink.emit(turnPayload('s', 41, 410));
      await until(() => seen.some((e) => e.type === 'turn' && e.turn === 41), 10_000);
      await sink.close();
      expect(
        logs.filter((l) => l.includes('cannot write')),
        logs.join('\n'),
      ).toHaveLength(1);
      expect(
        logs.filter((l) => l.includes(' again after ')),
        logs.join('\n'),
      ).toHaveLength(1);
    },
  );
});
