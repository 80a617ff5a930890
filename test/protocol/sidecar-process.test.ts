import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const BUILT = existsSync(join(ROOT, 'dist', 'cli', 'main.js')) && existsSync(join(ROOT, 'dist', 'app', 'runtime.js'));

/** Runs the built sidecar as the bridge does, feeds it `input`, closes stdin, collects everything. */
function runSidecar(
  input: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string; stateDir: string }> {
  const home = mkdtempSync(join(tmpdir(), 'hmc-sidecar-'));
  const stateDir = join(home, 'hmc_state');
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [join(ROOT, 'bin', 'hmc.js'), 'sidecar', '--stdio', '--state-dir', stateDir],
      {
        env: { ...process.env, HERMES_HOME: home, ...env },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('close', (code) => resolve({ code, stdout, stderr, stateDir }));
    child.stdin.end(input);
  });
}

describe.skipIf(!BUILT)('hmc sidecar --stdio (the built process; needs `npm run build`)', () => {
  it('writes only protocol records to stdout, answers bad lines, and exits 0 when stdin closes', async () => {
    const long = Array.from({ length: 400 }, (_, i) => `test_${i} PASSED \u2028 line`).join('\r\n');
    const lines = [
      JSON.stringify({ id: 1, method: 'hello', params: { host: 'test', protocol: 1, capabilities: ['append'] } }),
      'this is not json',
      JSON.stringify({ id: 2, method: 'no_such_method', params: {} }),
      JSON.stringify({
        id: 3,
        method: 'post_tool_call',
        params: {
          session_id: 's',
          tool_name: 'terminal',
          args: { command: 'pytest' },
          result: JSON.stringify({ output: long, exit_code: 0 }),
          tool_call_id: 'c1',
        },
      }),
      JSON.stringify({
        id: 4,
        method: 'pre_llm_call',
        params: { session_id: 's', messages: [{ role: 'user', content: 'hi' }] },
      }),
      JSON.stringify({ id: 5, method: 'pre_llm_call', params: { session_id: 's', base: 99, append: [] } }),
      JSON.stringify({ id: 6, method: 'command', params: { raw_args: 'status' } }),
    ];
    const { code, stdout, stderr, stateDir } = await runSidecar(`${lines.join('\r\n')}`); // CRLF, no final newline
    expect(code).toBe(0);
    const records = stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.every((r) => 'id' in r && ('result' in r || 'error' in r))).toBe(true);
    const byId = new Map(records.map((r) => [r.id, r]));
    expect(byId.get(1)).toMatchObject({ result: { protocol: 1 } });
    expect(byId.get(null)).toMatchObject({ error: { code: 'parse_error' } });
    expect(byId.get(2)).toMatchObject({ error: { code: 'unknown_method' } });
    expect(byId.get(3)).toHaveProperty('result');
    expect(byId.get(4)).toMatchObject({ result: { edits: [] } });
    expect(byId.get(5)).toMatchObject({ error: { code: 'resync' } });
    expect(typeof byId.get(6)?.result).toBe('string');
    expect(stderr).toContain('started');
    expect(readFileSync(join(stateDir, 'sidecar.log'), 'utf8')).toContain('stdin closed');
  });

  it('reads the config $HMC_CONFIG names when the bridge gives no --config (it gave its own before, so the variable was ignored)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hmc-config-'));
    const file = join(dir, 'hmc.yaml');
    writeFileSync(file, 'no_such_section:\n  enabled: true\n');
    const lines = [
      JSON.stringify({ id: 1, method: 'hello', params: { host: 'test', protocol: 1 } }),
      JSON.stringify({ id: 2, method: 'hmc_control', params: { args: { action: 'config' } } }),
    ];
    const { stdout } = await runSidecar(lines.join('\n'), { HMC_CONFIG: file });
    const answer = stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { id: number; result?: { issues?: string[] } })
      .find((r) => r.id === 2);
    expect(JSON.stringify(answer?.result?.issues ?? [])).toContain('no_such_section');
  });

  it('sends tool_calls edits to the replay bench, which lists no capabilities, and to a host that lists them; never to one that does not', async () => {
    const body = Array.from({ length: 60 }, (_, i) => `export const v${i} = ${i};`).join('\n');
    const messages: unknown[] = [{ role: 'user', content: 'build' }];
    for (let i = 0; i < 12; i++) {
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: `w${i}`,
            type: 'function',
            function: { name: 'Write', arguments: JSON.stringify({ file_path: `src/f${i}.ts`, content: body }) },
          },
        ],
      });
      messages.push({ role: 'tool', tool_call_id: `w${i}`, content: 'File created' });
    }
    const edited = async (hello: Record<string, unknown>): Promise<unknown[]> => {
      const lines = [
        JSON.stringify({ id: 1, method: 'hello', params: { protocol: 1, ...hello } }),
        JSON.stringify({ id: 2, method: 'pre_model_call', params: { session_id: 's', messages } }),
      ];
      const { stdout } = await runSidecar(`${lines.join('\n')}\n`);
      const answer = stdout
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as { id: number; result?: { edits?: { tool_calls?: unknown }[] } })
        .find((r) => r.id === 2);
      return (answer?.result?.edits ?? []).filter((e) => e.tool_calls !== undefined);
    };
    expect((await edited({ host: 'replay-bench' })).length).toBeGreaterThan(0);
    expect(
      (await edited({ host: 'hermes', capabilities: ['append', 'model_call', 'tool_calls'] })).length,
    ).toBeGreaterThan(0);
    expect(await edited({ host: 'hermes', capabilities: ['append', 'model_call'] })).toEqual([]);
  });
});
