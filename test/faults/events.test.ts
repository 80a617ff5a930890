/**
 * Fault suite, the event and inspector files (docs/faults.md): a full disk, a read-only disk,
 * damaged lines and a writer killed in the middle of its writes. The dashboard of another process
 * (a tail over the state dir) keeps following without a restart. Real tmpfs where mounting is
 * permitted; the injected ENOSPC of test/events/appender-faults.test.ts always runs.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createInspectIndex } from '../../src/events/inspect-index.js';
import { createStateDirSink } from '../../src/events/state-dir-sink.js';
import { tailStateDir } from '../../src/events/tail.js';
import type { HmcEvent } from '../../src/events/types.js';
import { mountTinyFs, tinyFsUnavailable, type TinyFs } from '../helpers/tiny-fs.js';
import { inspectRecord, turnPayload } from '../server/helpers.js';
import { recordFigure, until } from './figures.js';

const ROOT = join(import.meta.dirname, '..', '..');
const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'hmc-fault-ev-'));
  cleanups.push(() => rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }));
  return d;
};

const skip = tinyFsUnavailable();
const note = skip ? ` (skipped: ${skip})` : '';

/** A sink writing into `dir` and a tail following it from "another process". */
async function rig(
  dir: string,
): Promise<{ logs: string[]; seen: HmcEvent[]; sink: ReturnType<typeof createStateDirSink> }> {
  const logs: string[] = [];
  const sink = createStateDirSink({ stateDir: dir, source: 'hermes-1', inspector: true, log: (l) => logs.push(l) });
  const seen: HmcEvent[] = [];
  const tail = await tailStateDir(dir, (e) => seen.push(e), { log: () => undefined, pollMs: 50 });
  cleanups.push(() => tail.close());
  return { logs, seen, sink };
}

const turnsSeen = (seen: HmcEvent[]): number[] => seen.flatMap((e) => (e.type === 'turn' ? [e.turn] : []));

