/**
 * The page's current deep link (route.ts), following the address bar: back and forward, a link
 * opened or pasted, a reload. `navigate` pushes a new history entry, so back undoes it.
 *
 * Invariant: location.hash is the one source of truth; the state only ever holds what it parses
 * to (an in-page anchor such as the skip link's `#main` leaves the state as it was).
 */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { formatHash, OVERVIEW, parseHash, type Route } from './route.js';

export interface RouteState {
  route: Route;
  /** Why the address's link cannot be followed, or null. */
  invalid: string | null;
  /** Bumped on every change of the address, so a view is scrolled to again when its link is followed again. */
  seq: number;
}

function read(prev: RouteState | null): RouteState {
  const p = parseHash(window.location.hash);
  const seq = (prev?.seq ?? 0) + 1;
  if (p.kind === 'route') return { route: p.route, invalid: null, seq };
  if (p.kind === 'invalid')
    return { route: { ...OVERVIEW, project: prev?.route.project ?? '' }, invalid: p.reason, seq };
  return prev ?? { route: OVERVIEW, invalid: null, seq };
}

export function useRoute(): [RouteState, (route: Route) => void] {
  const [state, setState] = useState<RouteState>(() => read(null));
  useEffect(() => {
    const on = (): void => setState((prev) => read(prev));
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  const navigate = useCallback((route: Route): void => {
    const hash = formatHash(route);
    // Setting the hash pushes a history entry and fires hashchange, which updates the state.
    if (window.location.hash !== hash) window.location.hash = hash;
    else setState((prev) => read(prev));
  }, []);
  return [state, navigate];
}

/** The absolute URL of `route` on this page, for "Copy link". */
export function routeUrl(route: Route): string {
  const { origin, pathname, search } = window.location;
  return `${origin}${pathname}${search}${formatHash(route)}`;
}
