/**
 * The rule a `tool_calls` edit keeps on the wire (DESIGN §3, §4.2): the assistant message's whole
 * list of calls, the same ids, types and function names in the same order, each `arguments` a
 * JSON object string. The engine checks its own views with it (invariants.ts), the in-process host
 * refuses an edit that breaks it, and `../shared/bench/replay.py` applies the same rule (a
 * violation there is counted and not applied).
 *
 * Invariant: pure; says what is wrong in one sentence, or null.
 */
import type { ToolCall } from './message.js';

/** Why `edited` may not replace the calls `raw`, or null when it keeps the rule. */
export function toolCallsEditProblem(raw: readonly ToolCall[] | undefined, edited: unknown): string | null {
  if (!Array.isArray(edited)) return 'tool_calls must be a list';
  const calls = raw ?? [];
  if (edited.length !== calls.length)
    return `tool_calls has ${edited.length} calls where the message has ${calls.length}`;
  for (let i = 0; i < calls.length; i++) {
    const a = calls[i] as ToolCall;
    const b: unknown = edited[i];
    if (typeof b !== 'object' || b === null || Array.isArray(b)) return `call ${i} is not an object`;
    const call = b as ToolCall;
    if (call.id !== a.id) return `call ${i} changed its id`;
    if (call.type !== a.type) return `call ${i} changed its type`;
    const fn = call.function;
    if (typeof fn !== 'object' || fn === null || fn.name !== a.function?.name) return `call ${i} changed its name`;
    if (typeof fn.arguments !== 'string' || !isJsonObject(fn.arguments))
      return `call ${i}'s arguments are not a JSON object`;
  }
  return null;
}

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}
