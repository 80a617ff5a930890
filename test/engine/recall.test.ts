import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.js';
import { cleanupRecall, recallId, RecallStore } from '../../src/engine/session/recall.js';
import { NULL_SINK } from '../../src/events/types.js';
import { config, longLog, terminal } from '../helpers/conversation.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'hmc-recall-'));
  dirs.push(d);
  return d;
};
const engineIn = (stateDir: string | null): Engine =>
  new Engine({ config: () => config(), stateDir, sink: NULL_SINK, recorder: null, log: () => {}, autoSettle: false });

describe('recall', () => {
  it('gives back the exact bytes of a shortened output, whole or by the lines its marker names, in a later process', async () => {
    const dir = tempDir();
    const raw = terminal(`${longLog(300, 150)}\n\u{1F389} ünïcode \ud800 tail`);
    const first = engineIn(dir);
    const replaced = first.postToolCall({
      session_id: 'S',
      tool_name: 'terminal',
      args: { command: 'make' },
      result: raw,
      tool_call_id: 'c1',
    }).replace as string;
    const marker = /\(recall id=(r[0-9a-f]{10}) lines=(\d+)-(\d+)\)/.exec(replaced);
    expect(marker).not.toBeNull();
    const [, id, from, to] = marker as RegExpExecArray;
    expect(id).toBe(recallId('S', 'c1'));
    await first.flushSaves();
    const second = engineIn(dir);
    expect(await second.control({ session_id: 'S', args: { action: 'recall', id } })).toEqual({
      id,
      tool: 'terminal',
      content: raw,
    });
    const part = await second.control({ session_id: 'S', args: { action: 'recall', id, lines: `${from}-${to}` } });
    const inner = (JSON.parse(raw) as { output: string }).output.split('\n');
    expect(part).toMatchObject({
      lines: `${from}-${to}`,
      total_lines: inner.length,
      content: inner.slice(Number(from) - 1, Number(to)).join('\n'),
    });
    expect((statSync(join(dir, 'recall', 'S', `${id}.json`)).mode & 0o777).toString(8)).toBe('600');
  });

  it('never returns another session\u2019s output, even when the two ids share a folder name', async () => {
    const dir = tempDir();
    const store = new RecallStore({ stateDir: dir, log: () => {} });
    store.put('a/b', recallId('a/b', 'k'), 'terminal', 'secret of a/b');
    await store.flush();
    const fresh = new RecallStore({ stateDir: dir, log: () => {} });
    expect(fresh.get('a/b', recallId('a/b', 'k'))?.content).toBe('secret of a/b');
    // "a_b" maps to the same folder; the file names its session and the lookup checks it.
    expect(fresh.get('a_b', recallId('a/b', 'k'))).toBeNull();
    const e = engineIn(dir);
    expect(await e.control({ session_id: 'a_b', args: { action: 'recall', id: recallId('a/b', 'k') } })).toMatchObject({
      error: expect.stringContaining('nothing is kept'),
    });
  });

  it('answers a bad id or range with an error naming it', async () => {
    const e = engineIn(null);
    e.postToolCall({
      session_id: 'S',
      tool_name: 'terminal',
      args: {},
      result: terminal(longLog()),
      tool_call_id: 'c1',
    });
    expect(await e.control({ session_id: 'S', args: { action: 'recall' } })).toMatchObject({
      error: expect.stringContaining('id is required'),
    });
    expect(await e.control({ session_id: 'S', args: { action: 'recall', id: '../../etc/passwd' } })).toMatchObject({
      error: expect.stringContaining('nothing is kept'),
    });
    expect(
      await e.control({ session_id: 'S', args: { action: 'recall', id: recallId('S', 'c1'), lines: 'ten' } }),
    ).toMatchObject({ error: expect.stringContaining('lines must look like') });
    expect(
      await e.control({ session_id: 'S', args: { action: 'recall', id: recallId('S', 'c1'), lines: '5' } }),
    ).toMatchObject({ lines: '5-5' });
    // session= names another session: refused (never another session's data), saying how a person reads it (issue 17, finding 5).
    expect(
      await e.control({ session_id: 'S', args: { action: 'recall', id: recallId('S', 'c1'), session: 'OTHER' } }),
    ).toMatchObject({ error: expect.stringMatching(/not session=OTHER; .*--session/) });
    expect(
      await e.control({
        session_id: 'S',
        args: { action: 'recall', id: recallId('S', 'c1'), session: 'S', lines: '5' },
      }),
    ).toMatchObject({ lines: '5-5' });
  });

  it('keeps copies in memory when there is no state dir, and when the disk refuses them', async () => {
    const e = engineIn(null);
    const raw = terminal(longLog());
    e.postToolCall({ session_id: 'S', tool_name: 'terminal', args: {}, result: raw, tool_call_id: 'c1' });
    expect(e.recall.get('S', recallId('S', 'c1'))?.content).toBe(raw);
    const logs: string[] = [];
    // A file where the state dir's folder should be: every write fails.
    const blocked = join(tempDir(), 'not-a-folder');
    writeFileSync(blocked, 'a file');
    const store = new RecallStore({ stateDir: join(blocked, 'state'), log: (l) => logs.push(l) });
    store.put('S', recallId('S', 'k'), 'terminal', 'kept anyway');
    store.put('S', recallId('S', 'k2'), 'terminal', 'kept anyway too');
    await store.flush();
    expect(store.get('S', recallId('S', 'k'))?.content).toBe('kept anyway');
    expect(logs.length).toBe(1);
  });

  it('drops session folders past the retention, oldest first over the size cap', async () => {
    const dir = tempDir();
    const store = new RecallStore({ stateDir: dir, log: () => {} });
    for (const s of ['old', 'mid', 'new']) store.put(s, recallId(s, 'k'), 't', 'x'.repeat(1000));
    await store.flush();
    const now = Date.now();
    const age = (s: string, days: number) =>
      utimesSync(join(dir, 'recall', s), (now - days * 86_400_000) / 1000, (now - days * 86_400_000) / 1000);
    age('old', 30);
    age('mid', 2);
    cleanupRecall(dir, now);
    expect(readdirSync(join(dir, 'recall')).sort()).toEqual(['mid', 'new']);
    cleanupRecall(dir, now, 7 * 86_400_000, 1500);
    expect(readdirSync(join(dir, 'recall'))).toEqual(['new']);
  });
});
