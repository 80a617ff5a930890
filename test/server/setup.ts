/**
 * Starts a dashboard on an OS-picked port over a temp state dir, with a sink as its feed and
 * an optional fake store; `done()` stops everything and removes the dir.
 */
import { mkdtempSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStateDirSink, type StateDirSink } from '../../src/events/state-dir-sink.js';
import { startDashboard, type DashboardHandle, type DashboardOptions } from '../../src/server/index.js';
import { defaultConfig } from '../../src/config/keys.js';
import type { StoreReader } from '../../src/server/store-reader.js';

export interface Rig {
  dir: string;
  sink: StateDirSink;
  dash: DashboardHandle;
  logs: string[];
  done(): Promise<void>;
}

export const PRICING = { ...defaultConfig().pricing, models: { 'gpt-4.1': { input: 2 } } };

export async function rig(
  opts: { store?: StoreReader; dbPath?: string | null; webRoot?: string; extra?: Partial<DashboardOptions> } = {},
): Promise<Rig> {
  const dir = mkdtempSync(join(tmpdir(), 'hmc-dash-'));
  const logs: string[] = [];
  const log = (l: string): void => void logs.push(l);
  const sink = createStateDirSink({ stateDir: dir, source: 'test-proc', inspector: true, log });
  const dash = await startDashboard({
    stateDir: dir,
    port: 0,
    dbPath: opts.dbPath === undefined ? null : opts.dbPath,
    feed: sink,
    pricing: PRICING,
    log,
    version: 'test',
    ...(opts.store ? { store: opts.store } : {}),
    ...(opts.webRoot ? { webRoot: opts.webRoot } : {}),
    ...opts.extra,
  });
  return {
    dir,
    sink,
    dash,
    logs,
    async done() {
      await dash.stop();
      await sink.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A tiny web root with an index and one hashed asset. */
export function fakeWebRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'hmc-web-'));
  mkdirSync(join(root, 'assets'));
  writeFileSync(
    join(root, 'index.html'),
    '<!doctype html><title>HMC</title><script type="module" src="/assets/index-abc123.js"></script>',
  );
  writeFileSync(join(root, 'assets', 'index-abc123.js'), 'console.log(1)');
  writeFileSync(join(root, 'secret.key'), 'nope');
  return root;
}
