/**
 * The first check on every request: DNS-rebinding and cross-site protection.
 *
 * Invariant: a request is served only when its Host is `127.0.0.1:<port>` or `localhost:<port>`
 * and its Origin, when present, is that same origin; a request that could change something
 * (any method but GET/HEAD) must carry an Origin. Everything else is refused with 403.
 */
import type { IncomingMessage } from 'node:http';

export type GuardResult = { ok: true } | { ok: false; reason: string };

export function checkRequest(req: IncomingMessage, port: number): GuardResult {
  const host = req.headers.host?.toLowerCase();
  const allowed = [`127.0.0.1:${port}`, `localhost:${port}`];
  if (host === undefined || !allowed.includes(host)) return { ok: false, reason: 'Forbidden: unexpected Host header.' };
  const origin = req.headers.origin;
  if (origin === undefined) {
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return { ok: false, reason: 'Forbidden: missing Origin header.' };
    return { ok: true };
  }
  if (origin.toLowerCase() !== `http://${host}`) return { ok: false, reason: 'Forbidden: cross-origin request.' };
  return { ok: true };
}
