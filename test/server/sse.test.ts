import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStateDirSink } from '../../src/events/state-dir-sink.js';
import { formatSse, SseFieldError } from '../../src/server/sse-format.js';
import { rig, type Rig } from './setup.js';
import { defaultConfig } from '../../src/config/keys.js';
import { openSse, rawRequest, turnPayload, toolPayload } from './helpers.js';

describe('SSE framing', () => {
  it('should split data per line and refuse CR/LF in event or id', () => {
    expect(formatSse('turn', 'a\nb', 'x:1')).toBe('event: turn\nid: x:1\ndata: a\ndata: b\n\n');
    expect(() => formatSse('turn\ndata: evil', '{}')).toThrow(SseFieldError);
    expect(() => formatSse('turn', '{}', 'x\r\nevent: evil')).toThrow(SseFieldError);
  });
});

describe('the /events stream', () => {
  let r: Rig;
  beforeAll(async () => {
    r = await rig({ extra: { maxClients: 3 } });
  });
  afterAll(async () => r.done());

  it('sends hello, then turn/tool/session_end with id lines', async () => {
    const c = await openSse(r.dash.port);
    expect(c.status).toBe(200);
    await c.waitFor((f) => f.some((x) => x.event === 'hello'));
    r.sink.emit(turnPayload('s1', 1, 100));
    r.sink.emit(toolPayload('s1', 1, 'terminal'));
    r.sink.emit({
      type: 'session_end',
      session_id: 's1',
      turns: 1,
      tool_calls: 1,
      total_saved: 100,
      by_strategy: {},
      by_tool: {},
      input_tokens: { raw: 400, hmc: 300 },
    });
    await c.waitFor((f) => f.some((x) => x.event === 'session_end'));
    const named = c.frames.filter((f) => f.event !== 'hello');
    expect(named.map((f) => f.event)).toEqual(['turn', 'tool', 'session_end']);
    expect(named.map((f) => f.id)).toEqual(['test-proc:1', 'test-proc:2', 'test-proc:3']);
    expect(JSON.parse(named[0]?.data ?? '{}')).toMatchObject({ type: 'turn', session_id: 's1', source: 'test-proc' });
    c.close();
  });

  it('resumes from Last-Event-ID with the events missed', async () => {
    const c = await openSse(r.dash.port, { 'last-event-id': 'test-proc:1' });
    await c.waitFor((f) => f.filter((x) => x.event !== 'hello').length >= 2);
    expect(JSON.parse(c.frames[0]?.data ?? '{}')).toMatchObject({ resumed: true });
    expect(c.frames.slice(1).map((f) => f.id)).toEqual(['test-proc:2', 'test-proc:3']);
    c.close();
  });

  it('should refuse clients beyond maxClients with 503', async () => {
    const open = [await openSse(r.dash.port), await openSse(r.dash.port), await openSse(r.dash.port)];
    await open[2]?.waitFor((f) => f.length > 0);
    expect(r.dash.subscribers()).toBe(3);
    const extra = await rawRequest(r.dash.port, '/events');
    expect(extra.status).toBe(503);
    for (const c of open) c.close();
    await new Promise((res) => setTimeout(res, 50));
    expect(r.dash.subscribers()).toBe(0);
  });

  it('should drop a client that stops reading instead of buffering without bound', async () => {
    const c = await openSse(r.dash.port);
    await c.waitFor((f) => f.length > 0);
    // Stop reading: the socket's buffers fill, then the hub's bound trips.
    const big = 'x'.repeat(20_000);
    c.close();
    for (let i = 0; i < 400; i++) r.sink.emit(turnPayload('slow', i + 1, i, { model: big }));
    await new Promise((res) => setTimeout(res, 100));
    expect(r.dash.subscribers()).toBe(0);
  });

  it('shows events of another process through the state dir', async () => {
    const c = await openSse(r.dash.port);
    await c.waitFor((f) => f.some((x) => x.event === 'hello'));
    const other = createStateDirSink({ stateDir: r.dir, source: 'other-proc', inspector: false, log: () => undefined });
    other.emit(turnPayload('from-other', 1, 42));
    await c.waitFor((f) => f.some((x) => x.id === 'other-proc:1'), 5000);
    await other.close();
    c.close();
  });
});

describe('an in-process dashboard started again', () => {
  it('should show its own recent events once, not twice', async () => {
    const r = await rig();
    try {
      r.sink.emit(turnPayload('mine', 1, 10));
      r.sink.emit(toolPayload('mine', 1, 'terminal'));
      const before = JSON.parse((await rawRequest(r.dash.port, '/api/summary')).body);
      await r.dash.stop();
      await new Promise((res) => setTimeout(res, 50));
      const { startDashboard } = await import('../../src/server/index.js');
      const again = await startDashboard({
        stateDir: r.dir,
        port: 0,
        dbPath: null,
        feed: r.sink,
        log: () => undefined,
        version: 't',
        pricing: { ...defaultConfig().pricing, default_input_per_million: 1 },
      });
      try {
        const ev = JSON.parse((await rawRequest(again.port, '/api/events')).body);
        expect(ev.events.map((e: { id: string }) => e.id)).toEqual(['test-proc:1', 'test-proc:2']);
        const sum = JSON.parse((await rawRequest(again.port, '/api/summary')).body);
        expect(sum.current).toEqual(before.current);
      } finally {
        await again.stop();
      }
    } finally {
      await r.done();
    }
  });
});
