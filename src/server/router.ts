/**
 * Request dispatch: the Host/Origin guard first, then the method, then one route per path.
 *
 * Invariant: every request is answered exactly once; a handler error is logged (one line) and
 * answered with a bare 500 (or 400 for a bad query value, naming the parameter), never a stack.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RouteHandler, ServerContext } from './context.js';
import { checkRequest } from './guard.js';
import { sendJson, sendStatus, sendText } from './respond.js';
import { QueryError } from './query.js';
import { apiSummary } from './routes/api-summary.js';
import { apiAnalytics } from './routes/api-analytics.js';
import { apiStrategies } from './routes/api-strategies.js';
import { apiTools } from './routes/api-tools.js';
import { apiDays } from './routes/api-days.js';
import { apiMonths } from './routes/api-months.js';
import { apiWeeks } from './routes/api-weeks.js';
import { apiModels } from './routes/api-models.js';
import { apiOutputs } from './routes/api-outputs.js';
import { apiWork } from './routes/api-work.js';
import { apiProjects } from './routes/api-projects.js';
import { apiSessions } from './routes/api-sessions.js';
import { apiSession } from './routes/api-session.js';
import { apiUsage } from './routes/api-usage.js';
import { apiContext } from './routes/api-context.js';
import { apiInspect } from './routes/api-inspect.js';
import { apiEvents } from './routes/api-events.js';
import { apiHealth } from './routes/api-health.js';
import { apiPhases } from './routes/api-phases.js';
import { events } from './routes/events.js';
import { metrics } from './routes/metrics.js';
import { staticFiles } from './routes/static.js';
import { errorText } from '../core/errors.js';

/**
 * One row per route: its path (exact, or a pattern whose groups are the handler's params) and
 * the query parameters it reads. Anything else is a 400 naming it (issue 11: `/api/analytics?period=x`
 * answered 200, ignoring a parameter `hmc analytics` rejects). The page and static files take
 * none that matter and are not checked. `answers` is what GET /api lists for each.
 */
interface Route {
  path: string | RegExp;
  /** A pattern's path as /api lists it (`/api/sessions/:id`). */
  shown?: string;
  query: readonly string[];
  handler: RouteHandler;
  answers: string;
}

