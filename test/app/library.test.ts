/**
 * The package's `main` is what the build makes of src/app/library.ts, and a TypeScript host can run a
 * turn through it: a long tool output is shortened for the model call and restored exactly after.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRuntime, defaultConfig, InProcessHost, type Message } from '../../src/app/library.js';

const ROOT = join(import.meta.dirname, '..', '..');

describe('the library face', () => {
  it('names a main, types and export the build makes (src/app/library.ts)', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      main: string;
      types: string;
      exports: Record<string, string>;
    };
    const source = (built: string) =>
      join(ROOT, built.replace(/^(\.\/)?dist\//, 'src/').replace(/\.d\.ts$|\.js$/, '.ts'));
    for (const built of [pkg.main, pkg.types, pkg.exports['.'] ?? ''])
      expect(existsSync(source(built)), built).toBe(true);
    // After a build (npm test builds first), the files themselves.
    if (existsSync(join(ROOT, 'dist')))
      for (const built of [pkg.main, pkg.types]) expect(existsSync(join(ROOT, built)), built).toBe(true);
  });

  it('runs a turn for an in-process host: shortened for the call, restored exactly', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'hmc-lib-'));
    const config = defaultConfig();
    config.analytics.enabled = false;
    const runtime = await createRuntime({ stateDir, config, log: () => {} });
    try {
      const host = new InProcessHost(runtime.api);
      const log = Array.from({ length: 400 }, (_, i) => `ok step ${i}: compiled module_${i}.ts in ${i % 17} ms`).join(
        '\n',
      );
      const messages: Message[] = [
        { role: 'user', content: 'build it' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'terminal', arguments: '{"command":"make"}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: log },
      ];
      const before = JSON.stringify(messages);
      host.preLlmCall('lib-1', messages, { model: 'm', context_length: 128_000 });
      const sent = messages[2]?.content;
      expect(typeof sent === 'string' && sent.length < log.length).toBe(true);
      host.restore('lib-1');
      expect(JSON.stringify(messages)).toBe(before);
    } finally {
      await runtime.close();
      rmSync(stateDir, { recursive: true, force: true });
    }
  });
});
