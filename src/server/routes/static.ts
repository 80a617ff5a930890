/**
 * GET / and the page's files from web/dist: fixed content types, hashed assets cached for a
 * year, the page itself revalidated every time.
 *
 * Invariant: only regular files inside web/dist are served: the decoded path may not contain
 * `..` segments, NUL or backslashes, and the resolved path must stay under the root.
 */
import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import type { RouteHandler } from '../context.js';
import { sendBody, sendText } from '../respond.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/** The file under `root` that `pathname` names, or null when it is not allowed. */
export function resolveStatic(root: string, pathname: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (decoded === '/' || decoded === '') decoded = '/index.html';
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const parts = decoded.split('/');
  if (parts.some((p) => p === '..' || p === '.')) return null;
  const full = resolve(join(root, ...parts));
  const base = resolve(root);
  if (!full.startsWith(base + sep)) return null;
  return full;
}

export const staticFiles: RouteHandler = async (ctx, req, res, url) => {
  const file = resolveStatic(ctx.webRoot, url.pathname);
  const type = file ? TYPES[extname(file).toLowerCase()] : undefined;
  if (!file || !type) {
    sendText(req, res, 404, 'Not Found');
    return;
  }
  try {
    const st = await stat(file);
    if (!st.isFile()) throw new Error('not a file');
  } catch {
    if (url.pathname === '/' || url.pathname === '/index.html') {
      sendText(req, res, 404, 'The dashboard page is not built: run `npm run build` (vite build web).');
    } else {
      sendText(req, res, 404, 'Not Found');
    }
    return;
  }
  const body = await readFile(file);
  const hashed = url.pathname.startsWith('/assets/');
  sendBody(req, res, 200, type, body, {
    'Cache-Control': hashed ? 'public, max-age=31536000, immutable' : 'no-cache',
  });
};
