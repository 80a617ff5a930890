/**
 * `hmc dashboard [start|stop|status] [--port N] [--state-dir D] [--config PATH] [--pid-file F]`:
 * the dashboard on its own, over a state dir: it follows every process's event files and reads
 * the analytics database read-only. Without a word it runs in the foreground; `start` runs it as
 * the state dir's shared background process (src/server/background.ts), `stop` and `status` find
 * that one again.
 *
 * Run in the background (--pid-file) it leaves by itself once orphaned: its files gone, or the
 * Hermes plugin it serves disabled (app/dashboard-orphan.ts), with one log line saying why.
 *
 * Invariant: stdout gets the URL on a line of its own as soon as the server listens, and nothing
 * else (with `--json`, start/stop/status write their answer as one JSON object instead); SIGINT/SIGTERM stop the server cleanly (exit 0) and remove its --pid-file record.
 */
import { invokedAs } from './args.js';
import type { Command } from './command.js';
import { loadConfigFile } from '../config/load.js';
import { resolveConfigPath, resolveDbPath } from '../config/paths.js';
import { resolveStateDir } from '../hosts/state-dir.js';
import { join, resolve } from 'node:path';
import { ownPackageRoot, watchOrphan } from '../app/dashboard-orphan.js';
import { pluginWatchOf } from '../hosts/index.js';
import { backgroundStatus, startBackground, stopBackground } from '../server/background.js';
import { removeRecordOf, writeRecord } from '../server/dashboard-record.js';
import { startDashboard } from '../server/index.js';
import { envHeaders } from '../server/otlp.js';
import { VERSION } from '../core/version.js';

const USAGE = `usage: hmc dashboard [start|stop|status] [--port N] [--state-dir D] [--config PATH] [--pid-file F] [--json]
  (no word)  run in the foreground until Ctrl-C
  start      run as the state dir's shared background process (log: <state dir>/dashboard.log)
  stop       stop that background process
  status     print its URL (exit 0), or say it is not running (exit 3)
  --json     with start, stop or status: the answer as JSON on stdout (running, url, pid, log…)
`;

const WORDS = ['start', 'stop', 'status'] as const;
type Word = (typeof WORDS)[number];

interface Args {
  word?: Word;
  port?: number;
  stateDir?: string;
  configPath?: string;
  pidFile?: string;
  json?: boolean;
}

function parseArgs(argv: string[]): Args | string {
  const out: Args = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    const [flag, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = (): string | undefined => inline ?? argv[++i];
    if (flag === '--port') {
      const v = value();
      if (v === undefined || !/^\d+$/.test(v) || Number(v) > 65535)
        return '--port must be a whole number from 0 to 65535';
      out.port = Number(v);
    } else if (flag === '--state-dir') {
      const v = value();
      if (!v) return '--state-dir needs a directory';
      out.stateDir = v;
    } else if (flag === '--config') {
      const v = value();
      if (!v) return '--config needs a file';
      out.configPath = v;
    } else if (flag === '--pid-file') {
      const v = value();
      if (!v) return '--pid-file needs a file';
      out.pidFile = v;
    } else if (a === '--json') {
      out.json = true;
    } else if (flag === '--help' || flag === '-h') {
      return '';
    } else if (!a.startsWith('-') && out.word === undefined && WORDS.some((w) => w === a)) {
      out.word = WORDS.find((w) => w === a);
    } else {
      return `unknown option ${JSON.stringify(a)}`;
    }
  }
  return out;
}