describe('fault suite: event and inspector files', () => {
  it.skipIf(skip !== null)(
    `read-only disk: one line, then events and inspector copies flow again once writable${note}`,
    async () => {
      const fs = mountTinyFs(256 * 1024) as TinyFs;
      cleanups.push(() => fs.unmount());
      const { logs, seen, sink } = await rig(fs.dir);
      // Read-only before the first write: Linux refuses to remount a file system read-only while a
      // file on it is open for writing, so the writer finds it read-only when it opens its files.
      fs.readOnly();
      for (let turn = 2; turn <= 20; turn++) {
        sink.emit(turnPayload('s', turn, turn));
        sink.inspect(inspectRecord('s', `c${turn}`));
        await new Promise((r) => setTimeout(r, 2));
      }
      await until(() => logs.some((l) => l.includes('cannot write')));
      fs.readWrite();
      const back = performance.now();
      sink.emit(turnPayload('s', 21, 21));
      sink.inspect(inspectRecord('s', 'c21'));
      await until(() => turnsSeen(seen).includes(21));
      const recoveredMs = performance.now() - back;
      await sink.close();
      expect(await createInspectIndex(fs.dir).find('s:c21')).not.toBeNull();
      const lost = 19 - turnsSeen(seen).filter((t) => t >= 2 && t <= 20).length;
      expect(logs.filter((l) => l.includes('cannot write'))).toHaveLength(2); // the events file and the inspector file
      recordFigure({
        area: 'events',
        fault: 'read-only disk (tmpfs remounted ro)',
        lost: `${lost} of 19 event lines emitted while read-only (live subscribers in the process got them all)`,
        recoveredMs,
      });
    },
  );

  it.skipIf(skip !== null)(`full disk: one line, then events flow again once space returns${note}`, async () => {
    const fs = mountTinyFs(64 * 1024) as TinyFs;
    cleanups.push(() => fs.unmount());
    const { logs, seen, sink } = await rig(fs.dir);
    sink.emit(turnPayload('s', 1, 10));
    await until(() => seen.length === 1);
    fs.fill();
    for (let turn = 2; turn <= 20; turn++) {
      sink.emit(turnPayload('s', turn, turn));
      await new Promise((r) => setTimeout(r, 2));
    }
    await until(() => logs.some((l) => l.includes('cannot write')));
    fs.free();
    const back = performance.now();
    sink.emit(turnPayload('s', 21, 21));
    await until(() => turnsSeen(seen).includes(21));
    const recoveredMs = performance.now() - back;
    await sink.close();
    const lost = 19 - turnsSeen(seen).filter((t) => t >= 2 && t <= 20).length;
    recordFigure({
      area: 'events',
      fault: 'disk full (tmpfs)',
      lost: `${lost} of 19 event lines emitted while full (live subscribers in the process got them all)`,
      recoveredMs,
    });
  });

  it('damaged lines (garbage, binary, a torn line, an oversize id) are skipped; every whole event and record is read', async () => {
    const dir = tmp();
    mkdirSync(join(dir, 'events'));
    mkdirSync(join(dir, 'inspect'));
    const good = (n: number): string =>
      JSON.stringify({ ...turnPayload('s', n, n), id: `w:${n}`, source: 'w', time: Date.now() + n });
    writeFileSync(
      join(dir, 'events', 'w.jsonl'),
      `${good(1)}\nnot json\n\u0000\u0001\u00ff garbage\n{"id":"w:9","type":"tu\n${good(2)}\n`,
    );
    writeFileSync(
      join(dir, 'inspect', 'w.jsonl'),
      `${JSON.stringify(inspectRecord('s', 'a'))}\n{"id":"${'x'.repeat(10_000)}\n\u0000\n${JSON.stringify(inspectRecord('s', 'b'))}\n`,
    );
    const seen: HmcEvent[] = [];
    const started = performance.now();
    const tail = await tailStateDir(dir, (e) => seen.push(e), { log: () => undefined, pollMs: 50 });
    cleanups.push(() => tail.close());
    appendFileSync(join(dir, 'events', 'w.jsonl'), `${good(3)}\n`);
    await until(() => turnsSeen(seen).includes(3));
    const recoveredMs = performance.now() - started;
    expect(turnsSeen(seen)).toEqual([1, 2, 3]);
    const index = createInspectIndex(dir);
    expect((await index.find('s:a'))?.id).toBe('s:a');
    expect((await index.find('s:b'))?.id).toBe('s:b');
    recordFigure({
      area: 'events',
      fault: 'damaged lines in event and inspector files',
      lost: 'the damaged lines only',
      recoveredMs,
    });
  });

  it('writer killed (SIGKILL) mid-write: a torn last line is skipped, everything whole is read, a new process writes on', async () => {
    const dir = tmp();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'test', 'faults', 'fixtures', 'writers.ts'), 'events', dir],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] },
    );
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const killedAt = performance.now();
    const raw = readFileSync(join(dir, 'events', 'killed.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean);
    const whole = raw.filter((l) => {
      try {
        JSON.parse(l);
        return true;
      } catch {
        return false;
      }
    }).length;
    expect(raw.length - whole).toBeLessThanOrEqual(1);
    const seen: HmcEvent[] = [];
    const tail = await tailStateDir(dir, (e) => seen.push(e), {
      log: () => undefined,
      pollMs: 50,
      replayPerFile: 1_000_000,
    });
    cleanups.push(() => tail.close());
    // The replay reads the last MiB of each file: every whole line in it, never the torn one.
    expect(seen.every((e) => e.type === 'tool')).toBe(true);
    const next = createStateDirSink({ stateDir: dir, source: 'hermes-2', inspector: true, log: () => undefined });
    next.emit(turnPayload('s', 99, 99));
    await until(() => turnsSeen(seen).includes(99));
    const recoveredMs = performance.now() - killedAt;
    await next.close();
    const index = createInspectIndex(dir);
    await index.refresh();
    expect(index.size).toBeGreaterThan(0);
    expect(readdirSync(join(dir, 'events')).sort()).toEqual(['hermes-2.jsonl', 'killed.jsonl']);
    recordFigure({
      area: 'events',
      fault: 'writer killed with SIGKILL mid-write',
      lost: `the lines still queued in the killed process, and ${raw.length - whole} torn line`,
      recoveredMs,
    });
  });
});
