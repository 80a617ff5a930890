import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { serveStdio } from '../../src/cli/sidecar.js';
import { parseSidecarArgs } from '../../src/cli/sidecar.js';
import { stubApi } from './stub-api.js';

/** Runs the sidecar loop over in-memory streams against the stub engine. */
function harness(maxLineBytes?: number) {
  const input = new PassThrough();
  const output = new PassThrough();
  const logs: string[] = [];
  const records: Record<string, unknown>[] = [];
  let buffered = '';
  output.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      records.push(JSON.parse(buffered.slice(0, nl)));
      buffered = buffered.slice(nl + 1);
    }
  });
  let closed = false;
  const done = serveStdio({
    input,
    output,
    log: (l) => logs.push(l),
    ...(maxLineBytes ? { maxLineBytes } : {}),
    createApi: async (hostCall) => ({
      api: stubApi(hostCall),
      close: async () => {
        closed = true;
      },
    }),
  });
  const send = (record: unknown): void =>
    void input.write(`${typeof record === 'string' ? record : JSON.stringify(record)}\n`);
  const waitFor = async (pred: (r: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> => {
    for (let i = 0; i < 200; i++) {
      const hit = records.find(pred);
      if (hit) return hit;
      await new Promise((r) => setTimeout(r, 5));
    }
    throw new Error(`no record matched; got ${JSON.stringify(records)}`);
  };
  return { input, records, logs, send, waitFor, done, isClosed: () => closed };
}

describe('hmc sidecar loop', () => {
  it('answers a line over the limit under its own id and tells the limit in hello (regression: id null, the bridge timed out and restarted it)', async () => {
    const h = harness(1000);
    h.send({ id: 1, method: 'hello', params: { host: 'test', protocol: 1, capabilities: [] } });
    expect(await h.waitFor((r) => r.id === 1)).toMatchObject({ result: { max_line_bytes: 1000 } });
    h.send({
      id: 7,
      method: 'pre_llm_call',
      params: { session_id: 's', messages: [{ role: 'user', content: 'x'.repeat(5000) }] },
    });
    h.send({
      id: 'eight',
      method: 'pre_llm_call',
      params: { session_id: 's', messages: [{ role: 'user', content: 'y'.repeat(5000) }] },
    });
    expect(await h.waitFor((r) => r.id === 7)).toMatchObject({
      error: { code: 'line_too_long', message: expect.stringContaining('limit of 1000 bytes') },
    });
    expect(await h.waitFor((r) => r.id === 'eight')).toMatchObject({ error: { code: 'line_too_long' } });
    expect(h.records.some((r) => r.id === null)).toBe(false);
    // The loop goes on.
    h.send({ id: 9, method: 'pre_tool_call', params: { session_id: 's', tool_name: 't', args: {} } });
    expect(await h.waitFor((r) => r.id === 9)).toMatchObject({ result: {} });
    h.input.end();
    await h.done;
  });

  it('answers hello with the engine capabilities', async () => {
    const h = harness();
    h.send({ id: 1, method: 'hello', params: { host: 'test', protocol: 1, capabilities: [] } });
    expect(await h.waitFor((r) => r.id === 1)).toEqual({
      id: 1,
      result: { version: 'stub', protocol: 1, capabilities: ['append'], max_line_bytes: 256 * 1024 * 1024 },
    });
    h.input.end();
    await h.done;
    expect(h.isClosed()).toBe(true);
  });

  it('answers pre_llm_call with edits, then serves base + append, and asks for a resync on a wrong base', async () => {
    const h = harness();
    const long = 'z'.repeat(500);
    const msgs = [
      { role: 'user', content: 'hi' },
      { role: 'tool', content: long, tool_call_id: 'c1' },
    ];
    h.send({ id: 'a', method: 'pre_llm_call', params: { session_id: 's', messages: msgs } });
    expect(await h.waitFor((r) => r.id === 'a')).toEqual({
      id: 'a',
      result: { edits: [{ index: 1, content: '[compressed 500]' }] },
    });
    h.send({
      id: 'b',
      method: 'pre_llm_call',
      params: { session_id: 's', base: 2, append: [{ role: 'tool', content: long }] },
    });
    const b = await h.waitFor((r) => r.id === 'b');
    expect(b.result).toEqual({
      edits: [
        { index: 1, content: '[compressed 500]' },
        { index: 2, content: '[compressed 500]' },
      ],
    });
    h.send({ id: 'c', method: 'pre_llm_call', params: { session_id: 's', base: 7, append: [] } });
    expect(await h.waitFor((r) => r.id === 'c')).toMatchObject({ id: 'c', error: { code: 'resync' } });
    h.input.end();
    await h.done;
  });

  it('answers pre_model_call like pre_llm_call, on the same held conversation', async () => {
    const h = harness();
    const long = 'z'.repeat(500);
    h.send({
      id: 'a',
      method: 'pre_llm_call',
      params: { session_id: 's', messages: [{ role: 'user', content: 'hi' }] },
    });
    await h.waitFor((r) => r.id === 'a');
    h.send({
      id: 'b',
      method: 'pre_model_call',
      params: {
        session_id: 's',
        base: 1,
        append: [
          { role: 'assistant', content: '' },
          { role: 'tool', content: long },
        ],
      },
    });
    expect(await h.waitFor((r) => r.id === 'b')).toEqual({
      id: 'b',
      result: { edits: [{ index: 2, content: '[compressed 500]' }] },
    });
    h.send({ id: 'c', method: 'pre_model_call', params: { session_id: 's', base: 9, append: [] } });
    expect(await h.waitFor((r) => r.id === 'c')).toMatchObject({ id: 'c', error: { code: 'resync' } });
    h.send({ id: 'd', method: 'pre_model_call', params: { session_id: 's' } });
    expect(await h.waitFor((r) => r.id === 'd')).toMatchObject({ id: 'd', error: { code: 'invalid_params' } });
    h.input.end();
    await h.done;
  });

  it('never crashes on bad lines and names what is wrong', async () => {
    const h = harness();
    h.send('not json');
    h.send({ id: 2, method: 'nope' });
    h.send({ id: 3, method: 'post_tool_call', params: { tool_name: 'x' } });
    h.send({ id: 4, method: 'hmc_control', params: { args: { action: 'boom' } } });
    h.send({ id: 5, method: 'command', params: { raw_args: 'status' } });
    expect(await h.waitFor((r) => r.id === null)).toMatchObject({ error: { code: 'parse_error' } });
    expect(await h.waitFor((r) => r.id === 2)).toMatchObject({ error: { code: 'unknown_method' } });
    expect(await h.waitFor((r) => r.id === 3)).toMatchObject({ error: { code: 'invalid_params' } });
    expect(await h.waitFor((r) => r.id === 4)).toEqual({ id: 4, error: { code: 'internal', message: 'boom' } });
    expect(await h.waitFor((r) => r.id === 5)).toEqual({ id: 5, result: 'ran: status' });
    expect(h.logs.some((l) => l.includes('nope'))).toBe(true);
    h.input.end();
    await h.done;
  });

  it('normalizes the dashboard forms of hmc_control before the engine sees them', async () => {
    const h = harness();
    h.send({
      id: 1,
      method: 'hmc_control',
      params: { session_id: 's', args: { action: 'dashboard', dashboard: { action: 'start' } } },
    });
    expect(await h.waitFor((r) => r.id === 1)).toEqual({
      id: 1,
      result: { action: 'dashboard', sub_action: 'start', session: 's' },
    });
    h.input.end();
    await h.done;
  });

  it('calls the host for llm.complete and resumes with its answer', async () => {
    const h = harness();
    h.send({ id: 9, method: 'hmc_control', params: { args: { action: 'ask' } } });
    const req = await h.waitFor((r) => r.method === 'llm.complete');
    expect(req).toEqual({
      id: 'h1',
      method: 'llm.complete',
      params: { messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 },
    });
    h.send({ id: 'h1', result: { text: 'hello', model: 'aux' } });
    expect(await h.waitFor((r) => r.id === 9)).toEqual({ id: 9, result: { answer: { text: 'hello', model: 'aux' } } });
    h.input.end();
    await h.done;
  });

  it('fails a pending host call when stdin closes, and still exits', async () => {
    const h = harness();
    h.send({ id: 9, method: 'hmc_control', params: { args: { action: 'ask' } } });
    await h.waitFor((r) => r.method === 'llm.complete');
    h.input.end();
    await h.done;
    expect(h.records.find((r) => r.id === 9)).toMatchObject({ error: { code: 'internal' } });
  });

  it('processes a line that arrives without a final newline before stdin closes', async () => {
    const h = harness();
    h.input.end(JSON.stringify({ id: 'last', method: 'on_session_end', params: { session_id: 's' } }));
    await h.done;
    expect(h.records).toEqual([{ id: 'last', result: {} }]);
  });
});

describe('parseSidecarArgs', () => {
  it('reads --stdio, --state-dir and --config', () => {
    expect(parseSidecarArgs(['--stdio', '--state-dir', '/x', '--config=/c.yaml'])).toEqual({
      stateDir: '/x',
      configPath: '/c.yaml',
    });
  });
  it('refuses unknown options and a missing --stdio', () => {
    expect(parseSidecarArgs(['--stdio', '--what'])).toContain('--what');
    expect(parseSidecarArgs([])).toContain('--stdio');
  });

  it('tells the engine a request is being read while part of its line is in, so background work waits for the whole line (issue 19)', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let reading: (() => boolean) | undefined;
    const done = serveStdio({
      input,
      output,
      log: () => {},
      createApi: async (hostCall, io) => {
        reading = io.reading;
        return { api: stubApi(hostCall), close: async () => {} };
      },
    });
    for (let i = 0; i < 50 && !reading; i++) await new Promise((r) => setTimeout(r, 5));
    const isReading = reading as () => boolean;
    expect(isReading()).toBe(false);
    input.write('{"id":1,"method":"pre_tool_call","params":{"session_id":"s",');
    await new Promise((r) => setImmediate(r));
    expect(isReading()).toBe(true);
    input.write('"tool_name":"t","args":{}}}\n');
    await new Promise((r) => setImmediate(r));
    expect(isReading()).toBe(false);
    // A writer that stalls mid-line holds the background work for half a second at most.
    input.write('{"id":2,');
    await new Promise((r) => setImmediate(r));
    expect(isReading()).toBe(true);
    await new Promise((r) => setTimeout(r, 600));
    expect(isReading()).toBe(false);
    input.end();
    await done;
  });
});
