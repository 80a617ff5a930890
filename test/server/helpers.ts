/**
 * Test helpers: event payloads like the engine's, raw HTTP requests (so Host and Origin can be
 * forged) and a minimal SSE reader.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { EventPayload, InspectRecord, ToolEvent, TurnEvent } from '../../src/events/types.js';

export function turnPayload(
  session_id: string,
  turn: number,
  saved: number,
  extra: Partial<TurnEvent> = {},
): EventPayload {
  return {
    type: 'turn',
    session_id,
    turn,
    model: 'claude-sonnet-4',
    platform: 'cli',
    project_path: '/home/ada/src/hmc',
    context_tokens: 20000 + turn * 1000,
    context_window: 200000,
    context_percent: (20000 + turn * 1000) / 200000,
    delta_saved: 100,
    cumulative_saved: saved,
    by_strategy: { truncation: saved },
    by_tool: { terminal: saved },
    input_tokens: { raw: saved * 4, hmc: saved * 3 },
    tool_calls: turn * 2,
    cache_breaks: 0,
    ...extra,
  };
}

export function toolPayload(
  session_id: string,
  turn: number,
  tool_name: string,
  extra: Partial<ToolEvent> = {},
): EventPayload {
  return {
    type: 'tool',
    session_id,
    turn,
    tool_name,
    tool_call_id: `call_${turn}_${tool_name.length}`,
    is_error: false,
    tokens_before: 1200,
    tokens_after: 300,
    strategies: ['truncation'],
    delta_saved: 900,
    cumulative_saved: 900,
    by_strategy: { truncation: 900 },
    context_tokens: 21000,
    context_percent: 0.105,
    ...extra,
  };
}

export function inspectRecord(session_id: string, tool_call_id: string, tool_name = 'terminal'): InspectRecord {
  const before = Array.from({ length: 30 }, (_, i) => `line ${i + 1}: compiling module ${i}`).join('\n');
  const after = [...before.split('\n').slice(0, 5), '[... 20 lines omitted ...]', ...before.split('\n').slice(25)].join(
    '\n',
  );
  return {
    id: `${session_id}:${tool_call_id}`,
    session_id,
    tool_call_id,
    tool_name,
    time: Date.now(),
    strategies: ['truncation'],
    tokens_before: 400,
    tokens_after: 120,
    before,
    after,
    before_truncated: false,
  };
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export function rawRequest(
  port: number,
  path: string,
  opts: { method?: string; headers?: Record<string, string> } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: opts.method ?? 'GET',
        headers: { host: `127.0.0.1:${port}`, ...opts.headers },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

export interface SseFrame {
  event: string;
  id?: string;
  data: string;
}

/** Opens /events and collects frames until `close()`. */
export function openSse(
  port: number,
  headers: Record<string, string> = {},
): Promise<{
  status: number;
  frames: SseFrame[];
  waitFor(pred: (f: SseFrame[]) => boolean, ms?: number): Promise<void>;
  close(): void;
}> {
  return new Promise((resolve, reject) => {
    const frames: SseFrame[] = [];
    const req = httpRequest(
      { host: '127.0.0.1', port, path: '/events', headers: { host: `127.0.0.1:${port}`, ...headers } },
      (res) => {
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          buf += c;
          let at = buf.indexOf('\n\n');
          while (at !== -1) {
            const block = buf.slice(0, at);
            buf = buf.slice(at + 2);
            const f: SseFrame = { event: 'message', data: '' };
            const data: string[] = [];
            for (const line of block.split('\n')) {
              if (line.startsWith('event: ')) f.event = line.slice(7);
              else if (line.startsWith('id: ')) f.id = line.slice(4);
              else if (line.startsWith('data: ')) data.push(line.slice(6));
            }
            f.data = data.join('\n');
            if (data.length > 0) frames.push(f);
            at = buf.indexOf('\n\n');
          }
        });
        res.on('error', () => undefined);
        resolve({
          status: res.statusCode ?? 0,
          frames,
          async waitFor(pred, ms = 3000) {
            const end = Date.now() + ms;
            while (!pred(frames)) {
              if (Date.now() > end) throw new Error(`timed out; frames: ${frames.map((f) => f.event).join(',')}`);
              await new Promise((r) => setTimeout(r, 10));
            }
          },
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}
