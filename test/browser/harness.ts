/**
 * Browser-test harness: a seeded dashboard (a real SQLite store with sample sessions, a sink
 * with a live session and inspector records) and real Chromium (Debian's /usr/bin/chromium via
 * playwright-core; never a downloaded browser).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { openStore } from '../../src/store/index.js';
import { defaultConfig } from '../../src/config/keys.js';
import { createStateDirSink, type StateDirSink } from '../../src/events/state-dir-sink.js';
import { startDashboard, type DashboardHandle } from '../../src/server/index.js';
import type { PhaseEntry } from '../../src/store/phase-types.js';
import { sampleRecords } from '../server/fake-store.js';
import { samplePhases } from '../store/fixtures/phases.js';
import { inspectRecord, toolPayload, turnPayload } from '../server/helpers.js';

export const CHROMIUM = '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM);
export const WEB_DIST = resolve(import.meta.dirname, '..', '..', 'web', 'dist');
export const PRICING = { ...defaultConfig().pricing, models: { 'gpt-4.1': { input: 2 } } };

/** Builds web/dist when it is missing (CI runs `npm run build` first; a lone vitest run may not). */
export async function ensureBuilt(): Promise<void> {
  if (existsSync(join(WEB_DIST, 'index.html'))) return;
  const { build } = await import('vite');
  await build({ configFile: resolve(import.meta.dirname, '..', '..', 'web', 'vite.config.ts'), logLevel: 'warn' });
}

export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
    ],
  });
}

/**
 * A page on the dashboard at `url`, live: every console error or warning and page error lands in
 * `problems`, every dialog (dismissed) in `dialogs`, for the tests to assert on.
 */
export async function openLive(
  browser: Browser,
  url: string,
  viewport: { width: number; height: number },
): Promise<{ page: Page; problems: string[]; dialogs: string[] }> {
  const problems: string[] = [];
  const dialogs: string[] = [];
  const page = await browser.newPage({ viewport });
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto(url);
  await page.getByTestId('conn').filter({ hasText: 'Live' }).waitFor();
  return { page, problems, dialogs };
}

export interface Seeded {
  dir: string;
  dbPath: string;
  sink: StateDirSink;
  dash: DashboardHandle;
  logs: string[];
  /** Starts the dashboard again on the same port (after `dash.stop()`). */
  restart(): Promise<DashboardHandle>;
  done(): Promise<void>;
}

export const LIVE_SESSION = 'live-7f3a9c21d4';

/** A state dir with 14 recorded sessions and one live session of 6 turns, with summarised phases in SQLite. */
export async function seed(port = 0): Promise<Seeded> {
  const dir = mkdtempSync(join(tmpdir(), 'hmc-browser-'));
  const dbPath = join(dir, 'analytics.db');
  const store = openStore(dbPath);
  const records = sampleRecords(14);
  for (const rec of records) store.recordSession(rec);
  const phases = samplePhases(LIVE_SESSION, records[2]?.session_id ?? 'older');
  store.recordPhases(phases);
  store.close();
  const logs: string[] = [];
  const log = (l: string): void => void logs.push(l);
  const sink = createStateDirSink({ stateDir: dir, source: 'sidecar-test', inspector: true, log });
  const start = (p: number): Promise<DashboardHandle> =>
    startDashboard({
      stateDir: dir,
      port: p,
      dbPath,
      feed: sink,
      pricing: PRICING,
      log,
      version: 'test',
      webRoot: WEB_DIST,
    });
  let dash = await start(port);
  emitLiveSession(sink, phases);
  return {
    dir,
    dbPath,
    sink,
    logs,
    get dash() {
      return dash;
    },
    async restart() {
      dash = await start(dash.port);
      return dash;
    },
    async done() {
      await dash.stop();
      await sink.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function emitLiveSession(sink: StateDirSink, phases: PhaseEntry[]): void {
  const strategies = ['truncation', 'deduplication', 'code_filter', 'short_circuit'];
  let saved = 0;
  for (let t = 1; t <= 6; t++) {
    const tools = t % 2 ? ['terminal', 'read_file'] : ['search_files'];
    for (const [i, tool] of tools.entries()) {
      const before = 900 + t * 300 + i * 200;
      const after = Math.round(before * 0.35);
      saved += before - after;
      const callId = `call_${t}_${i}`;
      sink.inspect(inspectRecord(LIVE_SESSION, callId, tool));
      sink.emit(
        toolPayload(LIVE_SESSION, t, tool, {
          tool_call_id: callId,
          tokens_before: before,
          tokens_after: after,
          delta_saved: before - after,
          cumulative_saved: saved,
          strategies: [strategies[(t + i) % strategies.length] ?? 'truncation'],
          inspect_id: `${LIVE_SESSION}:${callId}`,
          context_tokens: 18000 + t * 9000,
          context_percent: (18000 + t * 9000) / 128000,
        }),
      );
    }
    // Layer 1 summarised turns 1-2 during turn 3, and turns 3-4 during turn 5.
    for (const p of phases.filter((x) => x.session_id === LIVE_SESSION && x.turn_to === t - 1)) {
      sink.emit({
        type: 'phase',
        session_id: LIVE_SESSION,
        phase_id: p.phase_id,
        topic: p.topic,
        turn_from: p.turn_from,
        turn_to: p.turn_to,
        tokens_before: p.tokens_before,
        tokens_after: p.tokens_after,
        recall_id: p.recall_id,
        updated: false,
      });
    }
    const byStrategy = {
      truncation: Math.round(saved * 0.5),
      deduplication: Math.round(saved * 0.3),
      code_filter: saved - Math.round(saved * 0.5) - Math.round(saved * 0.3),
    };
    sink.emit(
      turnPayload(LIVE_SESSION, t, saved, {
        delta_saved: t === 1 ? saved : Math.round(saved / t),
        model: 'claude-sonnet-4',
        project_path: '/home/ada/src/hmc',
        context_tokens: 18000 + t * 9000,
        context_window: 128000,
        context_percent: (18000 + t * 9000) / 128000,
        by_strategy: byStrategy,
        by_tool: {
          terminal: Math.round(saved * 0.6),
          read_file: Math.round(saved * 0.25),
          search_files: saved - Math.round(saved * 0.6) - Math.round(saved * 0.25),
        },
        input_tokens: { raw: saved * 3, hmc: saved * 2 },
        tool_calls: Math.ceil(t * 1.5),
        // What the engine says with HMC's defaults and Hermes' default threshold (engine/layer1/layer1-threshold.ts).
        summarise_at: 0.4,
        host_compress_at: 0.5,
      }),
    );
  }
}
