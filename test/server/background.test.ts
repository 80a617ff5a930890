/**
 * The shared background dashboard (issue 9 item 6): started by a process that exits right after
 * (a `hermes chat -q` turn), still answering afterwards; found by status and stop from other
 * processes; one dashboard for two starts at once; stale records and locks never trusted.
 * Every dashboard here is a real detached process running the sources (HMC_DASHBOARD_COMMAND).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { backgroundStatus, startBackground, stopBackground } from '../../src/server/background.js';
import { pidAlive, readRecord, recordPath, writeRecord } from '../../src/server/dashboard-record.js';
import { rawRequest } from './helpers.js';

const TSX = pathToFileURL(join(import.meta.dirname, '..', '..', 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const RUNNER = join(import.meta.dirname, 'run-cli.ts');
const STARTER = join(import.meta.dirname, 'dashboard-starter.ts');
const COMMAND = [process.execPath, '--import', TSX, RUNNER];

let dir = '';
beforeAll(() => {
  // The dashboard processes run the sources, like the tests, not a possibly stale dist/.
  process.env.HMC_DASHBOARD_COMMAND = JSON.stringify(COMMAND);
});
afterEach(async () => {
  const rec = readRecord(recordPath(dir));
  await stopBackground(dir);
  if (rec && pidAlive(rec.pid)) process.kill(rec.pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Runs dashboard-starter.ts in a child process that exits; resolves with its JSON answer. */
function inChild(sub: 'start' | 'status' | 'stop'): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, STARTER, dir, sub], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: process.env,
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the ${sub} process did not exit; stderr: ${err}`));
    }, 40_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`the ${sub} process exited ${code}; stderr: ${err}`));
      const parsed: unknown = JSON.parse(out.trim());
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        return reject(new Error(`not an answer: ${out}`));
      resolve(Object.fromEntries(Object.entries(parsed)));
    });
  });
}

function portOf(url: unknown): number {
  return Number(new URL(String(url)).port);
}

/** The pid of a process that has exited (and was reaped). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((r) => child.once('exit', r));
  return child.pid ?? 999_999;
}

describe('the shared background dashboard', () => {
  it('keeps answering after the process that started it exited, and is found and stopped by others', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hmc-bg-'));
    const started = await inChild('start');
    expect(started).toMatchObject({
      action: 'dashboard',
      sub: 'start',
      running: true,
      detached: true,
      already_running: false,
    });
    await new Promise((r) => setTimeout(r, 1000));
    const health = await rawRequest(portOf(started.url), '/api/health');
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toMatchObject({ ok: true, pid: started.pid });
    expect(await inChild('status')).toMatchObject({ running: true, url: started.url, pid: started.pid });
    expect(await backgroundStatus(dir)).toMatchObject({ running: true, url: started.url });
    expect(existsSync(join(dir, 'dashboard.log'))).toBe(true);

    expect(await inChild('stop')).toMatchObject({ running: false, stopped: started.pid });
    expect(pidAlive(Number(started.pid))).toBe(false);
    expect(existsSync(recordPath(dir))).toBe(false);
    expect(await inChild('status')).toMatchObject({ running: false });
  }, 120_000);

  it('gives one dashboard for two starts at the same moment', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hmc-bg-'));
    const [a, b] = await Promise.all([inChild('start'), inChild('start')]);
    expect(a).toMatchObject({ running: true });
    expect(b).toMatchObject({ running: true, pid: a.pid, url: a.url });
    expect([a.already_running, b.already_running].sort()).toEqual([false, true]);
    expect(readRecord(recordPath(dir))?.pid).toBe(a.pid);
  }, 120_000);

  it('replaces a stale record whose process is dead', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hmc-bg-'));
    const dead = await deadPid();
    writeRecord(recordPath(dir), {
      pid: dead,
      port: 48899,
      url: 'http://127.0.0.1:48899/',
      started_at: 1,
      version: 'old',
    });
    expect(await backgroundStatus(dir)).toMatchObject({ running: false, stale: `process ${dead} is not running` });
    const started = await startBackground({ stateDir: dir, port: 0, configPath: null });
    expect(started).toMatchObject({ running: true, already_running: false });
    expect(started.pid).not.toBe(dead);
    expect((await rawRequest(portOf(started.url), '/api/health')).status).toBe(200);
  }, 60_000);

  it('never trusts or signals a record whose pid was reused by another program', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hmc-bg-'));
    // Alive pid (this test process) and a port answered by a server that is not the dashboard.
    const impostor = createServer((_req, res) => res.end('{"ok":true,"pid":1}'));
    await new Promise<void>((r) => impostor.listen(0, '127.0.0.1', () => r()));
    const address = impostor.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      writeRecord(recordPath(dir), {
        pid: process.pid,
        port,
        url: `http://127.0.0.1:${port}/`,
        started_at: 1,
        version: 'old',
      });
      expect(await backgroundStatus(dir)).toMatchObject({
        running: false,
        stale: `port ${port} is served by another process`,
      });
      expect(await stopBackground(dir)).toMatchObject({
        running: false,
        stale: `port ${port} is served by another process`,
      });
      expect(existsSync(recordPath(dir))).toBe(false); // and this process was not signalled: we are still here
      writeRecord(recordPath(dir), {
        pid: process.pid,
        port,
        url: `http://127.0.0.1:${port}/`,
        started_at: 1,
        version: 'old',
      });
      const started = await startBackground({ stateDir: dir, port: 0, configPath: null });
      expect(started).toMatchObject({ running: true, already_running: false });
      expect(started.pid).not.toBe(process.pid);
    } finally {
      await new Promise((r) => impostor.close(r));
    }
  }, 60_000);

  it('breaks a lock left by a process that died mid-start', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hmc-bg-'));
    writeFileSync(join(dir, 'dashboard.lock'), JSON.stringify({ pid: await deadPid(), nonce: 'x', time: Date.now() }));
    const started = await startBackground({ stateDir: dir, port: 0, configPath: null });
    expect(started).toMatchObject({ running: true });
    expect(existsSync(join(dir, 'dashboard.lock'))).toBe(false);
  }, 60_000);

  it('reports a dashboard that cannot start, with the last line of its log', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hmc-bg-'));
    const answer = await startBackground({
      stateDir: dir,
      port: 0,
      configPath: null,
      hmcCommand: [process.execPath, '-e', 'console.error("boom: no build"); process.exit(2)'],
    });
    expect(answer).toMatchObject({ running: false, log: join(dir, 'dashboard.log') });
    expect(String(answer.error)).toContain('exit code 2');
    expect(String(answer.error)).toContain('boom: no build');
  }, 60_000);
});