const ROUTES: readonly Route[] = [
  {
    path: '/events',
    query: ['last_event_id'],
    handler: events,
    answers: 'the live event stream (Server-Sent Events); last_event_id resumes after that event',
  },
  {
    path: '/metrics',
    query: [],
    handler: metrics,
    answers:
      "Prometheus text: input saved, input tokens, model calls, sessions, estimated cost and cache tokens per model (modelled), the provider's own tokens, calls and cost per model (measured), unpriced models, events seen",
  },
  {
    path: '/api',
    query: [],
    handler: apiIndex,
    answers: 'this index: every route, its methods, its query parameters and what it answers',
  },
  {
    path: '/api/summary',
    query: [],
    handler: apiSummary,
    answers: 'the live view from events: the current session with its turns, the 50 most recent sessions, sources',
  },
  {
    path: '/api/analytics',
    query: ['project', 'since', 'until'],
    handler: apiAnalytics,
    answers:
      'totals over the window: input saved, sessions, input raw and sent, model calls, by strategy and tool, estimated cost saved',
  },
  {
    path: '/api/strategies',
    query: ['project', 'since', 'until'],
    handler: apiStrategies,
    answers: 'input saved per strategy, largest first',
  },
  {
    path: '/api/tools',
    query: ['project', 'since', 'until', 'limit'],
    handler: apiTools,
    answers: 'input saved per tool, largest first',
  },
  {
    path: '/api/days',
    query: ['days', 'project', 'since', 'until'],
    handler: apiDays,
    answers: 'input saved, input and sessions per UTC day',
  },
  {
    path: '/api/weeks',
    query: ['weeks', 'project', 'since', 'until'],
    handler: apiWeeks,
    answers: 'input saved, input and sessions per week (Monday, UTC)',
  },
  {
    path: '/api/months',
    query: ['months', 'project', 'since', 'until'],
    handler: apiMonths,
    answers: 'input saved, input and sessions per month',
  },
  {
    path: '/api/models',
    query: ['project', 'since', 'until'],
    handler: apiModels,
    answers: "tokens per model priced with the cache model (an estimate), and the provider's own usage apart",
  },
  {
    path: '/api/outputs',
    query: ['by', 'limit', 'project', 'since', 'until'],
    handler: apiOutputs,
    answers: 'tool outputs as they arrived and as first sent, by tool, kind or program',
  },
  {
    path: '/api/work',
    query: ['project', 'since', 'until'],
    handler: apiWork,
    answers: 'did compression cost the agent work: recalls, re-reads, per 100 shortened outputs',
  },
  {
    path: '/api/projects',
    query: ['limit', 'since', 'until'],
    handler: apiProjects,
    answers: 'input saved, input and sessions per project',
  },
  {
    path: '/api/sessions',
    query: ['limit', 'offset', 'sort', 'order', 'search', 'project', 'since', 'until'],
    handler: apiSessions,
    answers: 'stored sessions, paged, sorted and filtered on the server',
  },
  { path: '/api/events', query: ['since', 'limit'], handler: apiEvents, answers: 'recent events, oldest first' },
  {
    path: '/api/health',
    query: [],
    handler: apiHealth,
    answers: 'is the dashboard up: version, pid, uptime, clients, store state, sources',
  },
  {
    path: '/api/phases',
    query: ['session', 'q', 'phase', 'limit'],
    handler: apiPhases,
    answers: "layer 1's summarised phases: a session's index, one phase, or a search",
  },
  {
    path: /^\/api\/sessions\/([^/]+)$/,
    shown: '/api/sessions/:id',
    query: [],
    handler: apiSession,
    answers: 'one session: its stored record with its timeline, its live point, its state',
  },
  {
    path: /^\/api\/sessions\/([^/]+)\/usage$/,
    shown: '/api/sessions/:id/usage',
    query: [],
    handler: apiUsage,
    answers: "the provider's own usage of a session's model calls, where the host reported it",
  },
  {
    path: /^\/api\/sessions\/([^/]+)\/context$/,
    shown: '/api/sessions/:id/context',
    query: ['days'],
    handler: apiContext,
    answers:
      "where a session's latest request goes: system prompt, tool schemas per tool with their calls, messages by part, raw and sent, with advice",
  },
  {
    path: /^\/api\/inspect\/([^/]+)$/,
    shown: '/api/inspect/:id',
    query: [],
    handler: apiInspect,
    answers: 'one tool output before and after HMC, by its inspector id',
  },
];

const EXACT = new Map(ROUTES.flatMap((r) => (typeof r.path === 'string' ? [[r.path, r.handler] as const] : [])));
const PATTERNS = ROUTES.flatMap((r) => (typeof r.path === 'string' ? [] : [[r.path, r.handler] as const]));
const QUERY = new Map<RouteHandler, readonly string[]>(ROUTES.map((r) => [r.handler, r.query]));

/** The first query parameter a route does not take, as a QueryError; none for unchecked routes. */
/**
 * GET /api (issue 27, finding 6: the page's footer said "JSON at /api" and /api was a 404): the
 * routes as JSON, from the same table that dispatches them, so the index cannot miss one.
 */
function apiIndex(_ctx: ServerContext, req: IncomingMessage, res: ServerResponse): void {
  const routes = ROUTES.map((r) => ({
    path: r.shown ?? String(r.path),
    methods: ['GET', 'HEAD'],
    query: r.query,
    answers: r.answers,
  }));
  routes.push({
    path: '/',
    methods: ['GET', 'HEAD'],
    query: [],
    answers: 'the dashboard page (web/dist), and its assets under /assets/',
  });
  sendJson(req, res, { routes, docs: 'docs/dashboard.md' });
}

function checkQuery(handler: RouteHandler, q: URLSearchParams): void {
  const allowed = QUERY.get(handler);
  if (!allowed) return;
  for (const name of q.keys()) {
    if (allowed.includes(name)) continue;
    const shown = JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}…` : name);
    throw new QueryError(
      `unknown parameter ${shown} (${allowed.length ? `this endpoint takes ${allowed.join(', ')}` : 'this endpoint takes none'})`,
    );
  }
}

function route(pathname: string): { handler: RouteHandler; params: string[] } | null {
  const exact = EXACT.get(pathname);
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

export async function handleRequest(
  ctx: ServerContext,
  port: number,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
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
