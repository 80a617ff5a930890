/**
 * The engine's invariants (DESIGN §4) as a checker over one model call's view: what the host sent
 * (raw) against what the model was given (after edits). Replays, property tests and the corpus
 * test run it on every call; a violation is a bug, reported with the message index.
 */
import type { HmcConfig } from '../../config/keys.js';
import { reportsFailure, someLineReportsFailure } from '../../strategies/shared/signals.js';
import type { ModelCallEdit } from '../../core/host-api.js';
import { toolCallsEditProblem } from '../../core/tool-calls.js';
import { PATH_KEYS } from '../../hosts/tool-inputs.js';
import { parseEnvelope } from '../../hosts/outputs/envelope.js';
import { PHASE_HEAD, PHASE_STUB } from '../layer1/layer1.js';
import { protectionFor } from '../session/protection.js';
import type { Message, ToolCall } from '../../core/message.js';

/** The words of clearing's marker (list-wide.ts). */
const CLEARED = 'cleared to save context';
/** Placeholders whose output is still shown elsewhere (the kept copy of a duplicate, the first of a repeat). */
const PLACEHOLDER =
  /^\[(?:Output removed|Error output removed|output removed|error output removed|Same output as|same output as)/;

export function checkView(raw: readonly Message[], edits: readonly ModelCallEdit[], config: HmcConfig): string[] {
  const problems: string[] = [];
  const protection = protectionFor(config);
  const calls = new Map<string, { name: string; args: unknown }>();
  for (const m of raw) {
    if (m.role === 'assistant' && Array.isArray(m.tool_calls)) {
      for (const c of m.tool_calls)
        if (typeof c?.id === 'string')
          calls.set(c.id, { name: c.function?.name ?? '', args: c.function?.arguments ?? {} });
    }
  }
  const seen = new Set<number>();
  let context: CallContext | undefined;
  let lastUser = -1;
  raw.forEach((m, i) => {
    if (m.role === 'user') lastUser = i;
  });
  // Layer 1: a summarised range is its summary and stubs; the range as a whole must be shorter.
  let phaseRaw = 0;
  let phaseSent = 0;
  for (const edit of edits) {
    const m = raw[edit.index];
    const where = `message ${edit.index}`;
    if (!m) {
      problems.push(`${where}: edit beyond the conversation`);
      continue;
    }
    if (seen.has(edit.index)) problems.push(`${where}: edited twice in one view`);
    seen.add(edit.index);
    if (edit.tool_calls !== undefined)
      problems.push(...checkCalls(raw, edit.index, edit.tool_calls, (context ??= callContext(raw, protection.inputs))));
    if (edit.content === undefined) continue;
    if (edit.content.startsWith(PHASE_HEAD) || edit.content === PHASE_STUB) {
      if (m.role === 'system') problems.push(`${where}: the system prompt was summarised`);
      if (edit.index === lastUser) problems.push(`${where}: the latest user message was summarised`);
      const call = typeof m.tool_call_id === 'string' ? calls.get(m.tool_call_id) : undefined;
      const tool = (typeof m.name === 'string' && m.name) || call?.name || '';
      if (m.role === 'tool' && protection.tool(tool)) problems.push(`${where}: protected tool ${tool} was summarised`);
      phaseRaw += typeof m.content === 'string' ? m.content.length : JSON.stringify(m.content ?? '').length;
      phaseSent += edit.content.length;
      continue;
    }
    if (m.role !== 'tool') problems.push(`${where}: a ${m.role} message was edited`);
    if (typeof m.content !== 'string') {
      problems.push(`${where}: non-string content was edited`);
      continue;
    }
    const call = typeof m.tool_call_id === 'string' ? calls.get(m.tool_call_id) : undefined;
    const tool = (typeof m.name === 'string' && m.name) || call?.name || '';
    if (protection.tool(tool)) problems.push(`${where}: protected tool ${tool} was edited`);
    // The model is about to read the current step's results: clearing never takes one.
    if (
      edit.content.includes(CLEARED) &&
      !m.content.includes(CLEARED) &&
      typeof m.tool_call_id === 'string' &&
      (context ??= callContext(raw, protection.inputs)).currentCalls.has(m.tool_call_id)
    ) {
      problems.push(`${where}: a result of the current step was cleared`);
    }
    if (edit.content.length >= m.content.length)
      problems.push(`${where}: replacement is not shorter (${edit.content.length} >= ${m.content.length})`);
    if (edit.content.trim().length === 0) problems.push(`${where}: output emptied`);
    const placeholderOnly = PLACEHOLDER.test(innerText(edit.content));
    // Source code read from a file mentions errors (`except ValueError:`) without reporting one.
    const info = { tool, args: call?.args ?? {} };
    const sourceRead = parseEnvelope(m.content, info).output.kind === 'file';
    if (
      !placeholderOnly &&
      !sourceRead &&
      reportsFailure(m.content) &&
      failureShown(m.content, info) &&
      !failureShown(edit.content, info)
    ) {
      problems.push(`${where}: a failure reported by ${tool || 'the tool'} was lost`);
    }
  }
  if (phaseSent > 0 && phaseSent >= phaseRaw)
    problems.push(`summarised ranges are not shorter (${phaseSent} >= ${phaseRaw} characters)`);
  return problems;
}

/**
 * Whether a tool result shows a failure: a line of its text that reports one (a passing test's
 * line does not, whatever its title says, as truncation reads it), or the envelope around the
 * text (`"error": "…"`, never `"error": null`).
 */
function failureShown(content: string, call: { tool: string; args: unknown }): boolean {
  const env = parseEnvelope(content, call);
  return someLineReportsFailure(env.output.text) || reportsFailure(env.withPlaceholder(''));
}

/**
 * A `tool_calls` edit (input clearing, DESIGN §4.2): the same calls in the same order with JSON
 * object arguments, only on an assistant message, only shorter arguments, only of answered calls
 * that did not fail and are not the current step's, never a protected tool's, and every path the
 * arguments named still named.
 */
function checkCalls(
  raw: readonly Message[],
  index: number,
  edited: readonly ToolCall[],
  context: CallContext,
): string[] {
  const where = `message ${index}`;
  const m = raw[index] as Message;
  if (m.role !== 'assistant') return [`${where}: tool_calls edited on a ${m.role} message`];
  const problem = toolCallsEditProblem(m.tool_calls, edited);
  if (problem) return [`${where}: ${problem}`];
  const problems: string[] = [];
  const { lastStep, results, protectedInputs } = context;
  (m.tool_calls ?? []).forEach((call, k) => {
    const before = call.function?.arguments;
    const after = (edited[k] as ToolCall).function?.arguments;
    if (after === before) return;
    const name = call.function?.name ?? '';
    const id = call.id ?? '';
    if (typeof before !== 'string' || typeof after !== 'string' || after.length >= before.length)
      problems.push(`${where}: call ${id}'s arguments did not get shorter`);
    if (index === lastStep) problems.push(`${where}: call ${id} of the current step was cleared`);
    if (protectedInputs(name)) problems.push(`${where}: call ${id} of protected tool ${name} was cleared`);
    const result = results.get(id);
    if (!result) problems.push(`${where}: call ${id} was cleared before its result came back`);
    else if (result.is_error === true || (typeof result.content === 'string' && reportsFailure(result.content)))
      problems.push(`${where}: failed call ${id} was cleared`);
    const a = objectOf(before);
    const b = objectOf(after);
    for (const key of PATH_KEYS)
      if (typeof a[key] === 'string' && a[key] !== b[key]) problems.push(`${where}: call ${id} lost its ${key}`);
  });
  return problems;
}

interface CallContext {
  /** The latest assistant message with tool calls (the current step). */
  lastStep: number;
  /** The ids of its calls. */
  currentCalls: Set<string>;
  /** Tool results by call id. */
  results: Map<string, Message>;
  protectedInputs: (tool: string) => boolean;
}

function callContext(raw: readonly Message[], protectedInputs: (tool: string) => boolean): CallContext {
  let lastStep = -1;
  const results = new Map<string, Message>();
  raw.forEach((x, i) => {
    if (x.role === 'assistant' && Array.isArray(x.tool_calls) && x.tool_calls.length > 0) lastStep = i;
    if (x.role === 'tool' && typeof x.tool_call_id === 'string') results.set(x.tool_call_id, x);
  });
  const step = lastStep >= 0 ? ((raw[lastStep] as Message).tool_calls ?? []) : [];
  const currentCalls = new Set(step.map((c) => c?.id).filter((id): id is string => typeof id === 'string'));
  return { lastStep, results, protectedInputs, currentCalls };
}

function objectOf(text: unknown): Record<string, unknown> {
  try {
    const value: unknown = typeof text === 'string' ? JSON.parse(text) : null;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** The text a placeholder check looks at: inside a JSON envelope's first string field, if any. */
function innerText(content: string): string {
  if (!content.trimStart().startsWith('{')) return content;
  try {
    const parsed: unknown = JSON.parse(content);
    if (typeof parsed === 'object' && parsed !== null) {
      for (const v of Object.values(parsed)) if (typeof v === 'string') return v;
    }
  } catch {
    // Not JSON: the text itself.
  }
  return content;
}
