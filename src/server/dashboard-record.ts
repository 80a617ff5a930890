/**
 * The background dashboard's record: `<state dir>/dashboard.json`, written by the dashboard process
 * itself once it listens (`hmc dashboard --pid-file`), so any process can find it again.
 *
 * Invariant: a record is believed only when its process is alive AND the server on its port
 * answers /api/health with the same pid; a dead pid, a pid reused by another program, or a port
 * now held by something else all count as stale. Writes are atomic (temp file + rename), 0600.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { isObject } from '../events/guards.js';
import { errorCode } from '../core/errors.js';

export const RECORD_FILE = 'dashboard.json';
export const LOG_FILE = 'dashboard.log';
const PROBE_TIMEOUT_MS = 1500;

export interface DashboardRecord {
  /** The dashboard process. */
  pid: number;
  port: number;
  url: string;
  /** When it started listening (ms since the epoch). */
  started_at: number;
  version: string;
}

export function recordPath(stateDir: string): string {
  return join(stateDir, RECORD_FILE);
}

export function isDashboardRecord(v: unknown): v is DashboardRecord {
  return (
    isObject(v) &&
    typeof v.pid === 'number' &&
    Number.isInteger(v.pid) &&
    v.pid > 0 &&
    typeof v.port === 'number' &&
    Number.isInteger(v.port) &&
    v.port > 0 &&
    v.port < 65536 &&
    typeof v.url === 'string' &&
    typeof v.started_at === 'number' &&
    typeof v.version === 'string'
  );
}

/** The record at `path`, or null when there is none or it is not one (a half-written or foreign file). */
export function readRecord(path: string): DashboardRecord | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    return isDashboardRecord(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

export function writeRecord(path: string, rec: DashboardRecord): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(rec)}\n`, { mode: 0o600 });
  renameSync(tmp, path);
}

/** Removes the record only when it still names `pid` (a newer dashboard's record is left alone). */
export function removeRecordOf(path: string, pid: number): void {
  if (readRecord(path)?.pid === pid) rmSync(path, { force: true });
}

/** Whether a process with this pid exists (EPERM: it exists, owned by someone else). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errorCode(err) === 'EPERM';
  }
}

export interface Probe {
  alive: boolean;
  /** Pages connected, from /api/health, when alive. */
  clients?: number;
  /** Why a record is stale, when it is. */
  stale?: string;
}

/** Is the dashboard of this record really running? See the invariant above. */
export async function probeRecord(rec: DashboardRecord): Promise<Probe> {
  if (!pidAlive(rec.pid)) return { alive: false, stale: `process ${rec.pid} is not running` };
  const health = await getHealth(rec.port);
  if (!health) return { alive: false, stale: `nothing answers on port ${rec.port}` };
  if (health.pid !== rec.pid) return { alive: false, stale: `port ${rec.port} is served by another process` };
  return { alive: true, clients: typeof health.clients === 'number' ? health.clients : 0 };
}

function getHealth(port: number): Promise<Record<string, unknown> | null> {
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/api/health', method: 'GET', timeout: PROBE_TIMEOUT_MS },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          if (body.length < 65536) body += c;
        });
        res.on('end', () => {
          try {
            const parsed: unknown = JSON.parse(body);
            resolve(res.statusCode === 200 && isObject(parsed) ? parsed : null);
          } catch {
            resolve(null);
          }
        });
        res.on('error', () => resolve(null));
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(null));
    req.end();
  });
}
