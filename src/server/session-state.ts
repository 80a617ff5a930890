/**
 * A session's state for the API (issue 17, finding 4): the live state from events when the
 * dashboard saw any (the freshest word: a resumed session is live before its record catches up),
 * else the stored record: `ended_at` set means finished, otherwise idle.
 *
 * Invariant: `ended` only ever comes from a real end (the store's `ended_at`, or a `session_end`
 * event); a session nobody is holding is never called live.
 */
import type { LiveSession, SessionState } from './live-state.js';

export function sessionState(stored: { ended_at: number | null } | null, live: LiveSession | undefined): SessionState {
  if (live) return live.state;
  return stored && stored.ended_at !== null ? 'ended' : 'idle';
}
