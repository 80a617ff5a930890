/**
 * `hmc demo [--port N] [--state-dir D] [--pace MS] [--once]`: the whole product on a machine
 * without Hermes. Starts the dashboard (its URL printed on a line of its own as soon as it
 * listens), plays a few sessions quickly for history (dated over the past days so the day chart
 * has bars), then one at a watchable pace, live. Every tool output is produced on the spot from
 * this project's own files and goes through the real hooks, engine, SQLite file and dashboard.
 *
 * Invariant: a state dir the demo made for itself (no --state-dir) is removed when it ends, by
 * Ctrl-C, SIGTERM or an error as well (issue 11: it was left behind on Ctrl-C).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { defaultConfig } from '../config/keys.js';
import { demoScripts, playSession } from '../demo/agent.js';
import { createRuntime } from '../app/runtime.js';
import type { Command } from './command.js';

const DAY = 24 * 60 * 60 * 1000;
const USAGE = `usage: hmc demo [--port N] [--state-dir D] [--pace MS] [--once] [--no-history]
  --port N        first port tried for the dashboard (default 48800; 0 lets the system pick)
  --state-dir D   keep the demo's files there (default: a temporary folder, removed on exit)
  --pace MS       pause between the live session's steps (default 1200)
  --once          exit when the live session ends instead of keeping the dashboard up
  --no-history    skip the earlier sessions played for the charts
`;

export const command: Command = {
  summary: 'record a session on this project and watch it live',
  usage: USAGE,
  async run(argv) {
    const { values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        'state-dir': { type: 'string' },
        pace: { type: 'string', default: '1200' },
        once: { type: 'boolean', default: false },
        'no-history': { type: 'boolean', default: false },
      },
    });
    const port = values.port === undefined ? 48800 : Number(values.port);
    const pace = Number(values.pace);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      return usage(`--port must be a port number (0-65535), got ${values.port}`);
    if (!Number.isFinite(pace) || pace < 0) return usage(`--pace must be milliseconds (0 or more), got ${values.pace}`);
    const temporary = !values['state-dir'];
    const stateDir = values['state-dir'] ? resolve(values['state-dir']) : mkdtempSync(join(tmpdir(), 'hmc-demo-'));
    const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
    // From here on a signal ends the demo through the finally below, which cleans up.
    const controller = new AbortController();
    const stop = () => controller.abort();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    let runtime: Awaited<ReturnType<typeof createRuntime>> | null = null;
    try {
      // History sessions are played now but dated over the past days; the live one is dated now.
      let offset = 0;
      runtime = await createRuntime({
        stateDir,
        config: defaultConfig(),
        dashboard: 'in-process',
        dashboardPort: port,
        now: () => Date.now() + offset,
        log: (l) => process.stderr.write(`${l}\n`),
      });
      if (controller.signal.aborted) return 0;
      const started = await runtime.api.control({ args: { action: 'dashboard', sub_action: 'start' } });
      if (typeof started.url !== 'string') {
        process.stderr.write(`hmc demo: the dashboard did not start: ${String(started.error ?? 'unknown error')}\n`);
        return 1;
      }
      process.stdout.write(`${started.url}\n`);
      process.stderr.write(
        `hmc demo: state dir ${stateDir}${temporary ? ' (temporary, removed on exit)' : ''}; open the URL above (Ctrl-C stops)\n`,
      );

      const scripts = demoScripts(root);
      if (!values['no-history']) {
        const plays = [...scripts, ...scripts];
        for (let i = 0; i < plays.length && !controller.signal.aborted; i++) {
          offset = -(plays.length - i) * DAY + i * 60_000;
          await playSession({
            engine: runtime.engine,
            root,
            sessionId: `demo-history-${i + 1}-${plays[i]?.name}`,
            script: plays[i] as (typeof scripts)[number],
            pace: 0,
            signal: controller.signal,
          });
        }
        offset = 0;
        await runtime.flush();
        process.stderr.write(`hmc demo: ${plays.length} earlier sessions recorded; now playing one live\n`);
      }
      const live = scripts[0] as (typeof scripts)[number];
      await playSession({
        engine: runtime.engine,
        root,
        sessionId: `demo-live-${Date.now().toString(36)}`,
        script: live,
        pace,
        signal: controller.signal,
      });
      await runtime.flush();
      process.stderr.write('hmc demo: the live session ended; the dashboard keeps running (Ctrl-C stops)\n');
      if (!values.once && !controller.signal.aborted)
        await new Promise<void>((done) => controller.signal.addEventListener('abort', () => done()));
      return 0;
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      await runtime?.close();
      if (temporary) rmSync(stateDir, { recursive: true, force: true });
    }
  },
};

function usage(message: string): number {
  process.stderr.write(`hmc demo: ${message}\n${USAGE}`);
  return 2;
}
