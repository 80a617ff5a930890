/**
 * Whose a session is (issue 19, finding 4): the user the host names for it. Hermes' gateway serves
 * several people (Telegram, Discord, Slack…) from one process and one state dir, and names the
 * sender of each turn (`platform`, `sender_id` with `pre_llm_call`); its CLI names nobody. A
 * session reads another session's index only when both are the same user's, unless
 * `background_compression.index_across_users` says every session may.
 *
 * Invariant: a session whose host names no user is the machine's own (`''`), like every other such
 * session, so one person's CLI reads all its sessions as before; a named user never reads the
 * machine's own sessions nor another user's.
 */

/** The owner key of a session: `platform:user` when the host names a user, else `''` (the machine's own). */
export function ownerKey(platform: string, user: string): string {
  return user ? `${platform || 'unknown'}:${user}` : '';
}

/** Who asks, and how the owner of another session is found. */
export interface IndexAccess {
  /** The owner key of the session asking. */
  requester: string;
  /** `background_compression.index_across_users`: every session may read every other. */
  acrossUsers: boolean;
  /** The owner key of a session (from memory or its saved file); null when nothing is known of it. */
  ownerOf(sessionId: string): string | null;
}

/** Whether the asking session may read `sessionId`'s phases. A session nothing is known of counts as the machine's own. */
export function mayRead(access: IndexAccess, sessionId: string): boolean {
  return access.acrossUsers || (access.ownerOf(sessionId) ?? '') === access.requester;
}

/** Anyone may read anything (a bare engine, tests of other parts). */
export const OPEN_ACCESS: IndexAccess = { requester: '', acrossUsers: true, ownerOf: () => '' };

/**
 * Whose sessions `analytics` may show (issue 26, finding 5), by the same rule: a gateway user's own
 * only; the machine's own sessions (a CLI session, a terminal) every session, as before;
 * `index_across_users: true` opens every session to all. Undefined: no filter.
 */
export function analyticsOwner(access: IndexAccess): string | undefined {
  return access.requester === '' || access.acrossUsers ? undefined : access.requester;
}
