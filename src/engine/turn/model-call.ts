/**
 * What is special about `pre_model_call` (DESIGN §3): the call is counted when it is sent (with
 * the system prompt and tool schemas that go with every request), a retry of the same request is
 * not counted twice, and the view can be answered as what changed since the view the host holds,
 * so a long session does not ship hundreds of unchanged edits before every model call.
 *
 * Invariant: a delta is answered only against the exact view the host names (`view` equal to the
 * last id answered for this session); anything else gets the complete view.
 */
import type { Edit, ModelCallEdit, PreModelCallParams, PreModelCallResult } from '../../core/host-api.js';
import type { ToolCall } from '../../core/message.js';
import type { SendInfo } from '../ledger/ledger.js';
import type { Session } from '../session/session.js';
import { messageTokens, toolsTokens } from '../../core/tokens.js';

/**
 * Queues the call's accounting: the fixed part when the host sent it, then the call itself, whose
 * first `info.stable` messages the previous call sent unchanged (HMC's model of the prompt cache).
 * A system prompt or tool list other than the previous call's is the host's change: nothing of
 * either request is read from the cache.
 */
export function countCallAtSend(
  s: Session,
  p: PreModelCallParams,
  info: SendInfo = { stable: -1, rawStable: -1 },
): void {
  // Kept by reference for the context view (context-breakdown.ts), which counts them when asked.
  s.view.requestSent(p.system, p.tools);
  const tools = p.tools ? JSON.stringify(p.tools) : undefined;
  const changed =
    (p.system !== undefined && s.view.fixedSent.system !== undefined && p.system !== s.view.fixedSent.system) ||
    (tools !== undefined && s.view.fixedSent.tools !== undefined && tools !== s.view.fixedSent.tools);
  // The same system prompt or tool list as the previous call's is not counted again: a host that
  // sends them with every request (a whole view) cost a tokenization of both per call.
  if (p.system !== undefined && p.system !== s.view.fixedSent.system) {
    const system = p.system;
    s.ledger.defer(
      () => s.ledger.setFixed('system', typeof system === 'string' ? messageTokens({ content: system }) : 0),
      [system],
    );
  }
  if (p.tools && tools !== s.view.fixedSent.tools) {
    const list = p.tools;
    s.ledger.defer(() => s.ledger.setFixed('tools', toolsTokens(list)), [list]);
  }
  s.view.fixedCounted(p.system, tools);
  const callId = p.call_id ?? '';
  // Hermes runs its request middleware again for each retry of one API call, with the same id.
  if (!s.counts.callCounted(callId)) return;
  const turn = s.counts.turn;
  const send: SendInfo = {
    ...info,
    ...(callId ? { id: callId } : {}),
    ...(changed ? { fixedChanged: true, cause: 'hermes' as const } : {}),
  };
  s.ledger.defer(() => s.ledger.accountSend(turn, send));
}

/**
 * The answer to pre_model_call: the complete view, or the changes since the host's view. An entry
 * carries an assistant message's `tool_calls` only for a host that applies them (`toolCalls`); a
 * changed entry is sent whole (its content and its calls), since it replaces the host's entry.
 */
export function modelCallView(s: Session, hostView: number | undefined, toolCalls = false): PreModelCallResult {
  const calls = toolCalls ? s.view.callEdits : NO_CALLS;
  if (hostView === undefined) return { edits: viewEdits(s.view.edits, calls) };
  const id = (s.view.lastView?.id ?? 0) + 1;
  const previous = s.view.answered(id, calls);
  if (!previous || previous.id !== hostView || hostView === 0)
    return { edits: viewEdits(s.view.edits, calls), view: id };
  const changed = new Set<number>();
  for (const [index, content] of s.view.edits) if (previous.edits.get(index) !== content) changed.add(index);
  for (const [index, list] of calls) if (previous.calls.get(index) !== list) changed.add(index);
  const removed: number[] = [];
  for (const index of new Set([...previous.edits.keys(), ...previous.calls.keys()])) {
    if (s.view.edits.has(index) || calls.has(index)) {
      // Still edited, but one part went back to raw: the entry is sent again, whole.
      if (previous.edits.has(index) !== s.view.edits.has(index) || previous.calls.has(index) !== calls.has(index))
        changed.add(index);
    } else removed.push(index);
  }
  const edits = viewEdits(s.view.edits, calls, changed);
  return { edits, view: id, since: hostView, removed: removed.sort((a, b) => a - b) };
}

const NO_CALLS: ReadonlyMap<number, ToolCall[]> = new Map();

/** The view's entries (only `only`'s indices when given), by index: content and calls together. */
function viewEdits(
  contents: ReadonlyMap<number, string>,
  calls: ReadonlyMap<number, ToolCall[]>,
  only?: ReadonlySet<number>,
): ModelCallEdit[] {
  const indices = only ? [...only] : [...new Set([...contents.keys(), ...calls.keys()])];
  return indices
    .sort((a, b) => a - b)
    .map((index) => {
      const edit: ModelCallEdit = { index };
      const content = contents.get(index);
      const list = calls.get(index);
      if (content !== undefined) edit.content = content;
      if (list !== undefined) edit.tool_calls = list;
      return edit;
    });
}

export function sortedEdits(edits: ReadonlyMap<number, string>): Edit[] {
  return [...edits].sort((a, b) => a[0] - b[0]).map(([index, content]) => ({ index, content }));
}
