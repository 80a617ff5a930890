import {
  appendFileSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
  existsSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createStateDirSink } from '../../src/events/state-dir-sink.js';
import { tailStateDir } from '../../src/events/tail.js';
import { findInspectRecord } from '../../src/events/inspect-lookup.js';
import { cleanupFolder } from '../../src/events/cleanup.js';
import type { HmcEvent } from '../../src/events/types.js';
import { turnPayload, inspectRecord } from './helpers.js';

const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'hmc-ev-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});
const until = async (pred: () => boolean, ms = 3000): Promise<void> => {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};
const line = (id: number, session = 's'): string =>
  JSON.stringify({ ...turnPayload(session, id, id), id: `w:${id}`, source: 'w', time: Date.now() });

describe('createStateDirSink', () => {
  it('stamps events, fans out synchronously and appends private JSON lines', async () => {
    const dir = tmp();
    const sink = createStateDirSink({ stateDir: dir, source: 'p1', inspector: true, log: () => undefined });
    const seen: HmcEvent[] = [];
    const off = sink.subscribe((e) => seen.push(e));
    sink.emit(turnPayload('s', 1, 10));
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ id: 'p1:1', source: 'p1', type: 'turn' });
    off();
    sink.emit(turnPayload('s', 2, 20));
    expect(seen).toHaveLength(1);
    sink.inspect(inspectRecord('s', 'c1'));
    await sink.close();
    const file = join(dir, 'events', 'p1.jsonl');
    expect(
      readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual(['p1:1', 'p1:2']);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'events')).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'inspect', 'p1.jsonl')).mode & 0o777).toBe(0o600);
  });

  it('should never throw into the caller, even when a subscriber throws or the dir is unwritable', async () => {
    const logs: string[] = [];
    const blocker = join(tmp(), 'a-file');
    writeFileSync(blocker, '');
    const sink = createStateDirSink({
      stateDir: join(blocker, 'state'),
      source: 'p',
      inspector: true,
      log: (l) => logs.push(l),
    });
    sink.subscribe(() => {
      throw new Error('boom');
    });
    expect(() => sink.emit(turnPayload('s', 1, 1))).not.toThrow();
    expect(() => sink.inspect(inspectRecord('s', 'c'))).not.toThrow();
    await sink.close();
    expect(logs.some((l) => l.includes('subscriber failed'))).toBe(true);
    expect(logs.some((l) => l.includes('cannot write'))).toBe(true);
  });

  it('keeps inspector records off disk when the inspector is off', async () => {
    const dir = tmp();
    const sink = createStateDirSink({ stateDir: dir, source: 'p', inspector: false, log: () => undefined });
    sink.inspect(inspectRecord('s', 'c'));
    await sink.close();
    expect(existsSync(join(dir, 'inspect', 'p.jsonl'))).toBe(false);
  });
});

describe('tailStateDir', () => {
  it('replays the recent past, then follows appends, partial lines, new files and truncation', async () => {
    const dir = tmp();
    const seed = createStateDirSink({ stateDir: dir, source: 'w0', inspector: false, log: () => undefined });
    for (let i = 1; i <= 5; i++) seed.emit(turnPayload('s', i, i));
    await seed.close();
    const got: string[] = [];
    const tail = await tailStateDir(dir, (e) => got.push(e.id), {
      replayPerFile: 3,
      pollMs: 100,
      log: () => undefined,
    });
    expect(got).toEqual(['w0:3', 'w0:4', 'w0:5']);
    const f = join(dir, 'events', 'w.jsonl');
    const l1 = line(1);
    appendFileSync(f, l1.slice(0, 20));
    await new Promise((r) => setTimeout(r, 150));
    expect(got).toHaveLength(3);
    appendFileSync(f, `${l1.slice(20)}\n${line(2)}\n`);
    await until(() => got.length === 5);
    expect(got.slice(3)).toEqual(['w:1', 'w:2']);
    appendFileSync(f, 'not json\n{"type":"turn"}\n');
    truncateSync(f, 0);
    appendFileSync(f, `${line(3)}\n`);
    await until(() => got.includes('w:3'));
    await tail.close();
  });

  it('skips its own process file', async () => {
    const dir = tmp();
    const got: string[] = [];
    const tail = await tailStateDir(dir, (e) => got.push(e.id), {
      skipFiles: ['me.jsonl'],
      pollMs: 50,
      log: () => undefined,
    });
    writeFileSync(join(dir, 'events', 'me.jsonl'), `${line(1)}\n`);
    writeFileSync(join(dir, 'events', 'other.jsonl'), `${line(2)}\n`);
    await until(() => got.length === 1);
    await new Promise((r) => setTimeout(r, 150));
    expect(got).toEqual(['w:2']);
    await tail.close();
  });
});

describe('inspector lookups and cleanup', () => {
  it('finds a record written by another process, the latest copy winning', async () => {
    const dir = tmp();
    const sink = createStateDirSink({ stateDir: dir, source: 'p', inspector: true, log: () => undefined });
    sink.inspect(inspectRecord('s', 'c1'));
    sink.inspect({ ...inspectRecord('s', 'c1'), after: 'newer' });
    await sink.close();
    expect((await findInspectRecord(dir, 's:c1'))?.after).toBe('newer');
    expect(await findInspectRecord(dir, 's:missing')).toBeNull();
    expect(await findInspectRecord(join(dir, 'nope'), 's:c1')).toBeNull();
  });

  it('deletes files older than the retention and the oldest beyond the size cap, never the kept one', () => {
    const dir = tmp();
    const old = Date.now() / 1000 - 8 * 86400;
    for (const [name, age] of [
      ['a.jsonl', old],
      ['b.jsonl', old],
      ['c.jsonl', Date.now() / 1000 - 60],
      ['d.jsonl', Date.now() / 1000],
    ] as const) {
      writeFileSync(join(dir, name), 'x'.repeat(100));
      utimesSync(join(dir, name), age, age);
    }
    const deleted = cleanupFolder(dir, { keep: new Set(['b.jsonl']), maxBytes: 250 });
    expect(deleted.sort()).toEqual(['a.jsonl', 'c.jsonl']);
  });
});
