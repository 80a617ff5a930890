import { describe, expect, it } from 'vitest';
import { llmCompleteParams, normalizeControlArgs, parseIncoming } from '../../src/protocol/guards.js';

function invalid(line: string): { code: string; message: string; id: unknown } {
  const r = parseIncoming(line);
  if (r.kind !== 'invalid') throw new Error(`expected invalid, got ${r.kind}`);
  return { ...r.error, id: r.id };
}

describe('parseIncoming', () => {
  it('accepts a full pre_llm_call and keeps unknown extra fields', () => {
    const r = parseIncoming(
      JSON.stringify({
        id: 'a',
        method: 'pre_llm_call',
        params: { session_id: 's', messages: [{ role: 'user', content: 'hi', extra: 1 }], model: 'm', telemetry: 'x' },
      }),
    );
    expect(r.kind).toBe('request');
    if (r.kind === 'request' && r.request.method === 'pre_llm_call') {
      expect(r.request.params.messages?.[0]?.extra).toBe(1);
      expect(r.request.params.telemetry).toBe('x');
    }
  });

  it('leaves out an optional hint of the wrong type, as if the host had not sent it', () => {
    const r = parseIncoming(
      JSON.stringify({
        id: 'h',
        method: 'pre_model_call',
        params: {
          session_id: 's',
          messages: [],
          model: 7,
          platform: 'cli',
          project_path: [],
          compression_threshold: '0.5',
        },
      }),
    );
    if (r.kind !== 'request' || r.request.method !== 'pre_model_call')
      throw new Error(`expected a pre_model_call, got ${r.kind}`);
    expect(r.request.params).not.toHaveProperty('model');
    expect(r.request.params).not.toHaveProperty('project_path');
    expect(r.request.params).not.toHaveProperty('compression_threshold');
    expect(r.request.params.platform).toBe('cli');
    const post = parseIncoming(
      JSON.stringify({
        id: 'p',
        method: 'post_tool_call',
        params: { session_id: 's', tool_name: 't', result: 'x', tool_call_id: 12 },
      }),
    );
    if (post.kind !== 'request' || post.request.method !== 'post_tool_call')
      throw new Error(`expected a post_tool_call, got ${post.kind}`);
    expect(post.request.params).not.toHaveProperty('tool_call_id');
  });

  it('accepts base + append', () => {
    const r = parseIncoming(
      JSON.stringify({ id: 2, method: 'pre_llm_call', params: { session_id: 's', base: 3, append: [] } }),
    );
    expect(r.kind === 'request' && r.request.method === 'pre_llm_call' && r.request.params.base).toBe(3);
  });

  it('names the field when a message has no role', () => {
    const e = invalid(
      JSON.stringify({
        id: 7,
        method: 'pre_llm_call',
        params: { session_id: 's', messages: [{ role: 'user' }, { content: 'x' }] },
      }),
    );
    expect(e).toMatchObject({ code: 'invalid_params', id: 7 });
    expect(e.message).toContain('messages[1]');
  });

  it('rejects a negative base', () => {
    expect(
      invalid(JSON.stringify({ id: 1, method: 'pre_llm_call', params: { base: -1, append: [] } })).message,
    ).toContain('params.base');
  });

  it('accepts pre_model_call in both forms and checks context_length in both', () => {
    const full = parseIncoming(
      JSON.stringify({
        id: 1,
        method: 'pre_model_call',
        params: { session_id: 's', messages: [{ role: 'user', content: 'hi' }], context_length: 8000 },
      }),
    );
    expect(full.kind === 'request' && full.request.method === 'pre_model_call').toBe(true);
    const inc = parseIncoming(
      JSON.stringify({ id: 2, method: 'pre_model_call', params: { session_id: 's', base: 1, append: [] } }),
    );
    expect(inc.kind === 'request' && inc.request.method === 'pre_model_call' && inc.request.params.base).toBe(1);
    expect(
      invalid(
        JSON.stringify({
          id: 3,
          method: 'pre_model_call',
          params: { session_id: 's', messages: [], context_length: 'big' },
        }),
      ).message,
    ).toContain('context_length');
  });

  it('checks what pre_model_call adds: call_id, system, tools and view', () => {
    const ok = parseIncoming(
      JSON.stringify({
        id: 1,
        method: 'pre_model_call',
        params: { session_id: 's', base: 0, append: [], call_id: 'a:1', system: null, tools: [], view: 0 },
      }),
    );
    expect(ok.kind).toBe('request');
    const bad = (extra: Record<string, unknown>) =>
      invalid(JSON.stringify({ id: 2, method: 'pre_model_call', params: { session_id: 's', messages: [], ...extra } }))
        .message;
    expect(bad({ call_id: 7 })).toContain('call_id');
    expect(bad({ system: 3 })).toContain('system');
    expect(bad({ tools: {} })).toContain('tools');
    expect(bad({ view: 1.5 })).toContain('view');
  });

  it('accepts the conversation with on_session_end and on_session_finalize, and checks it', () => {
    const end = parseIncoming(
      JSON.stringify({
        id: 1,
        method: 'on_session_end',
        params: { session_id: 's', messages: [{ role: 'user', content: 'hi' }] },
      }),
    );
    expect(end.kind).toBe('request');
    expect(
      invalid(JSON.stringify({ id: 2, method: 'on_session_finalize', params: { session_id: null, messages: [1] } }))
        .message,
    ).toContain('messages[0]');
  });

  it('rejects pre_llm_call with neither messages nor base', () => {
    expect(invalid(JSON.stringify({ id: 1, method: 'pre_llm_call', params: {} })).message).toContain('"messages"');
  });

  it('answers malformed JSON with parse_error and no id', () => {
    expect(invalid('{"id": 1, ')).toMatchObject({ code: 'parse_error', id: null });
  });

  it('answers an unknown method by name', () => {
    const e = invalid(JSON.stringify({ id: 'x', method: 'frobnicate' }));
    expect(e).toMatchObject({ code: 'unknown_method', id: 'x' });
    expect(e.message).toContain('frobnicate');
  });

  it('requires an id', () => {
    expect(invalid(JSON.stringify({ method: 'hello' })).message).toContain('"id"');
  });

  it('rejects non-object records and params', () => {
    expect(invalid('[1,2]').code).toBe('invalid_request');
    expect(invalid(JSON.stringify({ id: 1, method: 'hello', params: [1] })).code).toBe('invalid_params');
  });

  it('turns a null session_id into an empty string (Hermes finalize may pass None)', () => {
    const r = parseIncoming(
      JSON.stringify({ id: 1, method: 'on_session_finalize', params: { session_id: null, reason: 'shutdown' } }),
    );
    expect(r.kind === 'request' && r.request.params.session_id).toBe('');
  });

  it('rejects a numeric session_id', () => {
    expect(invalid(JSON.stringify({ id: 1, method: 'on_session_end', params: { session_id: 5 } })).message).toContain(
      'session_id',
    );
  });

  it('requires post_tool_call result and tool_name', () => {
    expect(invalid(JSON.stringify({ id: 1, method: 'post_tool_call', params: { tool_name: 't' } })).message).toContain(
      'result',
    );
    expect(invalid(JSON.stringify({ id: 1, method: 'post_tool_call', params: { result: 'r' } })).message).toContain(
      'tool_name',
    );
  });

  it('classifies responses to our own requests', () => {
    expect(parseIncoming('{"id":"h1","result":{"text":"x"}}').kind).toBe('response');
    expect(parseIncoming('{"id":"h1","error":{"code":"x","message":"y"}}').kind).toBe('response');
  });

  it('refuses an unsupported protocol version in hello', () => {
    expect(invalid(JSON.stringify({ id: 1, method: 'hello', params: { protocol: 2 } })).message).toContain('protocol');
  });
});

