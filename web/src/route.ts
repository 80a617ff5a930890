/**
 * The page's deep links: a hash route per session, per inspected output and per view (card),
 * with the project filter and the date range as parameters. `#/session/<id>`, `#/inspect/<id>`,
 * `#/view/<name>`, `#/` (the overview), each optionally followed by
 * `?project=<path>&since=YYYY-MM-DD&until=YYYY-MM-DD` (UTC days, both included).
 *
 * Hash routes because the server serves only `/` and web/dist's files: a link works with no
 * server change, and the id never reaches the server in a path it would have to route.
 *
 * Invariant: pure (no DOM). Ids and paths are percent-encoded when formatted and decoded,
 * length-checked and refused with control characters when parsed; a link that does not parse
 * is `invalid` with a reason, never half-applied. `format(parse(h))` is `h` for every valid `h`
 * this module formats.
 */

/** The cards a link can point at, in page order; the name is the URL's word for it. */
export const VIEWS = [
  'current',
  'lifetime',
  'strategies',
  'tools',
  'turns',
  'phases',
  'events',
  'inspector',
  'range',
  'history',
  'models',
  'outputs',
  'work',
  'sessions',
  'projects',
] as const;
export type View = (typeof VIEWS)[number];

/** The same bounds the API puts on a session id and a project path (src/server/routes). */
export const MAX_ID = 500;
export const MAX_PROJECT = 4096;

export type Target =
  | { kind: 'overview' }
  | { kind: 'view'; view: View }
  | { kind: 'session'; id: string }
  | { kind: 'inspect'; id: string };

export interface Route {
  target: Target;
  /** The project filter of the history and sessions cards; '' for all projects. */
  project: string;
  /** The date range of the history, models, outputs, work and sessions cards (UTC days, both included); absent: no limit. */
  since?: string;
  until?: string;
}

export type Parsed =
  | { kind: 'route'; route: Route }
  /** A hash that is not a route (`#main`, the skip link's target): the page leaves its state alone. */
  | { kind: 'anchor' }
  /** A route that cannot be followed; `reason` is shown on the page (as text). */
  | { kind: 'invalid'; reason: string };

export const OVERVIEW: Route = { target: { kind: 'overview' }, project: '' };

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

function isView(v: string): v is View {
  return VIEWS.some((x) => x === v);
}

/** A real UTC calendar day as `YYYY-MM-DD` (`2026-02-30` is not). */
export function isDay(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 10) === text;
}

/** The range's query parameters for the API (`&since=…&until=…`, or ''). */
export function rangeQuery(route: Pick<Route, 'since' | 'until'>): string {
  return `${route.since ? `&since=${route.since}` : ''}${route.until ? `&until=${route.until}` : ''}`;
}

function decode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** Why `value` cannot be a `what` of at most `max` characters, or null when it can. */
function badText(value: string, what: string, max: number): string | null {
  if (value.length === 0) return `the ${what} is empty`;
  if (value.length > max) return `the ${what} is longer than ${max} characters`;
  if (CONTROL.test(value)) return `the ${what} contains control characters`;
  return null;
}

/** The route a location hash names (`location.hash`, with or without its `#`). */
export function parseHash(hash: string): Parsed {
  const h = hash.startsWith('#') ? hash.slice(1) : hash;
  if (h === '') return { kind: 'route', route: OVERVIEW };
  if (!h.startsWith('/')) return { kind: 'anchor' };
  const q = h.indexOf('?');
  const path = q < 0 ? h : h.slice(0, q);
  const params = new URLSearchParams(q < 0 ? '' : h.slice(q + 1));
  let project = '';
  const rawProject = params.get('project');
  if (rawProject !== null && rawProject !== '') {
    const bad = badText(rawProject, 'project', MAX_PROJECT);
    if (bad) return { kind: 'invalid', reason: bad };
    project = rawProject;
  }
  const range: { since?: string; until?: string } = {};
  for (const key of ['since', 'until'] as const) {
    const day = params.get(key);
    if (day === null || day === '') continue;
    if (!isDay(day)) return { kind: 'invalid', reason: `${key} is not a calendar day as YYYY-MM-DD` };
    range[key] = day;
  }
  if (range.since !== undefined && range.until !== undefined && range.since > range.until)
    return { kind: 'invalid', reason: 'since is after until' };
  // Other parameters are ignored: a link made by a newer page still opens its target here.
  const parts = path.slice(1).split('/');
  const [head, arg, ...rest] = parts;
  if (parts.length === 1 && head === '')
    return { kind: 'route', route: { target: { kind: 'overview' }, project, ...range } };
  if (rest.length > 0 || arg === undefined)
    return { kind: 'invalid', reason: `no page is called “${path.slice(0, 80)}”` };
  if (head === 'view') {
    if (!isView(arg))
      return { kind: 'invalid', reason: `there is no view called “${arg.slice(0, 80)}” (views: ${VIEWS.join(', ')})` };
    return { kind: 'route', route: { target: { kind: 'view', view: arg }, project, ...range } };
  }
  if (head === 'session' || head === 'inspect') {
    const what = head === 'session' ? 'session id' : 'output id';
    const id = decode(arg);
    if (id === null) return { kind: 'invalid', reason: `the ${what} is not correctly encoded` };
    const bad = badText(id, what, MAX_ID);
    if (bad) return { kind: 'invalid', reason: bad };
    return { kind: 'route', route: { target: { kind: head, id }, project, ...range } };
  }
  return { kind: 'invalid', reason: `no page is called “${path.slice(0, 80)}”` };
}

/** The hash (with its `#`) for `route`. */
export function formatHash(route: Route): string {
  const t = route.target;
  const path =
    t.kind === 'overview' ? '/' : t.kind === 'view' ? `/view/${t.view}` : `/${t.kind}/${encodeURIComponent(t.id)}`;
  const q = [
    route.project ? `project=${encodeURIComponent(route.project)}` : '',
    route.since ? `since=${route.since}` : '',
    route.until ? `until=${route.until}` : '',
  ]
    .filter(Boolean)
    .join('&');
  return `#${path}${q ? `?${q}` : ''}`;
}

/** Two routes that show the same thing. */
export function sameTarget(a: Target, b: Target): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'view' && b.kind === 'view') return a.view === b.view;
  if ((a.kind === 'session' && b.kind === 'session') || (a.kind === 'inspect' && b.kind === 'inspect'))
    return a.id === b.id;
  return true;
}
