/**
 * `hmc control recall id=… session=ID` (issue 17, finding 5): `session=` was handed to the action,
 * which ignored it, and the answer said nothing was kept although the copy was on disk. It now
 * names the session to act on, as `--session`; a recall asked of the wrong session says how to read
 * another one's copy (`--session`), and two different sessions named at once are a usage error.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.js';
import { NULL_SINK } from '../../src/events/types.js';
import { config, longLog, terminal } from '../helpers/conversation.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'hmc.js');
const built = existsSync(join(ROOT, 'dist', 'cli', 'main.js'));

describe.skipIf(!built)('hmc control and the session it acts on', () => {
  let dir = '';
  let id = '';
  const raw = terminal(longLog(300, 150));
  const hmc = (...args: string[]) =>
    spawnSync(process.execPath, [BIN, 'control', ...args, '--state-dir', dir], { encoding: 'utf8', timeout: 60_000 });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hmc-ctl-'));
    // Two sessions saved; OLD holds the copy, NEW is the latest (what `hmc control` picks by itself).
    for (const sid of ['OLD', 'NEW']) {
      const e = new Engine({
        config: () => config(),
        stateDir: dir,
        sink: NULL_SINK,
        recorder: null,
        log: () => {},
        autoSettle: true,
      });
      const replaced = e.postToolCall({
        session_id: sid,
        tool_name: 'terminal',
        args: { command: 'make' },
        result: raw,
        tool_call_id: 'c1',
      }).replace;
      if (sid === 'OLD') id = /recall id=(r[0-9a-f]{10})/.exec(String(replaced))?.[1] ?? '';
      e.onSessionEnd({ session_id: sid });
      await Promise.all([e.flushSaves(), e.recall.flush()]);
      await new Promise((resolve) => setTimeout(resolve, 20)); // NEW saved after OLD
    }
    expect(id).toMatch(/^r[0-9a-f]{10}$/);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads another session\u2019s copy with session= as with --session', () => {
    for (const named of [['session=OLD'], ['--session', 'OLD'], ['session=OLD', '--session', 'OLD']]) {
      const r = hmc('recall', `id=${id}`, ...named, '--json');
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ id, tool: 'terminal', content: raw });
    }
  });

  it('writes the original alone on stdout as text, byte for byte, and what it is on stderr', () => {
    const r = hmc('recall', `id=${id}`, '--session', 'OLD');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(raw);
    expect(r.stderr).toBe(`recall ${id}: the exact original of a terminal output\n`);
  });

  it('names --session when the copy is another session\u2019s, and refuses two sessions at once', () => {
    const r = hmc('recall', `id=${id}`);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^hmc control: nothing is kept .*--session/);
    expect(JSON.parse(hmc('recall', `id=${id}`, '--json').stdout).error).toMatch(/nothing is kept .*--session/);
    const two = hmc('recall', `id=${id}`, 'session=OLD', '--session', 'NEW');
    expect(two.status).toBe(2);
    expect(two.stderr).toContain('name two sessions');
    const missing = hmc('recall', `id=${id}`, 'session=NOPE');
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/no session "NOPE" saved .*--session/);
  });
});
