/**
 * Writing responses: JSON, short text and bare statuses, each with the security headers, and
 * HEAD answered with the same headers and no body.
 *
 * Invariant: no response carries CORS headers or a stack trace; every body has a Content-Length.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Sent on every response (the page needs no inline script or style, nor anything off-site). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

export function setSecurityHeaders(res: ServerResponse): void {
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
}

export function sendBody(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  type: string,
  body: string | Buffer,
  extra: Record<string, string> = {},
): void {
  const buf = typeof body === 'string' ? Buffer.from(body) : body;
  setSecurityHeaders(res);
  res.writeHead(status, {
    'Content-Type': type,
    'Content-Length': String(buf.length),
    'Cache-Control': 'no-store',
    ...extra,
  });
  res.end(req.method === 'HEAD' ? undefined : buf);
}

export function sendJson(req: IncomingMessage, res: ServerResponse, value: unknown, status = 200): void {
  sendBody(req, res, status, 'application/json; charset=utf-8', JSON.stringify(value));
}

/** A short plain-text answer (errors: the status and one sentence, nothing internal). */
export function sendText(req: IncomingMessage, res: ServerResponse, status: number, text: string): void {
  sendBody(req, res, status, 'text/plain; charset=utf-8', `${text}\n`);
}

export function sendStatus(req: IncomingMessage, res: ServerResponse, status: number): void {
  const text: Record<number, string> = {
    400: 'Bad Request',
    403: 'Forbidden',
    404: 'Not Found',
    405: 'Method Not Allowed',
    500: 'Internal Server Error',
    503: 'Service Unavailable',
  };
  sendText(req, res, status, text[status] ?? String(status));
}
