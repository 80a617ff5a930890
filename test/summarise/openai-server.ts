/**
 * A local OpenAI-compatible server for layer 1's tests: real HTTP on 127.0.0.1 (port 0), every
 * request recorded (method, path, headers, raw body), and a per-test handler deciding the answer
 * (a summary, an error status, silence, a slow reply).
 *
 * Invariant: `close()` ends open connections too, so a test that leaves a request hanging still
 * finishes.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** The raw body, exactly as it came over the wire. */
  body: string;
  /** True once the client closed the connection before the answer was complete. */
  aborted: boolean;
}

export type Handler = (req: Recorded, res: ServerResponse) => void | Promise<void>;

export interface TestServer {
  /** Base URL with `/v1`. */
  url: string;
  port: number;
  requests: Recorded[];
  handle(handler: Handler): void;
  close(): Promise<void>;
}

export async function startServer(handler: Handler = answerWith(GOOD_SUMMARY)): Promise<TestServer> {
  let current = handler;
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec: Recorded = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        aborted: false,
      };
      requests.push(rec);
      res.on('close', () => {
        if (!res.writableFinished) rec.aborted = true;
      });
      void Promise.resolve(current(rec, res)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    handle: (h) => {
      current = h;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers every completion with `text` as an OpenAI chat completion. */
export function answerWith(text: string, model = 'local-summariser'): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'cmpl-1',
        object: 'chat.completion',
        model,
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1, completion_tokens: 1 },
      }),
    );
  };
}

export function status(code: number, body: string): Handler {
  return (_req, res) => {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(body);
  };
}

/** Reads the chat messages a recorded request sent. */
export function sentMessages(req: Recorded): { role: string; content: string }[] {
  const body = JSON.parse(req.body) as { messages: { role: string; content: string }[] };
  return body.messages;
}

export const GOOD_SUMMARY = `## Goal
Fix the failing build of the pipeline
The user wants \`npm run build\` and the tests to pass.

## Done
1. Ran npm run build: exit 2, src/pipeline.py failed to compile [terminal]
2. Fixed the off-by-one in src/pipeline.py:42 (LIMIT - 1 → LIMIT) [edit_file]

## Decisions
Kept LIMIT at 10: the user asked not to change the public constant.

## Files
src/pipeline.py: edited, builds now.

## Commands
pytest -q: 12 passed.

## Open
None.

## Facts
LIMIT = 10; the failing test was test_pipeline.py::test_limit.`;
