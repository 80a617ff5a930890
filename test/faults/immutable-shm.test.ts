/**
 * Fault suite, an immutable `-shm` (issue 19, finding 7): root runs `chattr +i` on the analytics
 * database's `-shm` while a sidecar has it mapped. SQLite's next write to that mapping (any
 * transaction, even a read, or the checkpoint of a close) was a SIGBUS: the sidecar died with a
 * hook unanswered and nothing logged. Now every hook is answered, one line says why analytics
 * stopped, the process exits 0, and writing resumes once the flag is gone. Needs root, chattr and a
 * file system that keeps the flag (ext4 here); it skips with a note elsewhere. Runs the built
 * sidecar (`npm run build`).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/db.js';
import { recordFigure, until } from './figures.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BUILT = existsSync(join(ROOT, 'dist', 'cli', 'main.js')) && existsSync(join(ROOT, 'dist', 'app', 'runtime.js'));

/** Why this machine cannot run the test, or null. */
function unavailable(): string | null {
  if (!BUILT) return 'needs `npm run build`';
  if (process.getuid?.() !== 0) return 'chattr +i needs root';
  const dir = mkdtempSync(join(tmpdir(), 'hmc-chattr-'));
  const file = join(dir, 'probe');
  writeFileSync(file, 'x');
  const set = spawnSync('chattr', ['+i', file]);
  spawnSync('chattr', ['-i', file]);
  rmSync(dir, { recursive: true, force: true });
  return set.status === 0
    ? null
    : `chattr +i does not work here (${set.error?.message ?? set.stderr.toString().trim()})`;
}

const skip = unavailable();
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

describe('fault suite: an immutable -shm', () => {
  it.skipIf(skip !== null)(
    `chattr +i on the -shm of a running sidecar: every hook answered, one log line, exit 0${skip ? ` (skipped: ${skip})` : ''}`,
    async () => {
      const home = mkdtempSync(join(tmpdir(), 'hmc-immutable-'));
      const stateDir = join(home, 'hmc_state');
      const shm = join(stateDir, 'analytics.db-shm');
      cleanups.push(() => rmSync(home, { recursive: true, force: true }));
      cleanups.push(() => void spawnSync('chattr', ['-i', shm]));
      const child = spawn(
        process.execPath,
        [join(ROOT, 'bin', 'hmc.js'), 'sidecar', '--stdio', '--state-dir', stateDir],
        { stdio: ['pipe', 'pipe', 'pipe'] },
      );
      cleanups.push(() => child.kill('SIGKILL'));
      let out = '';
      let stderr = '';
      const answers = new Map<number, Record<string, unknown>>();
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString('utf8');
        for (let nl = out.indexOf('\n'); nl >= 0; nl = out.indexOf('\n')) {
          const r = JSON.parse(out.slice(0, nl)) as Record<string, unknown>;
          answers.set(r.id as number, r);
          out = out.slice(nl + 1);
        }
      });
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
      let id = 0;
      const call = async (method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> => {
        const mine = ++id;
        child.stdin.write(`${JSON.stringify({ id: mine, method, params })}\n`);
        await until(() => answers.has(mine) || child.exitCode !== null || child.signalCode !== null, 10_000);
        const answer = answers.get(mine);
        if (!answer)
          throw new Error(
            `no answer to ${method}: the sidecar ended (${child.exitCode ?? child.signalCode}); stderr: ${stderr}`,
          );
        return answer;
      };
      const session = async (sid: string): Promise<void> => {
        await call('post_tool_call', {
          session_id: sid,
          tool_name: 'terminal',
          args: {},
          result: 'line\n'.repeat(200),
          tool_call_id: 'c1',
        });
        await call('pre_llm_call', { session_id: sid, messages: [{ role: 'user', content: 'hi' }] });
        await call('on_session_finalize', { session_id: sid, reason: 'done' });
      };
      await call('hello', { host: 'test', protocol: 1 });
      for (let i = 0; i < 5; i++) await session(`before${i}`);
      await until(() => existsSync(shm), 10_000);

      expect(spawnSync('chattr', ['+i', shm]).status).toBe(0);
      for (let i = 0; i < 10; i++) await session(`during${i}`);
      await until(() => stderr.includes('stopped being writable'), 10_000);
      expect(child.signalCode).toBeNull();
      expect(stderr.match(/analytics: cannot write .* stopped being writable/g)).toHaveLength(1);
      // An index search reads the database: answered too, without touching the mapping.
      const search = await call('hmc_control', { session_id: 'during9', args: { action: 'analytics' } });
      expect(search).toHaveProperty('result');

      expect(spawnSync('chattr', ['-i', shm]).status).toBe(0);
      const freed = performance.now();
      await session('after');
      const recoveredMs = await until(() => stderr.includes('writing to') && stderr.includes('again'), 90_000).then(
        () => performance.now() - freed,
      );
      child.stdin.end();
      const code = await new Promise<number | null>((resolve) =>
        child.on('close', (c, signal) => resolve(signal ? -1 : c)),
      );
      expect(code).toBe(0);
      const store = openStore(join(stateDir, 'analytics.db'), { readonly: true });
      const ids = store.sessions({ limit: 50, offset: 0 }).rows.map((r) => r.session_id);
      store.close();
      expect(ids).toEqual(expect.arrayContaining(['before0', 'during9', 'after']));
      recordFigure({
        area: 'store',
        fault: 'chattr +i on the -shm of a running sidecar',
        lost: 'nothing: every hook answered; sessions waited in memory',
        recoveredMs,
      });
    },
    120_000,
  );
});
