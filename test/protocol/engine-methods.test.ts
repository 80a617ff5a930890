/**
 * The context engine's methods on the wire (issue 16): each line is checked before use and a bad
 * one is answered with an error naming the field; a usage figure left out counts as 0, one that is
 * no token count refuses the usage (issue 26, finding 9), and a cache figure is kept; an API that is no context engine answers an error (the host hands over), never
 * a crash; the sidecar's hello lists the capability.
 */
import { describe, expect, it } from 'vitest';
import { dispatch } from '../../src/protocol/dispatch.js';
import { parseIncoming } from '../../src/protocol/guards.js';
import { CAPABILITIES } from '../../src/engine/hello.js';
import { stubApi } from './stub-api.js';

function request(line: Record<string, unknown>) {
  const r = parseIncoming(JSON.stringify(line));
  if (r.kind !== 'request') throw new Error(`expected a request, got ${r.kind}: ${JSON.stringify(r)}`);
  return r.request;
}

function error(line: Record<string, unknown>): string {
  const r = parseIncoming(JSON.stringify(line));
  if (r.kind !== 'invalid') throw new Error(`expected invalid, got ${r.kind}`);
  return r.error.message;
}

describe('the context engine on the wire', () => {
  it('checks should_compress and names what is wrong', () => {
    const ok = request({
      id: 1,
      method: 'should_compress',
      params: {
        session_id: 's',
        tokens: 900,
        measure: 'host',
        threshold_tokens: 800,
        in_place_tokens: 'x',
        awaiting_usage: true,
      },
    });
    expect(ok.params).toEqual({
      session_id: 's',
      tokens: 900,
      measure: 'host',
      threshold_tokens: 800,
      awaiting_usage: true,
    });
    expect(
      error({
        id: 2,
        method: 'should_compress',
        params: { session_id: 's', tokens: -1, measure: 'host', threshold_tokens: 1 },
      }),
    ).toContain('params.tokens');
    expect(
      error({
        id: 3,
        method: 'should_compress',
        params: { session_id: 's', tokens: 1, measure: 'rough', threshold_tokens: 1 },
      }),
    ).toContain('params.measure');
    expect(
      error({ id: 4, method: 'should_compress', params: { session_id: 's', tokens: 1, measure: 'host' } }),
    ).toContain('params.threshold_tokens');
  });

  it('checks compress: messages with a role, the extras only when they are text', () => {
    const ok = request({
      id: 5,
      method: 'compress',
      params: {
        session_id: 's',
        messages: [{ role: 'user', content: 'hi' }],
        focus_topic: 'auth',
        memory_context: 7,
        force: 'yes',
      },
    });
    expect(ok.params).toEqual({ session_id: 's', messages: [{ role: 'user', content: 'hi' }], focus_topic: 'auth' });
    expect(error({ id: 6, method: 'compress', params: { session_id: 's', messages: [{ content: 'x' }] } })).toContain(
      'messages[0]',
    );
  });

  it('takes usage with missing figures as 0 and refuses usage that is no object', () => {
    const ok = request({
      id: 7,
      method: 'update_from_response',
      params: {
        session_id: 's',
        model: 'claude',
        usage: { prompt_tokens: 100, cache_read_tokens: 60, cache_write_tokens: null, completion_tokens: '7' },
      },
    });
    expect(ok.params).toEqual({
      session_id: 's',
      model: 'claude',
      provider: '',
      usage: {
        prompt_tokens: 100,
        completion_tokens: 7,
        cache_read_tokens: 60,
        cache_write_tokens: 0,
        reasoning_tokens: 0,
      },
    });
    expect(error({ id: 8, method: 'update_from_response', params: { session_id: 's', usage: [1] } })).toContain(
      'params.usage',
    );
    expect(error({ id: 9, method: 'engine_session', params: { session_id: 's', event: 'finish' } })).toContain(
      'params.event',
    );
  });

  // Issue 26, finding 9: a figure that is no token count was stored as 0 (or rounded): a wrong figure.
  it.each([
    ['negative', -5],
    ['fractional', 100.4],
    ['huge', 1e300],
    ['past a trillion', 2e12],
    ['a word', 'abc'],
    ['a negative string', '-3'],
    ['an object', { n: 1 }],
    ['true', true],
    ['an empty string', ''],
  ])('refuses usage with a figure that is %s, naming it', (_name, value) => {
    const message = error({
      id: 11,
      method: 'update_from_response',
      params: { session_id: 's', usage: { prompt_tokens: 100, cache_read_tokens: value } },
    });
    expect(message).toContain('params.usage.cache_read_tokens must be a whole number');
  });

  it('answers an error, not a crash, when the API is no context engine; the sidecar lists the capability', async () => {
    const answer = await dispatch(
      request({ id: 10, method: 'compress', params: { session_id: 's', messages: [] } }),
      stubApi(),
    );
    expect(answer).toMatchObject({
      id: 10,
      error: { code: 'internal', message: expect.stringContaining('no context engine') },
    });
    expect(CAPABILITIES).toContain('context_engine');
  });
});
