/**
 * `hmc_control action=context` and `/hmc context`: the context now (the original's figures, kept
 * as they were) and where it goes, the latest request split into its parts with each tool schema's
 * cost and calls (core/context-view.ts), and advice. `days=N` sets the period the calls are counted
 * over (default 30); the calls come from the analytics store (tool outputs per tool) and the session.
 *
 * Invariant: read-only; a bad argument is an error naming it; names shown come from the host and
 * are printed as they are (a text answer is plain text, never markup).
 */
import {
  CONTEXT_PARTS,
  contextView,
  DEFAULT_PERIOD_DAYS,
  PART_LABELS,
  sharePercent,
  type ContextView,
} from '../../core/context-view.js';
import { fmtWindow } from '../../core/window-size.js';
import { contextBreakdown } from './context-breakdown.js';
import type { Session } from '../session/session.js';

const DAYS_MAX = 3650;
const DAY_MS = 86_400_000;

/** Reads the analytics store (hmc_control analytics); null when analytics is off. */
type Analytics = ((args: Record<string, unknown>, project: string) => Record<string, unknown>) | null;

/** `days` as a whole number of days (1 to 3650), or the error naming the value. */
export function parseDays(value: unknown): number | string {
  if (value === undefined || value === null || value === '') return DEFAULT_PERIOD_DAYS;
  const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > DAYS_MAX) {
    const shown = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
    return `days must be a whole number from 1 to ${DAYS_MAX}, got ${JSON.stringify(shown.length > 40 ? `${shown.slice(0, 40)}…` : shown)}`;
  }
  return n;
}

/** Calls per tool over the last `days` days (UTC days, today included), or why they are unknown. */
function periodCalls(
  analytics: Analytics,
  days: number,
  project: string,
  now: number,
): { calls: Map<string, number> | null; note: string | null } {
  if (!analytics) return { calls: null, note: 'analytics is off: calls are counted in this session only' };
  const since = new Date(now - (days - 1) * DAY_MS).toISOString().slice(0, 10);
  const answer = analytics(
    { action: 'analytics', scope: 'global', period: 'output', by: 'tool', since, limit: 10_000 },
    project,
  );
  if (typeof answer.error === 'string')
    return { calls: null, note: `calls over ${days} days unknown (${answer.error})` };
  const calls = new Map<string, number>();
  for (const row of Array.isArray(answer.rows) ? answer.rows : []) {
    const r = row as { name?: unknown; outputs?: unknown };
    if (typeof r.name === 'string' && typeof r.outputs === 'number')
      calls.set(r.name, (calls.get(r.name) ?? 0) + r.outputs);
  }
  return { calls, note: null };
}

/** The `breakdown` part of the answer: the view, or why there is none (then `breakdown` is null). */
export function contextBreakdownAnswer(
  s: Session,
  args: Record<string, unknown>,
  analytics: Analytics,
  now = Date.now(),
): Record<string, unknown> {
  const days = parseDays(args.days);
  if (typeof days === 'string') return { error: days };
  const b = contextBreakdown(s, now) ?? s.view.savedContext;
  if (!b)
    return {
      breakdown: null,
      breakdown_note: 'no request seen in this session yet: the breakdown appears after its first model call',
    };
  const { calls, note } = periodCalls(analytics, days, s.meta.projectPath, now);
  const view = contextView(b, calls, days, note);
  const live = b !== s.view.savedContext;
  return {
    breakdown: view,
    ...(live ? {} : { breakdown_note: `as saved at ${new Date(b.at).toISOString()}; no request in this process yet` }),
  };
}

function k(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(2)}M`;
  if (n >= 1000) return `${(n / 1000).toFixed(1)}K`;
  return String(Math.round(n));
}

function isView(v: unknown): v is ContextView {
  return (
    typeof v === 'object' &&
    v !== null &&
    Array.isArray((v as ContextView).parts) &&
    Array.isArray((v as ContextView).tools)
  );
}

/** Rows of cells as aligned columns: the first left-aligned, the others right-aligned. */
export function aligned(rows: readonly (readonly string[])[], indent = '  '): string[] {
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  return rows.map(
    (row) =>
      indent +
      row
        .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
  );
}

/**
 * Where the latest request's tokens go, as text for a person (`/hmc context` after its figures,
 * control-text.ts): the parts, the tool schemas and the advice.
 */
export function breakdownText(result: Record<string, unknown>): string {
  const window = typeof result.context_window === 'number' ? result.context_window : null;
  const used = typeof result.context_tokens_estimate === 'number' ? result.context_tokens_estimate : 0;
  const raw = typeof result.context_tokens_raw === 'number' ? result.context_tokens_raw : used;
  const head = `Latest request: ${k(used)} tokens sent (${k(raw)} without HMC)${window ? ` of a ${fmtWindow(window)} window, ${sharePercent(used, window)} %` : ', window unknown'}`;
  const b = result.breakdown;
  if (!isView(b))
    return [head, `  ${typeof result.breakdown_note === 'string' ? result.breakdown_note : 'no breakdown'}`].join('\n');
  const out = [head, `By part${typeof result.breakdown_note === 'string' ? ` (${result.breakdown_note})` : ''}:`];
  const rows: string[][] = [['part', 'raw', 'sent', 'share']];
  for (const name of CONTEXT_PARTS) {
    const p = b.parts.find((x) => x.part === name);
    if (!p || (p.raw === 0 && name === 'other')) continue;
    const label = name === 'tool_schemas' ? `${PART_LABELS[name]} (${b.tools.length})` : PART_LABELS[name];
    rows.push([label, k(p.raw), k(p.sent), `${sharePercent(p.sent, b.total.sent).toFixed(1)} %`]);
  }
  rows.push(['total', k(b.total.raw), k(b.total.sent), b.total.sent > 0 ? '100.0 %' : '']);
  out.push(...aligned(rows));
  if (!b.request_seen) out.push('  (the host sent no system prompt or tool schemas: only the messages are known)');
  if (b.tools.length > 0) {
    const trows: string[][] = [['tool schema', 'tokens', `calls ${b.period_days} d`, 'calls session']];
    for (const t of b.tools)
      trows.push([
        t.name,
        k(t.tokens),
        t.calls_period === null ? '--' : String(t.calls_period),
        String(t.calls_session),
      ]);
    out.push('Tool schemas, largest first:', ...aligned(trows));
    if (b.period_note) out.push(`  ${b.period_note}`);
  }
  for (const p of b.problems) out.push(`  problem: ${p}`);
  for (const a of b.advice) out.push(`Advice: ${a}`);
  return out.join('\n');
}
