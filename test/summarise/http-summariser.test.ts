/**
 * Layer 1's summariser against a local OpenAI-compatible server over real HTTP (issue 10, "Done
 * means"): success, errors, a timeout, a slow answer while other work goes on, seeded secrets
 * never leaving or coming back, and the iterative update.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import { httpComplete } from '../../src/summarise/http-complete.js';
import { createSummariser } from '../../src/summarise/summariser.js';
import type { SummaryResult } from '../../src/summarise/types.js';
import { fakeSecrets } from './fake-secrets.js';
import { answerWith, GOOD_SUMMARY, sentMessages, startServer, status, type TestServer } from './openai-server.js';

const API_KEY = 'sk-test-DoNotLeakThisKey0123456789abcdef';
const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});
async function server(...args: Parameters<typeof startServer>): Promise<TestServer> {
  const s = await startServer(...args);
  servers.push(s);
  return s;
}

function range(): Message[] {
  return [
    { role: 'user', content: 'Build the project and fix what fails.' },
    {
      role: 'assistant',
      content: 'Building.',
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'terminal', arguments: '{"command":"npm run build"}' } },
      ],
    },
    {
      role: 'tool',
      tool_call_id: 'c1',
      content: JSON.stringify({ output: 'src/pipeline.py:42: error: LIMIT off by one', exit_code: 2, error: null }),
    },
    { role: 'assistant', content: 'Fixed src/pipeline.py; the build passes.' },
  ];
}

function summariser(url: string, timeoutMs = 5000, logs: string[] = []) {
  return createSummariser({
    complete: httpComplete({ url, model: 'local-summariser', apiKey: API_KEY }),
    timeoutMs,
    log: (l) => logs.push(l),
  });
}

describe('the summariser over HTTP', () => {
  it('sends a bounded handoff request and returns the checked note, its topic and its cost', async () => {
    const s = await server();
    const logs: string[] = [];
    const result = await summariser(s.url, 5000, logs).summarise({
      sessionId: 'S1',
      messages: range(),
      maxTokens: 800,
    });
    expect(result).toMatchObject({
      ok: true,
      topic: 'Fix the failing build of the pipeline',
      model: 'local-summariser',
      redactions: 0,
    });
    if (!result.ok) return;
    expect(result.text.startsWith('## Goal')).toBe(true);
    expect(result.tokensIn).toBeGreaterThan(200);
    expect(result.tokensOut).toBeGreaterThan(50);
    expect(s.requests).toHaveLength(1);
    const req = s.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/v1/chat/completions');
    expect(req.headers.authorization).toBe(`Bearer ${API_KEY}`);
    const body = JSON.parse(req.body) as {
      model: string;
      max_tokens: number;
      messages: { role: string; content: string }[];
    };
    expect(body.model).toBe('local-summariser');
    expect(body.max_tokens).toBe(800);
    expect(body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(body.messages[0]!.content).toMatch(
      /## Goal[\s\S]*## Done[\s\S]*## Decisions[\s\S]*## Files[\s\S]*## Commands[\s\S]*## Open[\s\S]*## Facts/,
    );
    const transcript = body.messages[1]!.content;
    expect(transcript).toContain(
      '#3 tool terminal (output):\n(exit_code: 2)\nsrc/pipeline.py:42: error: LIMIT off by one',
    );
    expect(transcript).toContain('→ calls terminal {"command":"npm run build"}');
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(
      /layer 1: summarised 4 messages of session S1 .* with local-summariser: \d+ tokens in, \d+ out/,
    );
  });

  it.each([
    [500, '{"error":{"message":"model overloaded"}}', true],
    [401, `{"error":{"message":"Incorrect API key provided: ${API_KEY}"}}`, false],
  ])(
    'names an HTTP %i, quotes the start of the body, and says whether to retry (%s, %s)',
    async (code, body, retryable) => {
      const s = await server(status(code, body));
      const logs: string[] = [];
      const result = await summariser(s.url, 5000, logs).summarise({
        sessionId: 'S',
        messages: range(),
        maxTokens: 500,
      });
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.retryable).toBe(retryable);
      expect(result.reason).toContain(`HTTP ${code}`);
      expect(result.reason).toContain(`127.0.0.1:${s.port}/v1/chat/completions`);
      expect(result.tokensIn).toBeGreaterThan(0);
      // The key the server echoed is gone from the reason and the log.
      for (const text of [result.reason, ...logs]) expect(text).not.toContain(API_KEY);
      if (code === 500) expect(result.reason).toContain('model overloaded');
    },
  );

  it('quotes at most 200 characters of an error body', async () => {
    const s = await server(status(503, `<html>${'x'.repeat(5000)}</html>`));
    const result = await summariser(s.url).summarise({ sessionId: 'S', messages: range(), maxTokens: 500 });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason.length).toBeLessThan(320);
  });

  it('comes back at the timeout with retryable: true when the server never answers, and cancels the request', async () => {
    const s = await server(() => {
      /* never answers */
    });
    const started = Date.now();
    const result = await summariser(s.url, 300).summarise({ sessionId: 'S', messages: range(), maxTokens: 500 });
    expect(result).toMatchObject({ ok: false, retryable: true });
    if (!result.ok) expect(result.reason).toMatch(/did not answer within 0\.3 s/);
    expect(Date.now() - started).toBeLessThan(5000);
    await waitFor(() => s.requests[0]?.aborted === true);
  });

  it('lets other work go on while it waits for a slow answer', async () => {
    const s = await server();
    s.handle((req, res) => {
      if (req.path === '/v1/ping') {
        res.end('pong');
        return;
      }
      setTimeout(() => answerWith(GOOD_SUMMARY)(req, res), 600);
    });
    let settled = false;
    const pending = summariser(s.url)
      .summarise({ sessionId: 'S', messages: range(), maxTokens: 500 })
      .then((r) => {
        settled = true;
        return r;
      });
    // While the summary is out: timers fire, promises settle, another request to the same server is answered.
    let ticks = 0;
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        if (++ticks === 10) {
          clearInterval(timer);
          resolve();
        }
      }, 5);
    });
    const pong = await (await fetch(`${s.url}/ping`)).text();
    expect(pong).toBe('pong');
    expect(ticks).toBe(10);
    expect(settled).toBe(false);
    const result = await pending;
    expect(result.ok).toBe(true);
  });

  it('never sends a seeded secret, and never returns one, even when the model repeats secrets in its answer', async () => {
    const secrets = fakeSecrets(4242, 40);
    const leaky = `${GOOD_SUMMARY}\n${secrets.map((x) => x.text).join('\n')}`;
    const s = await server(answerWith(leaky));
    const messages: Message[] = [{ role: 'user', content: `Deploy with ${secrets[0]!.text}` }];
    secrets.slice(1).forEach((secret, i) => {
      const id = `c${i}`;
      messages.push({
        role: 'assistant',
        content: '',
        tool_calls: [
          {
            id,
            type: 'function',
            function: { name: 'terminal', arguments: JSON.stringify({ command: `echo ${secret.text}` }) },
          },
        ],
      });
      messages.push({
        role: 'tool',
        tool_call_id: id,
        content: JSON.stringify({ output: `line before\n${secret.text}\nline after`, exit_code: 0 }),
      });
    });
    const logs: string[] = [];
    const result = await summariser(s.url, 5000, logs).summarise({
      sessionId: 'S',
      messages,
      previous: `## Goal\nEarlier\n\n## Facts\n${secrets[1]!.text}`,
      maxTokens: 1500,
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.redactions).toBeGreaterThanOrEqual(secrets.length * 2);
    const wire = s.requests.map((r) => r.body).join('\n');
    // The JSON on the wire escapes some characters: check the decoded contents as well.
    const decoded = s.requests.flatMap((r) => sentMessages(r).map((m) => m.content)).join('\n');
    for (const secret of secrets) {
      const needle = secret.secret.split('\\n')[0]!.split('\n')[0]!;
      for (const text of [wire, decoded, result.text, result.topic, ...logs])
        expect(text, `${secret.kind} leaked`).not.toContain(needle);
    }
  });

  it('sends the previous note and asks for an update that keeps what still holds', async () => {
    const s = await server();
    const previous =
      '## Goal\nMigrate the user table\n\n## Done\n1. Wrote migration 0007 [write_file]\n\n## Open\nThe down migration is untested.';
    const result = await summariser(s.url).summarise({ sessionId: 'S', messages: range(), previous, maxTokens: 500 });
    expect(result.ok).toBe(true);
    const user = sentMessages(s.requests[0]!)[1]!.content;
    expect(user).toContain(`<note>\n${previous}\n</note>`);
    expect(user).toMatch(
      /Write the note again .*Keep every item of the earlier note that the new messages do not contradict/,
    );
    expect(user).toMatch(/continue the numbering of Done/);
    expect(user.indexOf('<note>')).toBeLessThan(user.indexOf('<turns>'));
  });

  it('says the connection was refused when nothing listens', async () => {
    const s = await server();
    const url = s.url;
    await s.close();
    servers.splice(servers.indexOf(s), 1);
    const result = await summariser(url).summarise({ sessionId: 'S', messages: range(), maxTokens: 500 });
    expect(result).toMatchObject({ ok: false, retryable: true });
    if (!result.ok) expect(result.reason).toMatch(/refused the connection/);
  });

  it.each([
    ['invalid JSON', status(200, '{"choices": [ oops'), /invalid JSON: \{"choices": \[ oops/],
    ['no choices', status(200, '{"choices": []}'), /answered with no choices/],
    ['a choice without text', status(200, '{"choices": [{"message": {"role": "assistant"}}]}'), /holds no text/],
    [
      'a chat reply too short to be a note',
      answerWith('Sure! Here is a summary: the user fixed the build.'),
      /too short to be a note/,
    ],
    ['an empty answer', answerWith('   '), /empty text/],
  ])('names %s as the reason', async (_name, handler, reason) => {
    const s = await server(handler);
    const result = await summariser(s.url).summarise({ sessionId: 'S', messages: range(), maxTokens: 500 });
    expect(result).toMatchObject({ ok: false, retryable: true });
    if (!result.ok) expect(result.reason).toMatch(reason);
  });

  it('accepts the endpoint as a base URL with a trailing slash or as the full completions URL', async () => {
    const s = await server();
    for (const url of [`${s.url}/`, `${s.url}/chat/completions`]) {
      const result: SummaryResult = await summariser(url).summarise({
        sessionId: 'S',
        messages: range(),
        maxTokens: 500,
      });
      expect(result.ok).toBe(true);
    }
    expect(s.requests.map((r) => r.path)).toEqual(['/v1/chat/completions', '/v1/chat/completions']);
  });
});

async function waitFor(check: () => boolean, ms = 3000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
