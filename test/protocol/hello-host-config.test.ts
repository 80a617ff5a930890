/**
 * The host config file over the real wire (issue 23, point 4): the built sidecar answers `hello`'s
 * `host_config` from the file named as `host_config_file` (the bridge's name now) and as
 * `hermes_config` (an older bridge's), and from neither for a host it does not know.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const BUILT = existsSync(join(ROOT, 'dist', 'cli', 'main.js'));

/** The built sidecar's answer to one hello with these params. */
function helloOver(params: Record<string, unknown>, home: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [join(ROOT, 'bin', 'hmc.js'), 'sidecar', '--stdio', '--state-dir', join(home, 'hmc_state')],
      {
        env: { ...process.env, HERMES_HOME: home },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', () => {
      const line = stdout.split('\n').find((l) => l.includes('"id":1'));
      resolve(line ? (JSON.parse(line) as { result: Record<string, unknown> }).result : {});
    });
    child.stdin.end(`${JSON.stringify({ id: 1, method: 'hello', params: { protocol: 1, ...params } })}\n`);
  });
}

describe.skipIf(!BUILT)('hello over the wire: the host config file (needs `npm run build`)', () => {
  it('reads host_config_file for Hermes, still reads hermes_config, and reads nothing for an unknown host', async () => {
    const home = mkdtempSync(join(tmpdir(), 'hmc-hello-wire-'));
    const file = join(home, 'config.yaml');
    writeFileSync(file, 'model:\n  context_length: 65536\ncompression:\n  threshold: 0.7\n');
    const figures = { context_length: 65536, compression_threshold: 0.7 };
    const [now, older, unknown] = await Promise.all([
      helloOver({ host: 'hermes', host_config_file: file }, home),
      helloOver({ host: 'hermes', hermes_config: file }, home),
      helloOver({ host: 'other', host_config_file: file }, home),
    ]);
    expect(now.host_config).toEqual(figures);
    expect(older.host_config).toEqual(figures);
    expect(unknown.host_config).toBeUndefined();
    expect(unknown.capabilities).toEqual(now.capabilities);
  });
});
