/**
 * What the dashboard knows from events alone: each session seen, with its latest running totals
 * and a per-turn series for the charts, plus event counts for /metrics.
 *
 * Each session's state (issue 17, finding 4): `live` while the process that last touched it holds
 * it, `idle` once that process let it go without finishing it (a `session_idle` event, or the
 * process is gone), `ended` when the host finished it (`session_end`); its next turn or tool event
 * makes it live again (a resume).
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
  /** Input saved over this turn's model calls (docs/glossary.md). */
  delta_saved: number;
  /** This turn's model calls (the N of "input saved over N model calls"); absent from older events. */
  model_calls?: number;
  /** Context saved at the turn's end (context raw - context sent); absent from older events. */
  context_saved?: number;
}

/** Where a session is in its life: held by a process, let go to be resumed, or finished. */
export type SessionState = 'live' | 'idle' | 'ended';

export interface LiveSession extends SavingsBreakdown {
  session_id: string;
  /** The process that emitted its latest event. */
  source: string;
  project_path: string;
  model: string;
  platform: string;
  started_at: number;
  last_seen: number;
  state: SessionState;
  /** `state === 'ended'` (kept for older pages). */
  ended: boolean;
  turns: number;
  tool_calls: number;
  context_tokens: number;
  context_window: number;
  context_percent: number;
  saved: number;
  input_tokens: InputTokens;
  cache_breaks: number;
  /** From the latest turn event, when it said: where layer 1 summarises, where the host compresses (0..1). */
  summarise_at?: number;
  host_compress_at?: number;
  points: LivePoint[];
}

export const MAX_SESSIONS = 200;
/** Which session the page calls current first: one held now, then one that may resume, then a finished one. */
const RANK: Record<SessionState, number> = { live: 2, idle: 1, ended: 0 };
export const MAX_POINTS = 500;

export class LiveState {
  private readonly sessions = new Map<string, LiveSession>();
  readonly counts: Record<HmcEventType, number> = { turn: 0, tool: 0, session_end: 0, session_idle: 0, phase: 0 };
  private readonly sources = new Set<string>();
  /** Arrival order of each session's latest event (ties in `last_seen` are common: ms clocks). */
  private readonly arrival = new Map<string, number>();
  private arrivals = 0;

  /** `alive(source)`: false when the process behind an event source is known to be gone. */
  constructor(private readonly alive: (source: string) => boolean = () => true) {}

  apply(e: HmcEvent): void {
    this.counts[e.type]++;
    this.sources.add(e.source);
    let s = this.sessions.get(e.session_id);
    if (!s) {
      s = {
        session_id: e.session_id,
        source: e.source,
        project_path: '',
        model: '',
        platform: '',
        started_at: e.time,
        last_seen: e.time,
        state: 'live',
        ended: false,
        turns: 0,
        tool_calls: 0,
        context_tokens: 0,
        context_window: 0,
        context_percent: 0,
        saved: 0,
        by_strategy: {},
        by_tool: {},
        input_tokens: { raw: 0, hmc: 0 },
        cache_breaks: 0,
        points: [],
      };
      this.sessions.set(e.session_id, s);
      this.evict();
    }
    this.arrival.set(e.session_id, ++this.arrivals);
    s.started_at = Math.min(s.started_at, e.time);
    const latest = e.time >= s.last_seen;
    s.last_seen = Math.max(s.last_seen, e.time);
    if (latest) s.source = e.source;
    if (e.type === 'session_end' || e.type === 'session_idle') {
      // An older event of the session's life never overrides a newer one (files are read in any order).
      if (latest) this.setState(s, e.type === 'session_end' ? 'ended' : 'idle');
      s.turns = Math.max(s.turns, e.turns);
      s.tool_calls = Math.max(s.tool_calls, e.tool_calls);
      s.saved = Math.max(s.saved, e.total_saved);
      s.by_strategy = { ...e.by_strategy };
      s.by_tool = { ...e.by_tool };
      s.input_tokens = { ...e.input_tokens };
      return;
    }
    if (latest) this.setState(s, 'live');
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
      if (e.summarise_at !== undefined) s.summarise_at = e.summarise_at;
      if (e.host_compress_at !== undefined) s.host_compress_at = e.host_compress_at;
      this.point(s, {
        turn: e.turn,
        time: e.time,
        context_percent: e.context_percent,
        context_tokens: e.context_tokens,
        saved: e.cumulative_saved,
        delta_saved: e.delta_saved,
        ...(typeof e.turn_model_calls === 'number' ? { model_calls: e.turn_model_calls } : {}),
        ...(typeof e.context_saved === 'number' ? { context_saved: e.context_saved } : {}),
      });
    } else if (e.type === 'tool') {
      if (e.turn < s.turns) return;
      s.tool_calls++;
      s.context_tokens = e.context_tokens;
      s.context_percent = e.context_percent;
      s.saved = Math.max(s.saved, e.cumulative_saved);
      s.by_strategy = { ...e.by_strategy };
      // by_tool is left to turn events: a tool event's delta is context saved, not input saved.
    }
    // A phase event changes no totals: layer 1's savings arrive with the next turn event.
  }

  /** The most recently active live session, else idle one, else the most recently active one. */
  current(): LiveSession | null {
    let best: LiveSession | null = null;
    for (const s of this.sessions.values()) {
      this.check(s);
      if (!best || (RANK[s.state] === RANK[best.state] ? this.newer(s, best) : RANK[s.state] > RANK[best.state]))
        best = s;
    }
    return best;
  }

  get(id: string): LiveSession | undefined {
    const s = this.sessions.get(id);
    if (s) this.check(s);
    return s;
  }

  /** Sessions, most recently active first. */
  list(): LiveSession[] {
    for (const s of this.sessions.values()) this.check(s);
    return [...this.sessions.values()].sort((a, b) => (this.newer(a, b) ? -1 : 1));
  }

  private setState(s: LiveSession, state: SessionState): void {
    s.state = state;
    s.ended = state === 'ended';
  }

  /** A live session whose process is gone (killed before it could say so) is idle. */
  private check(s: LiveSession): void {
    if (s.state === 'live' && !this.alive(s.source)) this.setState(s, 'idle');
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
