/**
 * Issue 11, fault 5: an unknown `/api/inspect/<id>` read every inspector file (1.4 s over 192 MB)
 * on every request. The index reads each file once, then only what is appended; a lookup reads
 * one record. Reads are counted through the index's `open`.
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createInspectIndex } from '../../src/events/inspect-index.js';
import { inspectRecord } from '../server/helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

function stateDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'hmc-idx-'));
  dirs.push(d);
  mkdirSync(join(d, 'inspect'));
  return d;
}

/** An `open` that counts the bytes read through it. */
function counting(): { open: (path: string) => Promise<FileHandle>; bytes: number; opens: number } {
  const c = {
    bytes: 0,
    opens: 0,
    async open(path: string): Promise<FileHandle> {
      c.opens++;
      const fh = await open(path, 'r');
      const read = fh.read.bind(fh) as (
        b: Buffer,
        o: number,
        l: number,
        p: number,
      ) => Promise<{ bytesRead: number; buffer: Buffer }>;
      return Object.assign(fh, {
        read: async (b: Buffer, o: number, l: number, p: number) => {
          const r = await read(b, o, l, p);
          c.bytes += r.bytesRead;
          return r;
        },
      });
    },
  };
  return c;
}

const recordLine = (session: string, call: string, extra = ''): string =>
  `${JSON.stringify({ ...inspectRecord(session, call), after: `short${extra}` })}\n`;

describe('the inspector index', () => {
  it('answers an unknown id without reading any inspector file again (regression: every file was read per request)', async () => {
    const dir = stateDir();
    for (let f = 0; f < 4; f++) {
      writeFileSync(
        join(dir, 'inspect', `sidecar-${f}.jsonl`),
        Array.from({ length: 200 }, (_, i) => recordLine(`s${f}`, `c${i}`)).join(''),
      );
    }
    const reads = counting();
    const index = createInspectIndex(dir, { open: reads.open });
    await index.refresh();
    expect(index.size).toBe(800);
    const built = reads.bytes;
    expect(await index.find('nobody:nothing')).toBeNull();
    expect(reads.bytes).toBe(built);
    const hit = await index.find('s2:c17');
    expect(hit?.tool_call_id).toBe('c17');
    // One record read: its own bytes, nothing else.
    expect(reads.bytes - built).toBe(Buffer.byteLength(recordLine('s2', 'c17')) - 1);
  });

  it('reads only what was appended, and a file that shrank again from its start', async () => {
    const dir = stateDir();
    const file = join(dir, 'inspect', 'p.jsonl');
    writeFileSync(file, recordLine('s', 'a'));
    const reads = counting();
    const index = createInspectIndex(dir, { open: reads.open });
    expect((await index.find('s:a'))?.id).toBe('s:a');
    const before = reads.bytes;
    const added = recordLine('s', 'b');
    appendFileSync(file, added);
    expect((await index.find('s:b'))?.id).toBe('s:b');
    expect(reads.bytes - before).toBe(Buffer.byteLength(added) * 2 - 1);
    // The writer's size cap truncates the file and starts again.
    truncateSync(file, 0);
    appendFileSync(file, recordLine('s', 'c'));
    expect(await index.find('s:a')).toBeNull();
    expect((await index.find('s:c'))?.id).toBe('s:c');
  });

  it('waits for a partial last line, keeps the latest copy and skips corrupt lines', async () => {
    const dir = stateDir();
    const file = join(dir, 'inspect', 'p.jsonl');
    const whole = recordLine('s', 'x', ' v2');
    writeFileSync(file, `${recordLine('s', 'x', ' v1')}not json at all\n{"id":"s:broken","bef\n${whole.slice(0, 40)}`);
    const index = createInspectIndex(dir);
    expect((await index.find('s:x'))?.after).toBe('short v1');
    expect(await index.find('s:broken')).toBeNull();
    appendFileSync(file, whole.slice(40));
    expect((await index.find('s:x'))?.after).toBe('short v2');
  });

  it('answers null when there is no inspect folder at all', async () => {
    const d = mkdtempSync(join(tmpdir(), 'hmc-idx-'));
    dirs.push(d);
    expect(await createInspectIndex(d).find('a:b')).toBeNull();
  });
});
