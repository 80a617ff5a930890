/**
 * What the dashboard knows from events alone: each session seen, with its latest running totals
 * and a per-turn series for the charts, plus event counts for /metrics.
 *
 * Invariant: bounded memory (at most MAX_SESSIONS sessions, MAX_POINTS points each); events carry
 * running totals, so applying them in any order converges on the latest figures (a stale event,
 * older than what a session already shows, never moves totals backwards).
 */
import type { InputTokens, SavingsBreakdown } from '../core/savings.js';
import type { HmcEvent, HmcEventType } from '../events/types.js';

/** One point of a session's live series (a turn event, or a tool event between turns). */
export interface LivePoint {
  turn: number;
  time: number;
  context_percent: number;
  context_tokens: number;
  /** Cumulative input tokens saved at this point. */
  saved: number;
  /** Saved since the previous turn. */
  delta_saved: number;
}

export interface LiveSession extends SavingsBreakdown {
  session_id: string;
  source: string;
  project_path: string;
  model: string;
  platform: string;
  started_at: number;
  last_seen: number;
  ended: boolean;
  turns: number;
  tool_calls: number;
  context_tokens: number;
  context_window: number;
  context_percent: number;
  saved: number;
  input_tokens: InputTokens;
  cache_breaks: number;
  points: LivePoint[];
}

export const MAX_SESSIONS = 200;
export const MAX_POINTS = 500;

export class LiveState {
  private readonly sessions = new Map<string, LiveSession>();
  readonly counts: Record<HmcEventType, number> = { turn: 0, tool: 0, session_end: 0, phase: 0 };
  private readonly sources = new Set<string>();
  /** Arrival order of each session's latest event (ties in `last_seen` are common: ms clocks). */
  private readonly arrival = new Map<string, number>();
  private arrivals = 0;

  apply(e: HmcEvent): void {
    this.counts[e.type]++;
    this.sources.add(e.source);
    let s = this.sessions.get(e.session_id);
    if (!s) {
      s = {
        session_id: e.session_id, source: e.source, project_path: '', model: '', platform: '', started_at: e.time,
        last_seen: e.time, ended: false, turns: 0, tool_calls: 0, context_tokens: 0, context_window: 0,
        context_percent: 0, saved: 0, by_strategy: {}, by_tool: {}, input_tokens: { raw: 0, hmc: 0 }, cache_breaks: 0, points: [],
      };
      this.sessions.set(e.session_id, s);
      this.evict();
    }
    this.arrival.set(e.session_id, ++this.arrivals);
    s.started_at = Math.min(s.started_at, e.time);
    s.last_seen = Math.max(s.last_seen, e.time);
    if (e.type === 'turn') {
      if (e.turn < s.turns) return;
      s.turns = e.turn;
      s.model = e.model || s.model;
      s.platform = e.platform || s.platform;
      s.project_path = e.project_path || s.project_path;
      s.context_tokens = e.context_tokens;
      s.context_window = e.context_window;
      s.context_percent = e.context_percent;
      s.saved = Math.max(s.saved, e.cumulative_saved);
      s.by_strategy = { ...e.by_strategy };
      s.by_tool = { ...e.by_tool };
      s.input_tokens = { ...e.input_tokens };
      s.tool_calls = Math.max(s.tool_calls, e.tool_calls);
      s.cache_breaks = e.cache_breaks;
      s.ended = false;
      this.point(s, { turn: e.turn, time: e.time, context_percent: e.context_percent, context_tokens: e.context_tokens,
        saved: e.cumulative_saved, delta_saved: e.delta_saved });
    } else if (e.type === 'tool') {
      if (e.turn < s.turns) return;
      s.tool_calls++;
      s.context_tokens = e.context_tokens;
      s.context_percent = e.context_percent;
      s.saved = Math.max(s.saved, e.cumulative_saved);
      s.by_strategy = { ...e.by_strategy };
      // by_tool is left to turn events: a tool event's delta is context saved, not input saved.
    } else if (e.type === 'session_end') {
      s.ended = true;
      s.turns = Math.max(s.turns, e.turns);
      s.tool_calls = Math.max(s.tool_calls, e.tool_calls);
      s.saved = Math.max(s.saved, e.total_saved);
      s.by_strategy = { ...e.by_strategy };
      s.by_tool = { ...e.by_tool };
      s.input_tokens = { ...e.input_tokens };
    }
    // A phase event changes no totals: layer 1's savings arrive with the next turn event.
  }

  /** The most recently active session that has not ended, else the most recently active one. */
  current(): LiveSession | null {
    let best: LiveSession | null = null;
    for (const s of this.sessions.values()) {
      if (!best || (s.ended === best.ended ? this.newer(s, best) : best.ended)) best = s;
    }
    return best;
  }

  get(id: string): LiveSession | undefined {
    return this.sessions.get(id);
  }

  /** Sessions, most recently active first. */
  list(): LiveSession[] {
    return [...this.sessions.values()].sort((a, b) => (this.newer(a, b) ? -1 : 1));
  }

  private newer(a: LiveSession, b: LiveSession): boolean {
    if (a.last_seen !== b.last_seen) return a.last_seen > b.last_seen;
    return (this.arrival.get(a.session_id) ?? 0) > (this.arrival.get(b.session_id) ?? 0);
  }

  sourceCount(): number {
    return this.sources.size;
  }

  private point(s: LiveSession, p: LivePoint): void {
    const last = s.points[s.points.length - 1];
    if (last && last.turn === p.turn) s.points[s.points.length - 1] = p;
    else s.points.push(p);
    if (s.points.length > MAX_POINTS) s.points.splice(0, s.points.length - MAX_POINTS);
  }

  private evict(): void {
    if (this.sessions.size <= MAX_SESSIONS) return;
    const oldest = this.list().slice(MAX_SESSIONS);
    for (const s of oldest) {
      this.sessions.delete(s.session_id);
      this.arrival.delete(s.session_id);
    }
  }
}
