/**
 * The current deep link and the way to follow another, for any component (the cards' view
 * links, the sessions table, the event log) without threading them through every prop list.
 *
 * Invariant: provided once, by the App, from useRoute (use-route.ts).
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { OVERVIEW, type Route } from './route.js';

export interface RouteApi {
  route: Route;
  navigate: (route: Route) => void;
}

export const RouteContext = createContext<RouteApi>({ route: OVERVIEW, navigate: () => undefined });

export function useRouteApi(): RouteApi {
  return useContext(RouteContext);
}
