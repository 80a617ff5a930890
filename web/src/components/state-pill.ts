/**
 * A session's state as a pill (docs/dashboard.md "Session states"): live (a process holds it),
 * idle (its process exited; it can be resumed), ended (finished: a new session, an expiry).
 *
 * Invariant: an older server that sends only `ended` still gets a truthful pill (ended, or live).
 */
import { html } from 'htm/preact';
import type { SessionState } from '../schema.js';

const TITLE: Record<SessionState, string> = {
  live: 'A process holds this session now',
  idle: 'The process that held it exited; it can be resumed',
  ended: 'The session is finished',
};

export function stateOf(s: { state?: SessionState | undefined; ended?: boolean | undefined }): SessionState {
  return s.state ?? (s.ended ? 'ended' : 'live');
}

export function StatePill({ state }: { state: SessionState }) {
  return html`<span class=${`pill ${state}`} title=${TITLE[state]} data-testid="state">${state}</span>`;
}
