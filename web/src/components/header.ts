/**
 * The top bar: product name, which session is shown, the connection state and the theme switch.
 *
 * Invariant: the connection state is text (not colour alone) and announced politely.
 */
import { html } from 'htm/preact';
import type { ConnState } from '../live.js';
import type { LiveSession } from '../schema.js';
import { shortId, shortPath } from '../format.js';
import { ThemeToggle } from './theme-toggle.js';

const LABEL: Record<ConnState, string> = {
  connecting: 'Connecting',
  live: 'Live',
  reconnecting: 'Reconnecting',
  offline: 'Offline',
};

export function Header({ conn, current }: { conn: ConnState; current: LiveSession | null }) {
  const sub = current
    ? `session ${shortId(current.session_id)} · ${shortPath(current.project_path)}`
    : 'no active session yet: start a conversation';
  return html`<header class="topbar">
    <div class="topbar-inner">
      <div class="brand">
        <div class="logo" aria-hidden="true">HMC</div>
        <div class="brand-text">
          <h1><span class="wide-only">Hermes </span>Context Manager</h1>
          <span class="sub">${sub}</span>
        </div>
      </div>
      <span class="conn ${conn}" role="status" aria-live="polite" data-testid="conn">
        <span class="dot" aria-hidden="true"></span>${LABEL[conn]}<span class="sr-only"> connection to the event stream</span>
      </span>
      <${ThemeToggle} />
    </div>
  </header>`;
}
