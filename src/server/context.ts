/**
 * What every route handler gets: the live state, the SSE hub, the store, the config it needs.
 *
 * Invariant: handlers only read from the context (the feed and tail write the live state).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HmcConfig } from '../config/keys.js';
import type { InspectIndex } from '../events/inspect-index.js';
import type { InspectRecord } from '../events/types.js';
import type { LiveState } from './live-state.js';
import type { SseHub } from './sse-hub.js';
import type { StoreAccess } from './store-reader.js';

export interface ServerContext {
  stateDir: string;
  webRoot: string;
  version: string;
  startedAt: number;
  pricing: HmcConfig['pricing'];
  live: LiveState;
  hub: SseHub;
  store: StoreAccess;
  /** In-memory inspector records of the in-process engine, when there is one. */
  inspectMemory?: (id: string) => InspectRecord | undefined;
  /** The index of the state dir's inspector files, kept for the server's lifetime. */
  inspectIndex: InspectIndex;
  log: (line: string) => void;
}

/** One route: `params` are the captured groups of its path pattern. */
export type RouteHandler = (
  ctx: ServerContext,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  params: string[],
) => void | Promise<void>;
