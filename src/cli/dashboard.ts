/**
 * `hmc dashboard [--port N] [--state-dir D] [--config PATH]`: the dashboard on its own, over a
 * state dir: it follows every process's event files and reads the analytics database read-only.
 *
 * Invariant: stdout gets the URL on a line of its own as soon as the server listens, and nothing
 * else; SIGINT/SIGTERM stop the server cleanly (exit 0).
 */
import type { Command } from './main.js';
import { loadConfigFile } from '../config/load.js';
import { resolveConfigPath, resolveDbPath, resolveStateDir } from '../config/paths.js';
import { startDashboard } from '../server/index.js';
import { VERSION } from '../version.js';

const USAGE = 'usage: hmc dashboard [--port N] [--state-dir D] [--config PATH]\n';

interface Args {
  port?: number;
  stateDir?: string;
  configPath?: string;
}

function parseArgs(argv: string[]): Args | string {
  const out: Args = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    const [flag, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = (): string | undefined => inline ?? argv[++i];
    if (flag === '--port') {
      const v = value();
      if (v === undefined || !/^\d+$/.test(v) || Number(v) > 65535) return '--port must be a whole number from 0 to 65535';
      out.port = Number(v);
    } else if (flag === '--state-dir') {
      const v = value();
      if (!v) return '--state-dir needs a directory';
      out.stateDir = v;
    } else if (flag === '--config') {
      const v = value();
      if (!v) return '--config needs a file';
      out.configPath = v;
    } else if (flag === '--help' || flag === '-h') {
      return '';
    } else {
      return `unknown option ${JSON.stringify(a)}`;
    }
  }
  return out;
}

export const command: Command = {
  summary: 'the live dashboard over a state dir',
  async run(argv) {
    const args = parseArgs(argv);
    if (typeof args === 'string') {
      if (args) process.stderr.write(`hmc dashboard: ${args}\n`);
      process.stderr.write(USAGE);
      return args ? 2 : 0;
    }
    const log = (line: string): void => void process.stderr.write(`${line}\n`);
    const loaded = loadConfigFile(resolveConfigPath(args.configPath));
    for (const issue of loaded.issues) log(`hmc: config: ${issue.message}`);
    const config = loaded.config;
    const stateDir = resolveStateDir(args.stateDir);
    const handle = await startDashboard({
      stateDir,
      port: args.port ?? config.dashboard.port,
      maxClients: config.dashboard.max_clients,
      dbPath: config.analytics.enabled ? resolveDbPath(config.analytics.db_path, stateDir) : null,
      pricing: config.pricing,
      log,
      version: VERSION,
    });
    process.stdout.write(`${handle.url}\n`);
    log(`hmc dashboard: following ${stateDir} (Ctrl-C to stop)`);
    return await new Promise<number>((resolve) => {
      const stop = (): void => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        handle.stop().then(() => resolve(0), () => resolve(1));
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
  },
};
