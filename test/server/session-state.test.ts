/**
 * A session's state on the dashboard (issue 17, finding 4): live while a process holds it, idle
 * once its process let it go or is gone (it can be resumed), ended when the host finished it; in
 * the live view (/api/summary), the sessions table (/api/sessions) and one session (/api/sessions/:id).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventPayload, HmcEvent } from '../../src/events/types.js';
import { LiveState } from '../../src/server/live-state.js';
import { processAlive } from '../../src/server/process-alive.js';
import { openStore } from '../../src/store/index.js';
import { rec, tempDb } from '../store/helpers.js';
import { rawRequest, turnPayload } from './helpers.js';
import { rig, type Rig } from './setup.js';

const json = async (port: number, path: string): Promise<Record<string, unknown>> =>
  JSON.parse((await rawRequest(port, path)).body) as Record<string, unknown>;

function left(type: 'session_idle' | 'session_end', session_id: string): EventPayload {
  return {
    type,
    session_id,
    turns: 2,
    tool_calls: 3,
    total_saved: 900,
    by_strategy: { truncation: 900 },
    by_tool: { terminal: 900 },
    input_tokens: { raw: 4000, hmc: 3100 },
  };
}

let seq = 0;
function stamped(payload: EventPayload, time: number, source = 'sidecar-1-1'): HmcEvent {
  return { ...payload, id: `${source}:${++seq}`, source, time } as HmcEvent;
}

describe('session states from events', () => {
  it('goes live, idle, live again on resume, then ended; an older event never overrides a newer one', () => {
    const live = new LiveState();
    live.apply(stamped(turnPayload('S', 1, 100), 1000));
    expect(live.get('S')).toMatchObject({ state: 'live', ended: false });
    live.apply(stamped(left('session_idle', 'S'), 2000));
    expect(live.get('S')).toMatchObject({ state: 'idle', ended: false, saved: 900 });
    live.apply(stamped(turnPayload('S', 1, 100), 1500)); // a late line of the first process
    expect(live.get('S')?.state).toBe('idle');
    live.apply(stamped(turnPayload('S', 3, 1200), 3000, 'sidecar-2-2'));
    expect(live.get('S')).toMatchObject({ state: 'live', source: 'sidecar-2-2', turns: 3 });
    live.apply(stamped(left('session_end', 'S'), 4000, 'sidecar-2-2'));
    expect(live.get('S')).toMatchObject({ state: 'ended', ended: true });
    expect(live.counts).toMatchObject({ turn: 3, session_idle: 1, session_end: 1 });
  });

  it('a live session whose process is gone (killed before it could say so) is idle', () => {
    const gone = new Set(['sidecar-9-9']);
    const live = new LiveState((source) => !gone.has(source));
    live.apply(stamped(turnPayload('K', 1, 100), 1000, 'sidecar-9-9'));
    live.apply(stamped(turnPayload('A', 1, 100), 1000, 'sidecar-8-8'));
    expect(live.get('K')?.state).toBe('idle');
    expect(
      live
        .list()
        .map((s) => [s.session_id, s.state])
        .sort(),
    ).toEqual([
      ['A', 'live'],
      ['K', 'idle'],
    ]);
  });

  it('knows a process is gone only when the system says there is no such process', () => {
    expect(processAlive(`sidecar-${process.pid}-123`)).toBe(true);
    expect(processAlive('test-proc')).toBe(true);
    expect(processAlive('sidecar-2147483646-1')).toBe(false);
  });
});

describe('session states in the API', () => {
  let r: Rig;
  beforeAll(async () => {
    const dbPath = tempDb();
    const store = openStore(dbPath);
    const now = Date.now();
    store.recordSessions([
      rec({ session_id: 'ended-1', started_at: now - 5000, ended_at: now - 1000 }),
      rec({ session_id: 'idle-1', started_at: now - 4000, ended_at: null }),
      rec({ session_id: 'resumed-1', started_at: now - 3000, ended_at: now - 2000 }),
      rec({ session_id: 'live-1', started_at: now - 2000, ended_at: null }),
    ]);
    store.close();
    r = await rig({ dbPath });
    r.sink.emit(turnPayload('live-1', 1, 100));
    r.sink.emit(turnPayload('resumed-1', 2, 100)); // ended once, resumed: events are fresher than the record
    r.sink.emit(turnPayload('quit-1', 1, 100));
    r.sink.emit(left('session_idle', 'quit-1'));
  });
  afterAll(async () => r.done());

  it('says live, idle or ended for each row of the sessions table, and for one session', async () => {
    const page = await json(r.dash.port, '/api/sessions?limit=10');
    const states = Object.fromEntries(
      (page.rows as { session_id: string; state: string; live: boolean }[]).map((x) => [
        x.session_id,
        [x.state, x.live],
      ]),
    );
    expect(states).toEqual({
      'ended-1': ['ended', false],
      'idle-1': ['idle', false],
      'resumed-1': ['live', true],
      'live-1': ['live', true],
    });
    expect(await json(r.dash.port, '/api/sessions/ended-1')).toMatchObject({ state: 'ended' });
    expect(await json(r.dash.port, '/api/sessions/idle-1')).toMatchObject({ state: 'idle', live: null });
    expect(await json(r.dash.port, '/api/sessions/quit-1')).toMatchObject({
      state: 'idle',
      session: null,
      live: { state: 'idle' },
    });
    const summary = await json(r.dash.port, '/api/summary');
    expect(
      (summary.sessions as { session_id: string; state: string }[]).find((s) => s.session_id === 'quit-1')?.state,
    ).toBe('idle');
  });
});
