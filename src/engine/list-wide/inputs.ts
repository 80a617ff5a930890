/**
 * Input clearing, the engine's side (issue 15; the rule is strategies/list-wide/input-clearing.ts):
 * which assistant messages should be sent with some calls' arguments short, and the calls as they
 * are then sent (the tool calls are indexed in input-index.ts).
 *
 * Only for a host that applies `tool_calls` edits (hosts/capabilities.ts); what Hermes stores keeps
 * the raw arguments. A clearing in force (in this process, or saved by an earlier one) stays, with
 * the same words, so a view once sent is sent again byte for byte.
 *
 * Invariant: a call is cleared only once answered, never when it failed, never in the current
 * step, never for a tool the user protected, and only when its arguments get at least
 * `min_chars` shorter; a cleared list keeps every call's id, type, name and place.
 */
import type { HmcConfig } from '../../config/keys.js';
import { messageExtra } from '../../core/tokens.js';
import type { FileInput } from '../../hosts/tool-inputs.js';
import { normalizePath } from '../../strategies/shared/file-ops.js';
import {
  planInputClearing,
  type FileTouch,
  type InputCandidate,
  type InputClearing,
} from '../../strategies/list-wide/input-clearing.js';
import { shortArguments } from '../../strategies/list-wide/input-placeholder.js';
import type { HeldInputs, MessageState, Prune } from '../session/held.js';
import type { IndexedCall } from '../session/input-index.js';
import { fileEvents, isFailed } from './list-wide.js';
import type { Protection } from '../session/protection.js';
import { inputRecallId } from '../session/recall.js';
import type { Session } from '../session/session.js';

/** The wanted clearings, per assistant message index (messages with clearings in force included, maybe empty). */
export function wantedInputs(
  s: Session,
  config: HmcConfig,
  protection: Protection,
  wanted: ReadonlyMap<string, Prune>,
): Map<number, Map<string, InputClearing>> {
  const index = s.inputIndex;
  index.update(s.held.messages);
  const out = new Map<number, Map<string, InputClearing>>();
  const at = (i: number): Map<string, InputClearing> => {
    let m = out.get(i);
    if (!m) out.set(i, (m = new Map()));
    return m;
  };
  // In force (this process, or an earlier one): kept word for word.
  for (const [id, clearing] of s.pruning.inputsCleared) {
    const c = index.byId.get(id);
    if (c?.input) at(c.message).set(id, clearing);
  }
  const c = config.strategies.input_clearing;
  if (!c.enabled || (s.meta.manual && !config.manual_mode.automatic_strategies) || index.candidates.length === 0)
    return out;
  const excluded = new Set(c.exclude_tools.map((t) => t.toLowerCase()));
  const candidates: InputCandidate[] = index.candidates.map((call) => {
    const result = s.rewriteIndex.byKey.get(call.id)?.message;
    const locked =
      !result ||
      call.message === index.lastStep ||
      failed(s, result) ||
      protection.inputs(call.tool) ||
      excluded.has(call.tool.toLowerCase());
    return {
      id: call.id,
      ordinal: call.ordinal,
      paths: call.paths.get(s.meta.projectPath, () =>
        (call.input as FileInput).paths.map((p) => normalizePath(p, s.meta.projectPath)),
      ),
      locked,
    };
  });
  const touches: FileTouch[] = [];
  for (const e of fileEvents(s, s.rewriteIndex.results, protection, wanted)) {
    const ordinal = index.byId.get(e.callId)?.ordinal;
    if (ordinal !== undefined)
      touches.push({
        ordinal,
        callId: e.callId,
        op: e.op.op,
        paths: e.paths,
        failed: e.failed,
        showsLines: e.showsLines,
      });
  }
  for (const [id, clearing] of planInputClearing(candidates, touches, {
    totalCalls: index.calls.length,
    keepCalls: c.keep_calls,
  })) {
    const call = index.byId.get(id) as IndexedCall;
    const inMessage = at(call.message);
    if (!inMessage.has(id) && saves(s, call, clearing, c.min_chars)) inMessage.set(id, clearing);
  }
  return out;
}

/**
 * The call of this result failed, by the engine's judgement or by any failure its output reports
 * (read once per result: `m.memo.failed`): its arguments explain the failure, so they stay.
 */
function failed(s: Session, result: MessageState): boolean {
  if (isFailed(s, result) || result.source.is_error === true) return true;
  return result.memo.failed;
}

/** The wanted clearings that have a short form (the others are sent whole). */
export function clearable(s: Session, wanted: ReadonlyMap<string, InputClearing>): Map<string, InputClearing> {
  const out = new Map<string, InputClearing>();
  for (const [id, clearing] of wanted) {
    const entry = s.inputIndex.byId.get(id);
    if (entry && shortFor(s, entry, clearing) !== null) out.set(id, clearing);
  }
  return out;
}

/** The message's calls as sent with these clearings (each with a short form: `clearable`); null when none. */
export function heldInputs(
  s: Session,
  m: MessageState,
  cleared: ReadonlyMap<string, InputClearing>,
): HeldInputs | null {
  const raw = m.source.tool_calls;
  if (!Array.isArray(raw) || cleared.size === 0) return null;
  const calls = raw.map((call) => {
    const id = typeof call?.id === 'string' ? call.id : '';
    const clearing = cleared.get(id);
    const entry = clearing ? s.inputIndex.byId.get(id) : undefined;
    const text = entry && clearing ? shortFor(s, entry, clearing) : null;
    return text === null ? call : { ...call, function: { ...call.function, arguments: text } };
  });
  return {
    cleared,
    calls,
    extra: messageExtra({ tool_calls: calls, tool_call_id: m.source.tool_call_id, name: m.source.name }),
  };
}

/** Two sets of clearings say the same (same calls, same reasons). */
export function sameClearings(
  a: ReadonlyMap<string, InputClearing> | undefined,
  b: ReadonlyMap<string, InputClearing>,
): boolean {
  if ((a?.size ?? 0) !== b.size) return false;
  for (const [id, x] of b) if (clearingKey(a?.get(id)) !== clearingKey(x)) return false;
  return true;
}

function clearingKey(c: InputClearing | undefined): string {
  return c === undefined ? '' : c.reason === 'superseded' ? `s:${c.by}` : 'o';
}

/** The short arguments of one call (kept on its index entry per reason), or null when there is no short form. */
function shortFor(s: Session, entry: IndexedCall, clearing: InputClearing): string | null {
  return entry.short.get(clearingKey(clearing), () =>
    entry.args && entry.input ? shortArguments(entry.args, entry.input, clearing, inputRecallId(s.id, entry.id)) : null,
  );
}

/** Clearing this call makes its arguments at least `minChars` shorter. */
function saves(s: Session, call: IndexedCall, clearing: InputClearing, minChars: number): boolean {
  const raw = call.call.function?.arguments;
  const text = shortFor(s, call, clearing);
  return typeof raw === 'string' && text !== null && raw.length - text.length >= Math.max(1, minChars);
}