export const command: Command = {
  summary: 'the live dashboard over a state dir',
  usage: USAGE,
  async run(argv) {
    const args = parseArgs(argv);
    if (typeof args === 'string') {
      if (args) process.stderr.write(`hmc dashboard: ${args}\n`);
      process.stderr.write(USAGE);
      return args ? 2 : 0;
    }
    const log = (line: string): void => void process.stderr.write(`${line}\n`);
    // Not checked for existence: a sidecar starts the background dashboard with its own --config,
    // which may well be absent (the defaults apply).
    const loaded = loadConfigFile(resolveConfigPath(args.configPath));
    for (const issue of loaded.issues) log(`hmc: config: ${issue.message}`);
    const config = loaded.config;
    const stateDir = resolveStateDir(args.stateDir);
    if (args.json && !args.word) {
      process.stderr.write(`hmc dashboard: --json goes with start, stop or status\n${USAGE}`);
      return 2;
    }
    if (args.word)
      return background(
        args.word,
        stateDir,
        args.port ?? config.dashboard.port,
        resolveConfigPath(args.configPath),
        args.stateDir,
        args.json === true,
      );
    const handle = await startDashboard({
      stateDir,
      port: args.port ?? config.dashboard.port,
      maxClients: config.dashboard.max_clients,
      dbPath: config.analytics.enabled ? resolveDbPath(config.analytics.db_path, stateDir) : null,
      pricing: config.pricing,
      log,
      version: VERSION,
      otlp: {
        endpoint: config.dashboard.otlp.endpoint,
        intervalSeconds: config.dashboard.otlp.interval_seconds,
        headers: envHeaders(process.env.OTEL_EXPORTER_OTLP_HEADERS),
      },
    });
    const pidFile = args.pidFile ? resolve(args.pidFile) : null;
    if (pidFile)
      writeRecord(pidFile, {
        pid: process.pid,
        port: handle.port,
        url: handle.url,
        started_at: handle.started_at,
        version: VERSION,
      });
    process.stdout.write(`${handle.url}\n`);
    log(
      `hmc dashboard: following ${stateDir} (${pidFile ? `pid ${process.pid}, record ${pidFile}` : 'Ctrl-C to stop'})`,
    );
    // In the background: it leaves by itself once orphaned (its files gone, its Hermes plugin disabled).
    const host = pidFile ? pluginWatchOf() : null;
    if (pidFile)
      log(
        `hmc dashboard: exits by itself when ${join(ownPackageRoot(), 'bin', 'hmc.js')} is gone${host ? ` or ${host.what}` : ''}`,
      );
    return await new Promise<number>((done) => {
      const unwatch = pidFile
        ? watchOrphan({ packageRoot: ownPackageRoot(), host }, (why) => {
            log(`hmc dashboard: exiting: ${why}`);
            stop();
          })
        : () => {};
      const stop = (): void => {
        unwatch();
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        if (pidFile) removeRecordOf(pidFile, process.pid);
        handle.stop().then(
          () => done(0),
          () => done(1),
        );
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
  },
};

/** `start`, `stop`, `status` of the state dir's shared background dashboard. */
async function background(
  word: Word,
  stateDir: string,
  port: number,
  configPath: string | null,
  stateDirGiven: string | undefined,
  json: boolean,
): Promise<number> {
  if (json) {
    const s =
      word === 'status'
        ? await backgroundStatus(stateDir)
        : word === 'stop'
          ? await stopBackground(stateDir)
          : await startBackground({ stateDir, port, configPath });
    process.stdout.write(`${JSON.stringify(s, null, 2)}\n`);
    if (word === 'status') return s.running === true ? 0 : 3;
    return word === 'start' && s.running !== true ? 1 : 0;
  }
  if (word === 'status') {
    const s = await backgroundStatus(stateDir);
    if (s.running === true && typeof s.url === 'string') {
      process.stdout.write(`${s.url}\n`);
      process.stderr.write(`hmc dashboard: running in the background (pid ${String(s.pid)}, log ${String(s.log)})\n`);
      return 0;
    }
    process.stderr.write(
      `hmc dashboard: not running${typeof s.stale === 'string' ? ` (a stale record: ${s.stale})` : ''}\n`,
    );
    return 3;
  }
  if (word === 'stop') {
    const s = await stopBackground(stateDir);
    process.stderr.write(
      typeof s.stopped === 'number'
        ? `hmc dashboard: stopped (pid ${s.stopped})\n`
        : 'hmc dashboard: was not running\n',
    );
    return 0;
  }
  const s = await startBackground({ stateDir, port, configPath });
  if (s.running !== true || typeof s.url !== 'string') {
    process.stderr.write(`hmc dashboard: could not start: ${String(s.error ?? 'unknown error')}\n`);
    return 1;
  }
  process.stdout.write(`${s.url}\n`);
  // The stop command as this user can type it: `hermes hmc …` inside Hermes (issue 17, finding 5).
  const stop = `${invokedAs()} dashboard stop${stateDirGiven ? ` --state-dir ${shellWord(stateDirGiven)}` : ''}`;
  process.stderr.write(
    `hmc dashboard: ${s.already_running ? 'already running' : 'started'} in the background (pid ${String(s.pid)}, log ${String(s.log)}); \`${stop}\` stops it\n`,
  );
  return 0;
}

/** A path as one shell word: quoted only when it needs to be. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
