/**
 * What is special about `pre_model_call` (DESIGN §3): the call is counted when it is sent (with
 * the system prompt and tool schemas that go with every request), a retry of the same request is
 * not counted twice, and the view can be answered as what changed since the view the host holds,
 * so a long session does not ship hundreds of unchanged edits before every model call.
 *
 * Invariant: a delta is answered only against the exact view the host names (`view` equal to the
 * last id answered for this session); anything else gets the complete view.
 */
import type { Edit, PreModelCallParams, PreModelCallResult } from '../core/host-api.js';
import type { Session } from './session.js';
import { messageTokens, toolsTokens } from '../core/tokens.js';

/** Queues the call's accounting: the fixed part when the host sent it, then the call itself. */
export function countCallAtSend(s: Session, p: PreModelCallParams): void {
  if (p.system !== undefined) {
    const system = p.system;
    s.ledger.defer(() => s.ledger.setFixed('system', typeof system === 'string' ? messageTokens({ content: system }) : 0), [system]);
  }
  if (p.tools) {
    const tools = p.tools;
    s.ledger.defer(() => s.ledger.setFixed('tools', toolsTokens(tools)), [tools]);
  }
  const callId = p.call_id ?? '';
  // Hermes runs its request middleware again for each retry of one API call, with the same id.
  if (callId && callId === s.lastCallId) return;
  s.lastCallId = callId;
  const turn = s.turn;
  s.ledger.defer(() => s.ledger.accountSend(turn));
}

/** The answer to pre_model_call: the complete view, or the changes since the host's view. */
export function modelCallView(s: Session, hostView: number | undefined): PreModelCallResult {
  if (hostView === undefined) return { edits: sortedEdits(s.edits) };
  const previous = s.lastView;
  const id = (previous?.id ?? 0) + 1;
  s.lastView = { id, edits: new Map(s.edits) };
  if (!previous || previous.id !== hostView || hostView === 0) return { edits: sortedEdits(s.edits), view: id };
  const changed = new Map<number, string>();
  for (const [index, content] of s.edits) if (previous.edits.get(index) !== content) changed.set(index, content);
  const removed: number[] = [];
  for (const index of previous.edits.keys()) if (!s.edits.has(index)) removed.push(index);
  return { edits: sortedEdits(changed), view: id, since: hostView, removed: removed.sort((a, b) => a - b) };
}

export function sortedEdits(edits: ReadonlyMap<number, string>): Edit[] {
  return [...edits].sort((a, b) => a[0] - b[0]).map(([index, content]) => ({ index, content }));
}
