import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultConfig } from '../../src/config/keys.js';
import { chooseComplete, summariserFor } from '../../src/summarise/choose.js';
import type { HostCall } from '../../src/summarise/host-complete.js';
import { createSummariser } from '../../src/summarise/summariser.js';
import { GOOD_SUMMARY, startServer, type TestServer } from './openai-server.js';

const endpoint = (patch: Partial<{ url: string; model: string; api_key_env: string }> = {}) => ({
  ...defaultConfig().background_compression.endpoint,
  ...patch,
});
const hostCall: HostCall = () => Promise.resolve({ text: GOOD_SUMMARY, model: 'aux' });

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

describe('chooseComplete', () => {
  it("picks the host's model when the host advertised llm.complete in hello, even with an endpoint set", async () => {
    const choice = chooseComplete({
      hostCapabilities: ['append', 'llm.complete'],
      hostCall,
      endpoint: endpoint({ url: 'http://127.0.0.1:1/v1', model: 'm' }),
      env: {},
    });
    expect(choice.kind).toBe('host');
    if (choice.kind !== 'host') return;
    const result = await createSummariser({ complete: choice.complete, timeoutMs: 1000, log: () => {} }).summarise({
      sessionId: 'S',
      messages: [{ role: 'user', content: 'x' }],
      maxTokens: 100,
    });
    expect(result).toMatchObject({ ok: true, model: 'aux' });
  });

  it('picks the endpoint when the host did not advertise llm.complete, with the key from the named variable', async () => {
    const s = await startServer();
    servers.push(s);
    const choice = chooseComplete({
      hostCapabilities: ['append'],
      hostCall,
      endpoint: endpoint({ url: s.url, model: 'small', api_key_env: 'HMC_TEST_KEY' }),
      env: { HMC_TEST_KEY: 'sk-envKey0123456789abcdefXYZ' },
    });
    expect(choice).toMatchObject({
      kind: 'endpoint',
      describe: `small at http://127.0.0.1:${s.port}/v1/chat/completions`,
    });
    if (choice.kind !== 'endpoint') return;
    const result = await createSummariser({ complete: choice.complete, timeoutMs: 5000, log: () => {} }).summarise({
      sessionId: 'S',
      messages: [{ role: 'user', content: 'x' }],
      maxTokens: 100,
    });
    expect(result.ok).toBe(true);
    expect(s.requests[0]!.headers.authorization).toBe('Bearer sk-envKey0123456789abcdefXYZ');
    expect(JSON.parse(s.requests[0]!.body)).toMatchObject({ model: 'small' });
  });

  it('sends no Authorization header when no key variable is configured (a local server)', async () => {
    const s = await startServer();
    servers.push(s);
    const choice = chooseComplete({ endpoint: endpoint({ url: s.url, model: 'small' }), env: {} });
    if (choice.kind !== 'endpoint') throw new Error(`expected the endpoint, got ${choice.kind}`);
    await createSummariser({ complete: choice.complete, timeoutMs: 5000, log: () => {} }).summarise({
      sessionId: 'S',
      messages: [{ role: 'user', content: 'x' }],
      maxTokens: 100,
    });
    expect(s.requests[0]!.headers.authorization).toBeUndefined();
  });

  it.each([
    [
      'no model and no endpoint',
      {},
      /the host offers no auxiliary model \(llm\.complete\) and background_compression\.endpoint\.url is empty/,
    ],
    ['a URL that is not one', { url: 'not a url', model: 'm' }, /endpoint\.url is not a valid URL/],
    ['a URL with another scheme', { url: 'ftp://host/v1', model: 'm' }, /must be http or https \(got ftp\)/],
    [
      'a password in the URL',
      { url: 'http://me:hunter22@host/v1', model: 'm' },
      /must not hold a user name or password/,
    ],
    ['no model name', { url: 'http://127.0.0.1:8080/v1' }, /endpoint\.model is empty/],
    [
      'a key variable that is not set',
      { url: 'http://127.0.0.1:8080/v1', model: 'm', api_key_env: 'HMC_MISSING_KEY' },
      /the environment variable HMC_MISSING_KEY \(background_compression\.endpoint\.api_key_env\) is not set/,
    ],
  ])('is none, saying why, for %s', (_name, patch, reason) => {
    const choice = chooseComplete({ hostCapabilities: [], endpoint: endpoint(patch), env: {} });
    expect(choice.kind).toBe('none');
    if (choice.kind === 'none') {
      expect(choice.reason).toMatch(reason);
      expect(choice.reason).not.toContain('hunter22');
    }
  });

  it('says the host offers llm.complete but cannot be called when the runtime has no hostCall', () => {
    const choice = chooseComplete({ hostCapabilities: ['llm.complete'], endpoint: endpoint(), env: {} });
    expect(choice).toMatchObject({
      kind: 'none',
      reason: expect.stringMatching(/^the host offers llm\.complete but this process cannot call it/),
    });
  });
});

describe('summariserFor', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('wraps the chosen model with background_compression.timeout_seconds', async () => {
    vi.useFakeTimers();
    const config = { ...defaultConfig().background_compression, timeout_seconds: 2 };
    const silent: HostCall = () => new Promise(() => {});
    const setup = summariserFor({
      hostCapabilities: ['llm.complete'],
      hostCall: silent,
      config,
      env: {},
      log: () => {},
    });
    expect(setup).toMatchObject({ uses: "layer 1 summarises with the host's auxiliary model (llm.complete)" });
    if (!setup.summariser) return;
    let reason = '';
    void setup.summariser
      .summarise({ sessionId: 'S', messages: [{ role: 'user', content: 'x' }], maxTokens: 100 })
      .then((r) => {
        if (!r.ok) reason = r.reason;
      });
    await vi.advanceTimersByTimeAsync(1999);
    expect(reason).toBe('');
    await vi.advanceTimersByTimeAsync(1);
    expect(reason).toBe('the summariser did not answer within 2.0 s');
  });

  it('is null with one sentence saying why layer 1 is off', () => {
    expect(summariserFor({ config: defaultConfig().background_compression, env: {}, log: () => {} })).toEqual({
      summariser: null,
      why: 'layer 1 is off: the host offers no auxiliary model (llm.complete) and background_compression.endpoint.url is empty',
    });
  });
});
