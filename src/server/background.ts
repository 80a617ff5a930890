/**
 * The dashboard as one shared background process per state dir: `hmc dashboard --pid-file`,
 * spawned detached (its own session, its own log file), so it outlives the process that asked for
 * it (a `hermes chat -q` turn ends a second later), and found again by any process through
 * `<state dir>/dashboard.json`.
 *
 * Invariant: start and stop run under `<state dir>/dashboard.lock`, so two starts at once give one
 * dashboard; a stale record (dead pid, pid reused, port taken over) is replaced, never trusted; a
 * process is signalled only after its record was verified (probeRecord), never on a pid alone.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  LOG_FILE,
  pidAlive,
  probeRecord,
  readRecord,
  recordPath,
  type DashboardRecord,
  type Probe,
} from './dashboard-record.js';
import { withLock } from './state-lock.js';

export interface BackgroundOptions {
  stateDir: string;
  /** First port tried (0 = the system picks). */
  port: number;
  /** The config file the dashboard reads (null: its own default). */
  configPath: string | null;
  /** The argv prefix that runs the `hmc` CLI (default: hmcCommand()). */
  hmcCommand?: string[];
  /** How long a start waits for the new process to listen (default 15 s). */
  startTimeoutMs?: number;
}

type Answer = Record<string, unknown>;

const LOCK_FILE = 'dashboard.lock';
const LOG_ROTATE_BYTES = 1024 * 1024;
const STOP_WAIT_MS = 5000;

/**
 * How to run `hmc`: $HMC_DASHBOARD_COMMAND (a JSON list, like the bridge's HMC_SIDECAR_COMMAND;
 * tests use it to run the sources), else this Node and the package's bin/hmc.js.
 */
export function hmcCommand(env: NodeJS.ProcessEnv = process.env): string[] {
  const custom = env.HMC_DASHBOARD_COMMAND?.trim();
  if (custom) {
    try {
      const parsed: unknown = JSON.parse(custom);
      const parts: unknown[] = Array.isArray(parsed) ? parsed : [];
      if (parts.length > 0 && parts.every((p): p is string => typeof p === 'string')) return parts;
    } catch {
      // Not JSON: fall through to the default.
    }
  }
  return [process.execPath, resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'hmc.js')];
}

/** Starts the shared dashboard, or answers the one already running. */
export async function startBackground(opts: BackgroundOptions): Promise<Answer> {
  const { stateDir } = opts;
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  return withLock(join(stateDir, LOCK_FILE), async () => {
    const existing = readRecord(recordPath(stateDir));
    if (existing) {
      const probe = await probeRecord(existing);
      if (probe.alive) return { ...runningAnswer(stateDir, existing, probe), already_running: true };
      rmSync(recordPath(stateDir), { force: true });
    }
    return spawnDashboard(opts);
  });
}

/** Whether the shared dashboard runs (read-only: a stale record is reported, not removed). */
export async function backgroundStatus(stateDir: string): Promise<Answer> {
  const rec = readRecord(recordPath(stateDir));
  if (!rec) return { running: false };
  const probe = await probeRecord(rec);
  return probe.alive ? runningAnswer(stateDir, rec, probe) : { running: false, stale: probe.stale };
}

/** Stops the shared dashboard (SIGTERM, then SIGKILL after 5 s) and removes its record. */
export async function stopBackground(stateDir: string): Promise<Answer> {
  if (!readRecord(recordPath(stateDir))) return { running: false };
  return withLock(join(stateDir, LOCK_FILE), async () => {
    const rec = readRecord(recordPath(stateDir));
    if (!rec) return { running: false };
    const probe = await probeRecord(rec);
    if (!probe.alive) {
      rmSync(recordPath(stateDir), { force: true });
      return { running: false, stale: probe.stale };
    }
    signal(rec.pid, 'SIGTERM');
    if (!(await exited(rec.pid, STOP_WAIT_MS))) signal(rec.pid, 'SIGKILL');
    rmSync(recordPath(stateDir), { force: true });
    return { running: false, stopped: rec.pid };
  });
}

async function spawnDashboard(opts: BackgroundOptions): Promise<Answer> {
  const { stateDir } = opts;
  const logPath = join(stateDir, LOG_FILE);
  rotateLog(logPath);
  const [exe, ...pre] = opts.hmcCommand ?? hmcCommand();
  if (!exe) return { running: false, error: 'no command to start the dashboard with' };
  const argv = [
    ...pre,
    'dashboard',
    '--state-dir',
    stateDir,
    '--port',
    String(opts.port),
    '--pid-file',
    recordPath(stateDir),
  ];
  if (opts.configPath) argv.push('--config', opts.configPath);
  const fd = openSync(logPath, 'a', 0o600);
  const child: { ended: string | null; pid: number | undefined } = { ended: null, pid: undefined };
  try {
    // detached: a session of its own, so the caller's exit (or its terminal's hangup) leaves it be.
    const proc = spawn(exe, argv, { detached: true, stdio: ['ignore', fd, fd], cwd: stateDir, env: process.env });
    proc.once('error', (err) => (child.ended = err.message));
    proc.once('exit', (code, sig) => (child.ended = sig ? `killed by ${sig}` : `exit code ${code}`));
    proc.unref();
    child.pid = proc.pid;
  } finally {
    closeSync(fd);
  }
  const deadline = Date.now() + (opts.startTimeoutMs ?? 15_000);
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    if (child.ended !== null)
      return {
        running: false,
        error: `the dashboard stopped at start (${child.ended}): ${lastLine(logPath)}`,
        log: logPath,
      };
    const rec = readRecord(recordPath(stateDir));
    if (child.pid !== undefined && rec?.pid === child.pid) {
      const probe = await probeRecord(rec);
      if (probe.alive) return { ...runningAnswer(stateDir, rec, probe), already_running: false };
    }
  }
  if (child.pid !== undefined) signal(child.pid, 'SIGTERM');
  return {
    running: false,
    error: `the dashboard did not answer within ${Math.round((opts.startTimeoutMs ?? 15_000) / 1000)} s: ${lastLine(logPath)}`,
    log: logPath,
  };
}

function runningAnswer(stateDir: string, rec: DashboardRecord, probe: Probe): Answer {
  return {
    running: true,
    url: rec.url,
    host: '127.0.0.1',
    port: rec.port,
    started_at: rec.started_at,
    subscribers: probe.clients ?? 0,
    pid: rec.pid,
    detached: true,
    log: join(stateDir, LOG_FILE),
  };
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Already gone.
  }
}

async function exited(pid: number, waitMs: number): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    if (!pidAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !pidAlive(pid);
}

/** Keeps one previous log; the log never grows past about 1 MiB per start. */
function rotateLog(path: string): void {
  try {
    if (statSync(path).size > LOG_ROTATE_BYTES) renameSync(path, `${path}.1`);
  } catch {
    // No log yet.
  }
}

function lastLine(path: string): string {
  try {
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    return lines[lines.length - 1]?.slice(0, 300) || '(the log is empty)';
  } catch {
    return '(no log)';
  }
}
