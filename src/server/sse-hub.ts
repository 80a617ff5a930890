/**
 * The SSE hub: keeps the connected pages, a bounded ring of recent events for `Last-Event-ID`
 * resume and `/api/events`, and a heartbeat.
 *
 * Invariant: publishing never waits on a client. Each client's pending output is bounded
 * (MAX_CLIENT_BUFFER bytes in the socket's write buffer); a client that falls behind is dropped
 * (its page reconnects and resumes). At most `maxClients` clients; more are refused with 503.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HmcEvent } from '../events/types.js';
import { formatSse } from './sse-format.js';
import { setSecurityHeaders, sendText } from './respond.js';
import { errorText } from '../core/errors.js';

export const RING_SIZE = 2000;
export const MAX_CLIENT_BUFFER = 1024 * 1024;
/** A page that missed more than this reloads its state instead of replaying (keeps resume small). */
export const MAX_REPLAY = 500;
export const HEARTBEAT_MS = 15_000;

interface RingEntry {
  id: string;
  event: HmcEvent;
  frame: string;
}

export interface HubOptions {
  maxClients: number;
  version: string;
  log: (line: string) => void;
  heartbeatMs?: number;
}

export class SseHub {
  private readonly clients = new Set<ServerResponse>();
  private readonly ring: RingEntry[] = [];
  private readonly timer: NodeJS.Timeout;
  private dropped = 0;

  constructor(private readonly opts: HubOptions) {
    this.timer = setInterval(() => this.heartbeat(), opts.heartbeatMs ?? HEARTBEAT_MS);
    this.timer.unref();
  }

  size(): number {
    return this.clients.size;
  }

  droppedClients(): number {
    return this.dropped;
  }

  /** Records the event in the ring and writes it to every client. */
  publish(event: HmcEvent): void {
    let frame: string;
    try {
      frame = formatSse(event.type, JSON.stringify(event), event.id);
    } catch (err) {
      this.opts.log(`hmc dashboard: event ${JSON.stringify(event.id)} refused: ${errorText(err)}`);
      return;
    }
    this.ring.push({ id: event.id, event, frame });
    if (this.ring.length > RING_SIZE) this.ring.splice(0, this.ring.length - RING_SIZE);
    for (const res of this.clients) this.write(res, frame);
  }

  /** Events after `since` (an event id), or the latest `limit` when `since` is unknown or absent. */
  recent(since: string | undefined, limit: number): { events: HmcEvent[]; found: boolean } {
    if (since !== undefined) {
      const at = this.findIndex(since);
      if (at !== -1)
        return {
          events: this.ring
            .slice(at + 1)
            .slice(-limit)
            .map((r) => r.event),
          found: true,
        };
    }
    return { events: this.ring.slice(-limit).map((r) => r.event), found: false };
  }

  /** Takes over the response as an event stream. */
  connect(req: IncomingMessage, res: ServerResponse, queryLastId?: string | null): void {
    if (this.clients.size >= this.opts.maxClients) {
      sendText(req, res, 503, 'Too many dashboard pages are open; close one and reload.');
      return;
    }
    setSecurityHeaders(res);
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    req.socket.setNoDelay(true);
    req.socket.setKeepAlive(true);
    this.clients.add(res);
    const remove = (): void => void this.clients.delete(res);
    res.on('close', remove);
    res.on('error', remove);

    // The header is what EventSource sends on its own retries; the query parameter is for a
    // page that had to open a new EventSource (after the server went away) and wants to resume.
    const header = req.headers['last-event-id'];
    const given = typeof header === 'string' ? header : (queryLastId ?? undefined);
    const lastId = given !== undefined && given.length <= 300 ? given : undefined;
    const found = lastId === undefined ? -1 : this.findIndex(lastId);
    const at = found !== -1 && this.ring.length - 1 - found <= MAX_REPLAY ? found : -1;
    const resumed = at !== -1;
    let out = 'retry: 2000\n\n';
    out += formatSse('hello', JSON.stringify({ time: Date.now(), version: this.opts.version, resumed }));
    if (resumed) for (const r of this.ring.slice(at + 1)) out += r.frame;
    this.write(res, out);
  }

  /** Ends every stream (the pages will try to reconnect). */
  close(): void {
    clearInterval(this.timer);
    for (const res of this.clients) res.end();
    this.clients.clear();
  }

  private findIndex(id: string): number {
    for (let i = this.ring.length - 1; i >= 0; i--) if (this.ring[i]?.id === id) return i;
    return -1;
  }

  private write(res: ServerResponse, frame: string): void {
    if (res.writableLength > MAX_CLIENT_BUFFER) {
      this.dropped++;
      this.clients.delete(res);
      this.opts.log('hmc dashboard: dropped a page that could not keep up with the event stream');
      res.destroy();
      return;
    }
    res.write(frame);
  }

  private heartbeat(): void {
    const ping = formatSse('ping', '{}');
    for (const res of this.clients) this.write(res, ping);
  }
}
