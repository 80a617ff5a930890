/**
 * A runtime as the sidecar starts it: config, state dir, SQLite, events and the dashboard started
 * and stopped through hmc_control, over a real HTTP server.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/keys.js';
import { createRuntime, type Runtime } from '../../src/app/runtime.js';
import { assistantCall, longLog, terminal, toolResult, user } from '../helpers/conversation.js';

let runtime: Runtime | null = null;
let dir = '';
afterEach(async () => {
  await runtime?.close();
  runtime = null;
  rmSync(dir, { recursive: true, force: true });
});

describe('runtime', () => {
  it('starts, reports and stops an in-process dashboard through hmc_control, in both spellings (hmc demo)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hmc-runtime-'));
    runtime = await createRuntime({
      stateDir: dir,
      config: defaultConfig(),
      dashboard: 'in-process',
      dashboardPort: 0,
      log: () => {},
    });
    const started = await runtime.api.control({ args: { action: 'dashboard', sub_action: 'start' } });
    expect(started).toMatchObject({ action: 'dashboard', sub: 'start', running: true, host: '127.0.0.1' });
    const url = String(started.url);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect((await fetch(url)).status).toBe(200);
    expect(await runtime.api.control({ args: { action: 'dashboard' } })).toMatchObject({
      sub: 'status',
      running: true,
      url,
    });
    expect(await runtime.api.command({ raw_args: 'dashboard action=status' })).toBe(`HMC dashboard: ${url} (running)`);
    expect(await runtime.api.control({ args: { action: 'dashboard', sub_action: 'stop' } })).toMatchObject({
      running: false,
    });
    await expect(fetch(url)).rejects.toThrow();
  });

  it('records a session into SQLite at each turn end without double counting', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hmc-runtime-'));
    runtime = await createRuntime({ stateDir: dir, config: defaultConfig(), log: () => {} });
    const messages = [
      user('build'),
      assistantCall('a', 'terminal', { command: 'make' }),
      toolResult('a', 'terminal', terminal(longLog())),
      { role: 'assistant', content: 'done' },
      user('again'),
    ];
    runtime.api.preLlmCall({ session_id: 's1', messages: messages.slice(0, 1) });
    runtime.api.onSessionEnd({ session_id: 's1' });
    runtime.api.preLlmCall({ session_id: 's1', messages });
    runtime.api.onSessionEnd({ session_id: 's1' });
    runtime.api.onSessionEnd({ session_id: 's1' });
    await runtime.flush();
    expect(existsSync(join(dir, 'analytics.db'))).toBe(true);
    const summary = await runtime.api.control({ session_id: 's1', args: { action: 'analytics' } });
    expect(summary.total_sessions).toBe(1);
    const stats = await runtime.api.control({ session_id: 's1', args: { action: 'stats' } });
    expect(summary.total_saved).toBe((stats.input_saved as { tokens: number }).tokens);
    expect(Number(summary.savings_pct)).toBeGreaterThan(0);
  });

  it('creates no database when analytics are off', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hmc-runtime-'));
    const config = defaultConfig();
    config.analytics.enabled = false;
    runtime = await createRuntime({ stateDir: dir, config, log: () => {} });
    runtime.api.preLlmCall({
      session_id: 's',
      messages: [
        user('x'),
        assistantCall('a', 'terminal', {}),
        toolResult('a', 'terminal', terminal(longLog())),
        { role: 'assistant', content: '.' },
      ],
    });
    runtime.api.onSessionFinalize({ session_id: 's' });
    await runtime.flush();
    expect(existsSync(join(dir, 'analytics.db'))).toBe(false);
    expect(await runtime.api.control({ args: { action: 'analytics' } })).toEqual({
      error: 'analytics is disabled (analytics.enabled: false)',
    });
  });
});
