/**
 * Request dispatch: the Host/Origin guard first, then the method, then one route per path.
 *
 * Invariant: every request is answered exactly once; a handler error is logged (one line) and
 * answered with a bare 500 (or 400 for a bad query value, naming the parameter), never a stack.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RouteHandler, ServerContext } from './context.js';
import { checkRequest } from './guard.js';
import { sendStatus, sendText } from './respond.js';
import { QueryError } from './query.js';
import { apiSummary } from './routes/api-summary.js';
import { apiAnalytics } from './routes/api-analytics.js';
import { apiStrategies } from './routes/api-strategies.js';
import { apiTools } from './routes/api-tools.js';
import { apiDays } from './routes/api-days.js';
import { apiMonths } from './routes/api-months.js';
import { apiProjects } from './routes/api-projects.js';
import { apiSessions } from './routes/api-sessions.js';
import { apiSession } from './routes/api-session.js';
import { apiInspect } from './routes/api-inspect.js';
import { apiEvents } from './routes/api-events.js';
import { apiHealth } from './routes/api-health.js';
import { apiPhases } from './routes/api-phases.js';
import { events } from './routes/events.js';
import { metrics } from './routes/metrics.js';
import { staticFiles } from './routes/static.js';
import { errorText } from '../core/errors.js';

const EXACT: Record<string, RouteHandler> = {
  '/events': events,
  '/metrics': metrics,
  '/api/summary': apiSummary,
  '/api/analytics': apiAnalytics,
  '/api/strategies': apiStrategies,
  '/api/tools': apiTools,
  '/api/days': apiDays,
  '/api/months': apiMonths,
  '/api/projects': apiProjects,
  '/api/sessions': apiSessions,
  '/api/events': apiEvents,
  '/api/health': apiHealth,
  '/api/phases': apiPhases,
};

/**
 * The query parameters each route reads. Anything else is a 400 naming it (issue 11:
 * `/api/analytics?period=x` answered 200, ignoring a parameter `hmc analytics` rejects). The page
 * and static files take none that matter and are not checked.
 */
const QUERY = new Map<RouteHandler, readonly string[]>([
  [events, ['last_event_id']],
  [metrics, []],
  [apiSummary, []],
  [apiAnalytics, ['project']],
  [apiStrategies, ['project']],
  [apiTools, ['project', 'limit']],
  [apiDays, ['days', 'project']],
  [apiMonths, ['months', 'project']],
  [apiProjects, ['limit']],
  [apiSessions, ['limit', 'offset', 'sort', 'order', 'search', 'project']],
  [apiEvents, ['since', 'limit']],
  [apiHealth, []],
  [apiPhases, ['session', 'q', 'phase', 'limit']],
  [apiSession, []],
  [apiInspect, []],
]);

/** The first query parameter a route does not take, as a QueryError; none for unchecked routes. */
function checkQuery(handler: RouteHandler, q: URLSearchParams): void {
  const allowed = QUERY.get(handler);
  if (!allowed) return;
  for (const name of q.keys()) {
    if (allowed.includes(name)) continue;
    const shown = JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}…` : name);
    throw new QueryError(`unknown parameter ${shown} (${allowed.length ? `this endpoint takes ${allowed.join(', ')}` : 'this endpoint takes none'})`);
  }
}

const PATTERNS: [RegExp, RouteHandler][] = [
  [/^\/api\/sessions\/([^/]+)$/, apiSession],
  [/^\/api\/inspect\/([^/]+)$/, apiInspect],
];

function route(pathname: string): { handler: RouteHandler; params: string[] } | null {
  const exact = EXACT[pathname];
  if (exact) return { handler: exact, params: [] };
  for (const [re, handler] of PATTERNS) {
    const m = re.exec(pathname);
    if (m) {
      try {
        return { handler, params: m.slice(1).map((p) => decodeURIComponent(p)) };
      } catch {
        return null;
      }
    }
  }
  if (pathname.startsWith('/api/')) return null;
  return { handler: staticFiles, params: [] };
}

export async function handleRequest(ctx: ServerContext, port: number, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    const guard = checkRequest(req, port);
    if (!guard.ok) {
      sendText(req, res, 403, guard.reason);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      sendStatus(req, res, 405);
      return;
    }
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    const found = route(url.pathname);
    if (!found) {
      sendStatus(req, res, 404);
      return;
    }
    checkQuery(found.handler, url.searchParams);
    await found.handler(ctx, req, res, url, found.params);
  } catch (err) {
    if (err instanceof QueryError) {
      if (!res.headersSent) sendText(req, res, 400, `Bad Request: ${err.message}`);
      return;
    }
    ctx.log(`hmc dashboard: ${req.method ?? '?'} ${(req.url ?? '').slice(0, 200)} failed: ${errorText(err)}`);
    if (!res.headersSent) sendStatus(req, res, 500);
    else res.destroy();
  }
}
