/**
 * The page's live connection: an EventSource on /events with its own reconnect loop (backoff
 * 1 s → 30 s, resuming with `last_event_id`), plus the live view it keeps up to date: the
 * current session (from /api/summary, then advanced by each event's running totals, as the
 * server's live-state.ts does) and the newest events for the log.
 *
 * Invariant: every SSE payload passes a guard before use; the log holds at most MAX_EVENTS.
 */
import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api.js';
import { parseJson } from './guards.js';
import {
  eventsResponse,
  helloData,
  hmcEvent,
  summaryResponse,
  type HmcEvent,
  type LiveSession,
  type SummaryResponse,
} from './schema.js';

export type ConnState = 'connecting' | 'live' | 'reconnecting' | 'offline';
export const MAX_EVENTS = 300;

export interface FeedState {
  conn: ConnState;
  current: LiveSession | null;
  sessions: SummaryResponse['sessions'];
  /** Newest first. */
  events: HmcEvent[];
  /** Bumped when lifetime figures may have changed (a session ended or went idle, a reconnect). */
  epoch: number;
  lastEventAt: number | null;
}

const OFFLINE_AFTER = 4;

export class LiveFeed {
  state: FeedState = { conn: 'connecting', current: null, sessions: [], events: [], epoch: 0, lastEventAt: null };
  private listeners = new Set<(s: FeedState) => void>();
  private es: EventSource | null = null;
  private lastId: string | null = null;
  private failures = 0;
  private retryTimer: number | undefined;
  private refreshTimer: number | undefined;
  private stopped = false;

  start(): void {
    void this.loadInitial();
    this.open();
  }

  stop(): void {
    this.stopped = true;
    this.es?.close();
    window.clearTimeout(this.retryTimer);
    window.clearTimeout(this.refreshTimer);
  }

  subscribe(fn: (s: FeedState) => void): () => void {
    this.listeners.add(fn);
    return () => void this.listeners.delete(fn);
  }

  private set(patch: Partial<FeedState>): void {
    this.state = { ...this.state, ...patch };
    for (const fn of this.listeners) fn(this.state);
  }

  private async loadInitial(): Promise<void> {
    const [summary, recent] = await Promise.all([
      getJson('/api/summary', summaryResponse),
      getJson('/api/events?limit=300', eventsResponse),
    ]);
    if (summary) this.set({ current: summary.current, sessions: summary.sessions });
    if (recent) {
      const events = recent.events.filter(hmcEvent).reverse().slice(0, MAX_EVENTS);
      const known = new Set(this.state.events.map((e) => e.id));
      this.set({ events: [...this.state.events, ...events.filter((e) => !known.has(e.id))].slice(0, MAX_EVENTS) });
      if (this.lastId === null && events[0]) this.lastId = events[0].id;
    }
  }

  private async refreshSummary(): Promise<void> {
    const summary = await getJson('/api/summary', summaryResponse);
    if (summary) this.set({ current: summary.current, sessions: summary.sessions });
  }

  private open(): void {
    if (this.stopped) return;
    const url = this.lastId ? `/events?last_event_id=${encodeURIComponent(this.lastId)}` : '/events';
    const es = new EventSource(url);
    this.es = es;
    es.addEventListener('hello', (m: MessageEvent<string>) => {
      const hello = parseJson(m.data);
      const resumed = helloData(hello) && hello.resumed === true;
      const wasDown = this.failures > 0 || this.state.conn !== 'connecting';
      this.failures = 0;
      this.set({ conn: 'live', ...(wasDown ? { epoch: this.state.epoch + 1 } : {}) });
      if (wasDown && !resumed) void this.loadInitial();
      else if (wasDown) void this.refreshSummary();
    });
    for (const type of ['turn', 'tool', 'session_end', 'session_idle', 'phase'] as const) {
      es.addEventListener(type, (m: MessageEvent<string>) => this.onEvent(m.data));
    }
    es.onerror = () => {
      // EventSource retries by itself while CONNECTING; we take over so the backoff grows and a
      // page whose server came back on a new process still resumes from its last event.
      es.close();
      if (this.es !== es || this.stopped) return;
      this.failures++;
      this.set({ conn: this.failures >= OFFLINE_AFTER ? 'offline' : 'reconnecting' });
      const delay = Math.min(30_000, 1000 * 2 ** Math.min(this.failures - 1, 5)) * (0.8 + Math.random() * 0.4);
      this.retryTimer = window.setTimeout(() => this.open(), delay);
    };
  }

