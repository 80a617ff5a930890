/**
 * The context view's breakdown of a session's latest request (core/context-view.ts), made when
 * asked (hmc_control context, a session save at a turn's end), never on a hook: the messages' parts
 * are sums over the ledger's per-message counts (already made for the accounting), the system
 * prompt's count is the ledger's, and the tool schemas are counted one by one the first time they
 * are asked about (kept beside the list they belong to, so a host that sends the same list again
 * costs nothing more).
 *
 * Invariant: read-only on the session; the parts add up to what the ledger reports as the context
 * now, raw and as sent (the system prompt and tool schemas included), exactly.
 */
import {
  CONTEXT_PARTS,
  schemaName,
  type ContextBreakdown,
  type ContextPartName,
  type ToolSchemaCost,
} from '../../core/context-view.js';
import { countTokens } from '../../core/tokens.js';
import type { Session } from '../session/session.js';

/** The placeholder Hermes 0.16's hooks put for a value nested too deep (run_agent._hook_jsonable). */
const DEPTH_LIMITED = /"<[a-z]+ depth limit>"/;

/** Per-tool counts of one list of schemas (by reference): counted once per list the host sends. */
const schemaCosts = new WeakMap<readonly unknown[], { rows: { name: string; tokens: number }[]; problems: string[] }>();

function serialise(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return `a ${typeof value}`;
}

/** Each schema's own tokens and name; a schema that is not an object is counted and named as a problem. */
function costsOf(tools: readonly unknown[]): { rows: { name: string; tokens: number }[]; problems: string[] } {
  const known = schemaCosts.get(tools);
  if (known) return known;
  const problems: string[] = [];
  let limited = 0;
  const rows = tools.map((schema, i) => {
    const name = schemaName(schema, i);
    const json = serialise(schema);
    if (DEPTH_LIMITED.test(json)) limited++;
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
      problems.push(
        `tool schema ${i + 1} is not an object (it is ${kindOf(schema)}); counted as sent, under the name ${name}`,
      );
    } else if (name === `#${i + 1}`) {
      problems.push(`tool schema ${i + 1} names no tool (no function.name or name); shown as ${name}`);
    }
    return { name, tokens: countTokens(json) };
  });
  if (limited > 0)
    problems.push(
      `${limited} tool schema${limited === 1 ? ' was' : 's were'} shown to HMC cut short (values below a depth replaced by "<… depth limit>", as Hermes 0.16's hooks show them): their tokens here are fewer than were sent`,
    );
  const costs = { rows, problems };
  schemaCosts.set(tools, costs);
  return costs;
}

/** Calls per tool in this session, from what HMC holds of them (pre/post_tool_call). */
function sessionCalls(s: Session): Map<string, number> {
  const calls = new Map<string, number>();
  for (const r of s.held.records.values()) calls.set(r.tool, (calls.get(r.tool) ?? 0) + 1);
  return calls;
}

/**
 * The latest request of `s`, split; null when the session has sent nothing yet in this process
 * (no message held and no request seen). Run after `settle()`: the ledger's counts are then whole.
 */
export function contextBreakdown(s: Session, now: number): ContextBreakdown | null {
  const seen = s.view.request.system !== undefined || s.view.request.tools !== undefined;
  const { messages, fixed } = s.ledger.perMessage();
  if (!seen && messages.length === 0) return null;
  const sums = new Map<ContextPartName, { raw: number; sent: number }>(
    CONTEXT_PARTS.map((p) => [p, { raw: 0, sent: 0 }]),
  );
  const add = (part: ContextPartName, raw: number, sent: number): void => {
    const sum = sums.get(part) as { raw: number; sent: number };
    sum.raw += raw;
    sum.sent += sent;
  };
  add('system_prompt', fixed.system, fixed.system);
  add('tool_schemas', fixed.tools, fixed.tools);
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (!m) continue;
    const role = s.held.messages[i]?.role ?? '';
    if (role === 'tool') add('tool_outputs', m.raw, m.sent);
    else if (role === 'assistant') {
      add('tool_call_arguments', m.callsRaw, m.callsSent);
      add('assistant', m.raw - m.callsRaw, m.sent - m.callsSent);
    } else if (role === 'user') add('user', m.raw, m.sent);
    else add('other', m.raw, m.sent);
  }
  const parts = CONTEXT_PARTS.map((part) => ({ part, ...(sums.get(part) as { raw: number; sent: number }) }));
  const tools = s.view.request.tools ?? [];
  const costs = costsOf(tools);
  const calls = sessionCalls(s);
  const rows: ToolSchemaCost[] = costs.rows.map((r) => ({
    name: r.name,
    tokens: r.tokens,
    calls_session: calls.get(r.name) ?? 0,
  }));
  rows.sort((a, b) => b.tokens - a.tokens || a.name.localeCompare(b.name));
  const perTool = rows.reduce((n, r) => n + r.tokens, 0);
  return {
    session_id: s.id,
    at: now,
    model: s.meta.model,
    context_window: s.meta.contextWindow > 0 ? s.meta.contextWindow : null,
    total: { raw: parts.reduce((n, p) => n + p.raw, 0), sent: parts.reduce((n, p) => n + p.sent, 0) },
    parts,
    tools: rows,
    tool_schemas_joints: tools.length > 0 ? fixed.tools - perTool : 0,
    request_seen: seen,
    problems: costs.problems,
  };
}