describe('normalizeControlArgs', () => {
  it('keeps the flat sub_action form', () => {
    expect(normalizeControlArgs({ action: 'dashboard', sub_action: 'start' })).toEqual({
      action: 'dashboard',
      sub_action: 'start',
    });
  });
  it('splits the text form "dashboard start"', () => {
    expect(normalizeControlArgs({ action: 'dashboard start' })).toEqual({ action: 'dashboard', sub_action: 'start' });
  });
  it('lifts the nested form', () => {
    expect(normalizeControlArgs({ action: 'dashboard', dashboard: { action: 'stop' } })).toEqual({
      action: 'dashboard',
      sub_action: 'stop',
    });
  });
  it('leaves other actions alone', () => {
    expect(normalizeControlArgs({ action: 'analytics', period: 'day' })).toEqual({
      action: 'analytics',
      period: 'day',
    });
  });
});

describe('llmCompleteParams', () => {
  it('checks messages and max_tokens', () => {
    expect(llmCompleteParams({ messages: [{ role: 'user', content: 'x' }], max_tokens: 10 })).toBeDefined();
    expect(llmCompleteParams({ messages: 'x', max_tokens: 10 })).toBeUndefined();
    expect(llmCompleteParams({ messages: [], max_tokens: 0 })).toBeUndefined();
  });
});
