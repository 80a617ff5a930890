/**
 * Fault suite, the state dir deleted under a running sidecar (issue 19, finding 6). Sessions and
 * analytics were made again, but the events and `sidecar.log` went on into the deleted files for
 * the rest of the process: 0 of 3 later turn events reached the disk, and nothing was logged. Now
 * each notices (the file gone or replaced at its path), opens a new file there with one log line,
 * and every later event is on disk. Runs the built sidecar (`npm run build`) as the bridge does.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recordFigure, until } from './figures.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BUILT = existsSync(join(ROOT, 'dist', 'cli', 'main.js')) && existsSync(join(ROOT, 'dist', 'app', 'runtime.js'));
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

/** A sidecar process and a way to call it. */
function sidecar(stateDir: string): {
  child: ChildProcessWithoutNullStreams;
  call: (method: string, params: Record<string, unknown>) => Promise<Record<string, unknown>>;
  stderr: () => string;
} {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'hmc.js'), 'sidecar', '--stdio', '--state-dir', stateDir], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const waiting = new Map<number, (r: Record<string, unknown>) => void>();
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString('utf8');
    for (let nl = out.indexOf('\n'); nl >= 0; nl = out.indexOf('\n')) {
      const record = JSON.parse(out.slice(0, nl)) as Record<string, unknown>;
      out = out.slice(nl + 1);
      waiting.get(record.id as number)?.(record);
    }
  });
  child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
  let next = 0;
  const call = (method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> =>
    new Promise((resolve) => {
      const id = ++next;
      waiting.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
    });
  return { child, call, stderr: () => err };
}

function turnEvents(stateDir: string): number[] {
  const dir = join(stateDir, 'events');
  if (!existsSync(dir)) return [];
  const turns: number[] = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.jsonl') && !n.startsWith('inspect'))) {
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) {
      if (!line.includes('"type":"turn"')) continue;
      try {
        turns.push((JSON.parse(line) as { turn: number }).turn);
      } catch {
        // A torn line.
      }
    }
  }
  return turns.sort((a, b) => a - b);
}

describe.skipIf(!BUILT)('fault suite: the state dir deleted under a running sidecar (needs `npm run build`)', () => {
  it('writes the events of 3 of 3 later turns and the sidecar log to new files, with one line saying so', async () => {
    const home = mkdtempSync(join(tmpdir(), 'hmc-gone-'));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    const stateDir = join(home, 'hmc_state');
    const { child, call, stderr } = sidecar(stateDir);
    cleanups.push(() => child.kill('SIGKILL'));
    await call('hello', { host: 'test', protocol: 1, capabilities: [] });
    const messages: Record<string, unknown>[] = [];
    const turn = async (n: number): Promise<void> => {
      messages.push({ role: 'user', content: `step ${n}` });
      await call('pre_llm_call', { session_id: 's', messages, user_message: `step ${n}` });
      messages.push({ role: 'assistant', content: `done ${n}` });
      await call('on_session_end', { session_id: 's', completed: true, interrupted: false, messages });
    };
    await turn(1);
    await until(() => turnEvents(stateDir).includes(1), 10_000);
    expect(existsSync(join(stateDir, 'sidecar.log'))).toBe(true);

    rmSync(stateDir, { recursive: true, force: true });
    const removed = performance.now();
    for (const n of [2, 3, 4]) await turn(n);
    const recoveredMs = await until(() => [2, 3, 4].every((n) => turnEvents(stateDir).includes(n)), 10_000).catch(
      (e: unknown) => {
        throw new Error(`${String(e)}: turns on disk ${JSON.stringify(turnEvents(stateDir))}; stderr: ${stderr()}`);
      },
    );
    expect(turnEvents(stateDir)).toEqual([2, 3, 4]);
    await until(
      () =>
        existsSync(join(stateDir, 'sidecar.log')) &&
        readFileSync(join(stateDir, 'sidecar.log'), 'utf8').includes('was deleted or replaced'),
      10_000,
    );
    const log = readFileSync(join(stateDir, 'sidecar.log'), 'utf8');
    expect(log.match(/sidecar\.log was deleted or replaced/g)).toHaveLength(1);
    expect(stderr().match(/hmc events: .* was deleted or replaced/g)?.length).toBeGreaterThanOrEqual(1);
    child.stdin.end();
    await new Promise((r) => child.on('close', r));
    recordFigure({
      area: 'events',
      fault: 'state dir deleted under a running sidecar',
      lost: 'nothing: 3 of 3 later turn events on disk, sidecar.log reopened',
      recoveredMs: Math.min(recoveredMs, performance.now() - removed),
    });
  });
});
