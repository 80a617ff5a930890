import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createStateDirSink } from '../../src/events/state-dir-sink.js';
import { rawRequest, turnPayload } from './helpers.js';

const RUNNER = join(import.meta.dirname, 'run-cli.ts');

describe('hmc dashboard', () => {
  it('prints its URL, follows the state dir, and stops cleanly on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hmc-cli-dash-'));
    const child = spawn(process.execPath, ['--import', 'tsx', RUNNER, 'dashboard', '--port', '0', '--state-dir', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (c: string) => {
          out += c;
          const m = /^(http:\/\/127\.0\.0\.1:\d+\/)\n/.exec(out);
          if (m?.[1]) resolve(m[1]);
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}`)));
        setTimeout(() => reject(new Error(`no URL; stdout: ${out}`)), 20_000);
      });
      const port = Number(new URL(url).port);
      expect((await rawRequest(port, '/api/health')).status).toBe(200);
      const sink = createStateDirSink({
        stateDir: dir,
        source: 'sidecar-elsewhere',
        inspector: false,
        log: () => undefined,
      });
      sink.emit(turnPayload('from-sidecar', 3, 1234));
      await sink.close();
      const end = Date.now() + 5000;
      let body = '';
      while (Date.now() < end) {
        body = (await rawRequest(port, '/api/summary')).body;
        if (body.includes('from-sidecar')) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(JSON.parse(body)).toHaveProperty('current.saved', 1234);
      const code = await new Promise<number | null>((resolve) => {
        child.once('exit', (c) => resolve(c));
        child.kill('SIGTERM');
      });
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('start, status and stop the shared background dashboard from the shell', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hmc-cli-dash-'));
    const tsx = pathToFileURL(join(import.meta.dirname, '..', '..', 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
    const env = { ...process.env, HMC_DASHBOARD_COMMAND: JSON.stringify([process.execPath, '--import', tsx, RUNNER]) };
    const run = (...args: string[]) =>
      new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', RUNNER, 'dashboard', ...args, '--port', '0', '--state-dir', dir],
          { stdio: ['ignore', 'pipe', 'pipe'], env },
        );
        let out = '';
        let err = '';
        child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
        child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
        child.once('exit', (code) => resolve({ code, out, err }));
      });
    try {
      const started = await run('start');
      expect(started.code, started.err).toBe(0);
      expect(started.out).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\n$/);
      expect(started.err).toContain('started in the background');
      expect((await rawRequest(Number(new URL(started.out.trim()).port), '/api/health')).status).toBe(200);
      expect(await run('status')).toMatchObject({ code: 0, out: started.out });
      // --json: the whole answer for scripts, the same exit codes.
      const json = await run('status', '--json');
      expect(json.code).toBe(0);
      expect(JSON.parse(json.out)).toMatchObject({
        running: true,
        url: started.out.trim(),
        detached: true,
        log: join(dir, 'dashboard.log'),
      });
      expect((await run('start')).err).toContain('already running');
      const stopped = await run('stop');
      expect(stopped).toMatchObject({ code: 0 });
      expect(stopped.err).toContain('stopped (pid');
      expect(await run('status')).toMatchObject({ code: 3, out: '' });
      const none = await run('status', '--json');
      expect([none.code, JSON.parse(none.out)]).toEqual([3, { running: false }]);
    } finally {
      await run('stop');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('refuses a bad --port', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', RUNNER, 'dashboard', '--port', 'abc'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(err).toContain('--port');
  });
});
