/**
 * What is reported and kept when a turn ends, or a session's time in this process does: the
 * turn's event, the session's record and save, and with a session that leaves, its end or idle event.
 *
 * Invariant: run once per ending, after the turn's work is settled (settle.ts decides when); the
 * turn's stored context is the one its event shows (a later turn keeps it as it was).
 */
import type { HmcConfig } from '../../config/keys.js';
import type { EventSink } from '../../events/types.js';
import { DEFAULT_CONTEXT_WINDOW } from '../list-wide/batch.js';
import { sessionEndEvent, turnEvent, type TurnAt } from '../turn/events.js';
import type { Persistence } from './persistence.js';
import type { Session } from '../session/session.js';

export interface EndDeps {
  sink: EventSink;
  saved: Pick<Persistence, 'record' | 'save'>;
}

/** The turn `at` ended (under the config of the hook that ended it); `left`: the session leaves this process too. */
export function reportEnd(s: Session, at: TurnAt, config: HmcConfig, deps: EndDeps, left?: 'ended' | 'idle'): void {
  if (s.counts.turn === at.turn) s.ledger.endTurn(at.turn, s.meta.contextWindow || DEFAULT_CONTEXT_WINDOW);
  const turn = turnEvent(s, config, at);
  if (turn) deps.sink.emit(turn);
  deps.saved.record(s);
  const end = left ? sessionEndEvent(s, config, left === 'ended' ? 'session_end' : 'session_idle') : null;
  if (end) deps.sink.emit(end);
  deps.saved.save(s);
}