  private onEvent(data: string): void {
    const e = parseJson(data);
    if (!hmcEvent(e)) return;
    if (this.state.events.some((x) => x.id === e.id)) return;
    this.lastId = e.id;
    const events = [e, ...this.state.events].slice(0, MAX_EVENTS);
    const current = advance(this.state.current, e);
    const left = e.type === 'session_end' || e.type === 'session_idle';
    this.set({ events, current, lastEventAt: Date.now(), ...(left ? { epoch: this.state.epoch + 1 } : {}) });
    // Reconcile with the server's view (the list of sessions, series points) now and then.
    if (this.refreshTimer === undefined) {
      this.refreshTimer = window.setTimeout(() => {
        this.refreshTimer = undefined;
        void this.refreshSummary();
      }, 1500);
    }
  }
}

/** The current session after event `e` (the same rules as src/server/live-state.ts). */
export function advance(cur: LiveSession | null, e: HmcEvent): LiveSession | null {
  let s: LiveSession;
  if (cur && cur.session_id === e.session_id) s = { ...cur, points: cur.points };
  else if (e.type === 'session_end' || e.type === 'session_idle' || e.type === 'phase') return cur;
  else {
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
      summarise_at: undefined,
      host_compress_at: undefined,
      points: [],
    };
  }
  const latest = e.time >= s.last_seen;
  s.last_seen = Math.max(s.last_seen, e.time);
  if (latest) {
    const state =
      e.type === 'session_end' ? 'ended' : e.type === 'session_idle' ? 'idle' : e.type === 'phase' ? s.state : 'live';
    Object.assign(s, { state, ended: state === 'ended', source: e.source });
  }
  if (e.type === 'turn') {
    if (e.turn < s.turns) return s;
    Object.assign(s, {
      turns: e.turn,
      model: e.model || s.model,
      platform: e.platform || s.platform,
      project_path: e.project_path || s.project_path,
      context_tokens: e.context_tokens,
      context_window: e.context_window,
      context_percent: e.context_percent,
      saved: Math.max(s.saved, e.cumulative_saved),
      by_strategy: { ...e.by_strategy },
      by_tool: { ...e.by_tool },
      input_tokens: { ...e.input_tokens },
      tool_calls: Math.max(s.tool_calls, e.tool_calls),
      cache_breaks: e.cache_breaks,
      ...(e.summarise_at !== undefined ? { summarise_at: e.summarise_at } : {}),
      ...(e.host_compress_at !== undefined ? { host_compress_at: e.host_compress_at } : {}),
    });
    const p = {
      turn: e.turn,
      time: e.time,
      context_percent: e.context_percent,
      context_tokens: e.context_tokens,
      saved: e.cumulative_saved,
      delta_saved: e.delta_saved,
      model_calls: e.turn_model_calls,
      context_saved: e.context_saved,
    };
    const last = s.points[s.points.length - 1];
    s.points = last && last.turn === e.turn ? [...s.points.slice(0, -1), p] : [...s.points, p].slice(-500);
  } else if (e.type === 'tool') {
    if (e.turn < s.turns) return s;
    Object.assign(s, {
      tool_calls: s.tool_calls + 1,
      context_tokens: e.context_tokens,
      context_percent: e.context_percent,
      saved: Math.max(s.saved, e.cumulative_saved),
      by_strategy: { ...e.by_strategy },
    });
  } else if (e.type === 'session_end' || e.type === 'session_idle') {
    Object.assign(s, {
      turns: Math.max(s.turns, e.turns),
      tool_calls: Math.max(s.tool_calls, e.tool_calls),
      saved: Math.max(s.saved, e.total_saved),
      by_strategy: { ...e.by_strategy },
      by_tool: { ...e.by_tool },
      input_tokens: { ...e.input_tokens },
    });
  }
  // A phase event changes no totals: layer 1's savings arrive with the next turn event.
  return s;
}

export function useFeed(feed: LiveFeed): FeedState {
  const [state, setState] = useState(feed.state);
  useEffect(() => feed.subscribe(setState), [feed]);
  return state;
}
