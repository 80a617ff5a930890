/**
 * The checks of real-session-shots.ts: the run's manifest and events as the state dir holds them,
 * each turn's saving as the events, /api, the stored timeline and the page's turn chart give it,
 * and the money figures of /api/models; every disagreement is kept in `problems`, named.
 *
 * Invariant: reads only (the state dir, the dashboard's API, the page); a check never throws.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { fmtTokens } from '../web/src/format.js';

export interface Manifest {
  hermes: string;
  state_dir: string;
  sessions: { session_id: string; mode: 'q' | 'interactive'; turns: string[]; tools: string[][] }[];
}
export interface TurnEv {
  type: 'turn';
  id: string;
  session_id: string;
  turn: number;
  delta_saved: number;
  cumulative_saved: number;
  input_tokens: { raw: number; hmc: number };
}
export interface ToolEv {
  type: 'tool';
  id: string;
  session_id: string;
  turn: number;
  tool_name: string;
  tokens_before: number;
  inspect_id?: string;
  strategies: string[];
}
export interface EndEv {
  type: 'session_end' | 'session_idle';
  id: string;
  session_id: string;
  total_saved: number;
  turns: number;
}
export type Ev = TurnEv | ToolEv | EndEv;
export type Json = Record<string, unknown>;

export const problems: string[] = [];
export function check(ok: boolean, what: string): void {
  if (!ok) problems.push(what);
}

/** Every event the sidecars wrote, oldest first (the ground truth the dashboard tails). */
export function stateEvents(stateDir: string): Ev[] {
  const dir = join(stateDir, 'events');
  const out: (Ev & { time: number })[] = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.jsonl'))) {
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) {
      if (line.trim()) out.push(JSON.parse(line) as Ev & { time: number });
    }
  }
  return out.sort((a, b) => a.time - b.time || a.id.localeCompare(b.id));
}

/** Per session: turn → delta_saved of its turn event (a turn reported twice must agree). */
export function turnDeltas(events: Ev[], session: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const e of events) {
    if (e.type !== 'turn' || e.session_id !== session) continue;
    const seen = out.get(e.turn);
    check(
      seen === undefined || seen === e.delta_saved,
      `session ${session} turn ${e.turn}: two turn events disagree (${seen} vs ${e.delta_saved})`,
    );
    out.set(e.turn, e.delta_saved);
  }
  return out;
}

export async function api(url: string, path: string): Promise<Json> {
  const res = await fetch(new URL(path, url));
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return (await res.json()) as Json;
}

/** The per-turn chart and table inside `scope`: [turn, table text, bar title, bar height]. */
export async function turnChart(
  page: Page,
  scope: string,
): Promise<{ turn: number; table: string; title: string; height: number }[]> {
  return page.locator(scope).evaluate((root) => {
    const chart = Array.from(root.querySelectorAll('h3')).find(
      (h) => h.textContent === 'Input saved per turn',
    )?.parentElement;
    if (!chart) return [];
    const rows = Array.from(chart.querySelectorAll('tbody tr')).map((tr) => [
      tr.querySelector('th')?.textContent ?? '',
      tr.querySelector('td')?.textContent ?? '',
    ]);
    const bars = Array.from(chart.querySelectorAll('rect.col')).map((r) => ({
      title: r.querySelector('title')?.textContent ?? '',
      height: Number(r.getAttribute('height')),
    }));
    return rows.map(([turn, table], i) => ({
      turn: Number(turn),
      table: table ?? '',
      title: bars[i]?.title ?? '',
      height: bars[i]?.height ?? -1,
    }));
  });
}

/** Checks one session's per-turn figures on the page against the turn events; returns table rows. */
export function compareTurns(
  label: string,
  session: string,
  shown: Awaited<ReturnType<typeof turnChart>>,
  events: Map<number, number>,
  api: Map<number, number>,
  stored: Map<number, number>,
): string[] {
  const rows: string[] = [];
  const peak = Math.max(...events.values());
  const peakHeight = Math.max(...shown.map((s) => s.height));
  check(shown.length === events.size, `${label}: the page shows ${shown.length} turns, the events ${events.size}`);
  for (const [turn, delta] of [...events].sort((a, b) => a[0] - b[0])) {
    const s = shown.find((x) => x.turn === turn);
    const want = fmtTokens(delta);
    check(api.get(turn) === delta, `${label} turn ${turn}: /api says ${api.get(turn)}, the turn event ${delta}`);
    check(
      stored.get(turn) === delta,
      `${label} turn ${turn}: the stored timeline says ${stored.get(turn)}, the turn event ${delta}`,
    );
    check(s?.table === want, `${label} turn ${turn}: the page's table says ${s?.table}, the turn event ${want}`);
    check(s?.title === `T${turn}: ${want}`, `${label} turn ${turn}: the bar's title is ${s?.title}`);
    // Bars share one scale: each is the tallest one's height times its share of the peak.
    const height = s ? s.height : -1;
    check(
      Math.abs(height - (peakHeight * delta) / peak) < 0.5,
      `${label} turn ${turn}: bar ${height.toFixed(1)} px, expected ${((peakHeight * delta) / peak).toFixed(1)}`,
    );
    rows.push(
      `| ${shortId(session)} | ${label === 'current card' ? label : 'drill-down'} | ${turn} | ${delta} | ${api.get(turn)} | ${stored.get(turn)} | ${s?.table ?? '-'} | ${height.toFixed(1)} |`,
    );
  }
  return rows;
}

export function shortId(id: string): string {
  return id.length > 10 ? id.slice(-6) : id;
}

/**
 * Money with the prompt cache (issue 24): every model's input has cached figures, and its cost
 * without HMC is priced with them (cache reads at the read price), never every token at the write
 * price as before; the cost saved the page shows is that model's. Returns the report's lines.
 */
export function moneyChecks(models: Json): string[] {
  const rows = (models.models ?? []) as Json[];
  const lines: string[] = [];
  check(rows.length > 0, '/api/models lists no model');
  for (const m of rows) {
    const price = m.price as Json;
    const cost = m.cost as Json;
    const input = Number(m.input);
    const cached = Number(m.cached_input);
    const allWritten = (input * Number(price.cache_write)) / 1e6;
    check(
      cached > 0 && cached <= input,
      `${String(m.model)}: cached_input ${cached} of ${input} input (no cache figures)`,
    );
    check(
      Number(cost.without_hmc) < allWritten,
      `${String(m.model)}: cost without HMC ${String(cost.without_hmc)} is not below every token at the write price (${allWritten.toFixed(4)})`,
    );
    lines.push(
      `money, ${String(m.model)} (price source ${String(price.source)}${price.unknown_model ? ', unknown model' : ''}): input ${input} (cached ${cached}), sent ${String(m.sent)} (cached ${String(m.cached_sent)}); without HMC ${String(cost.without_hmc)}, with HMC ${String(cost.spent)}, saved ${String(cost.saved)} ${String(m.currency)} (every token at the write price: ${allWritten.toFixed(4)})`,
    );
  }
  return lines;
}
