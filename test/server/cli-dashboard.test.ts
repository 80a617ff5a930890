import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createStateDirSink } from '../../src/events/state-dir-sink.js';
import { rawRequest, turnPayload } from './helpers.js';

const RUNNER = join(import.meta.dirname, 'run-cli.ts');

describe('hmc dashboard', () => {
  it('prints its URL, follows the state dir, and stops cleanly on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hmc-cli-dash-'));
    const child = spawn(process.execPath, ['--import', 'tsx', RUNNER, 'dashboard', '--port', '0', '--state-dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
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
      const sink = createStateDirSink({ stateDir: dir, source: 'sidecar-elsewhere', inspector: false, log: () => undefined });
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

  it('refuses a bad --port', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', RUNNER, 'dashboard', '--port', 'abc'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(err).toContain('--port');
  });
});
