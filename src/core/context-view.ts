/**
 * "Where the context goes" (issue 24, part 5): the latest request of a session split into its
 * parts (system prompt, tool schemas, and the messages by part), raw and as HMC sent it, each tool
 * schema with what it costs and how often the tool was called, and the advice that follows. The
 * engine makes the breakdown (engine/control/context-breakdown.ts), the dashboard reads the one a session
 * file keeps; both add the period's tool calls and the advice here, so the two say the same.
 *
 * Invariant: pure; numbers are o200k tokens counted as the accounting counts them (tokens.ts), the
 * parts add up to the total exactly; advice names a setting and never acts.
 */

/** The parts of a request, in the order shown. */
export const CONTEXT_PARTS = [
  'system_prompt',
  'tool_schemas',
  'tool_outputs',
  'tool_call_arguments',
  'user',
  'assistant',
  'other',
] as const;
export type ContextPartName = (typeof CONTEXT_PARTS)[number];

export const PART_LABELS: Record<ContextPartName, string> = {
  system_prompt: 'system prompt',
  tool_schemas: 'tool schemas',
  tool_outputs: 'tool outputs',
  tool_call_arguments: 'tool-call arguments',
  user: 'user messages',
  assistant: 'assistant text',
  other: 'other messages',
};

export interface ContextPart {
  part: ContextPartName;
  /** Tokens without HMC and as HMC sent them (equal for the system prompt and tool schemas, never edited). */
  raw: number;
  sent: number;
}

export interface ToolSchemaCost {
  /** The tool's name as its schema gives it (`#N` when it names none). */
  name: string;
  /** Tokens of this schema's own JSON. */
  tokens: number;
  /** Calls of this tool in the session (what HMC holds of it). */
  calls_session: number;
}

/** A session's latest request, split (kept in the session file as `context`). */
export interface ContextBreakdown {
  session_id: string;
  /** When it was made (ms since the epoch). */
  at: number;
  model: string;
  /** The model's window (context_length); null when the host never said. */
  context_window: number | null;
  /** The whole request, raw and as sent: the sum of `parts`. */
  total: { raw: number; sent: number };
  parts: ContextPart[];
  /** One row per tool schema sent, largest first. */
  tools: ToolSchemaCost[];
  /** The tool schemas' JSON as one list costs this many tokens more (or fewer) than its schemas alone: brackets and commas. */
  tool_schemas_joints: number;
  /** False when the host never sent its system prompt and tool schemas (a host without pre_model_call). */
  request_seen: boolean;
  /** What was odd in what the host sent (a tool schema that is not an object), one sentence each. */
  problems: string[];
}

/** A tool schema's row with the calls of the period added (null: analytics off or unreadable). */
export interface ToolSchemaUse extends ToolSchemaCost {
  calls_period: number | null;
}

/** The view shown: the breakdown, its tools with the period's calls, and advice. */
export interface ContextView extends Omit<ContextBreakdown, 'tools'> {
  tools: ToolSchemaUse[];
  /** The period the calls are counted over (days), and why they could not be when they were not. */
  period_days: number;
  period_note: string | null;
  /** Tools never called in the period nor in this session (HMC's own tool aside). */
  unused_tools: string[];
  unused_tokens: number;
  advice: string[];
}

export const DEFAULT_PERIOD_DAYS = 30;

/** The tool's name in a schema of any of the shapes hosts send (OpenAI, Anthropic, Responses). */
export function schemaName(schema: unknown, index: number): string {
  if (typeof schema === 'object' && schema !== null && !Array.isArray(schema)) {
    const s = schema as Record<string, unknown>;
    const fn = s.function;
    if (typeof fn === 'object' && fn !== null && typeof (fn as Record<string, unknown>).name === 'string')
      return (fn as Record<string, unknown>).name as string;
    if (typeof s.name === 'string') return s.name;
  }
  return `#${index + 1}`;
}

function kTokens(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(2)}M`;
  if (n >= 1000) return `${(n / 1000).toFixed(1)}K`;
  return String(Math.round(n));
}

/** The share `part` is of `whole`, in percent with one decimal (never above 100). */
export function sharePercent(part: number, whole: number): number {
  if (whole <= 0) return 0;
  return Math.min(100, Math.round((part / whole) * 1000) / 10);
}

/** HMC's own tool: offered by HMC itself, never advised away. */
const OWN_TOOL = 'hmc_control';

/**
 * The view of `b` with the period's calls per tool (`calls`: tool → calls over `days` days; null
 * when they could not be read, `note` says why) and the advice that follows.
 */
export function contextView(
  b: ContextBreakdown,
  calls: ReadonlyMap<string, number> | null,
  days: number,
  note: string | null = null,
): ContextView {
  const tools = b.tools.map((t) => ({ ...t, calls_period: calls ? (calls.get(t.name) ?? 0) : null }));
  const unused = tools.filter((t) => t.name !== OWN_TOOL && t.calls_session === 0 && (t.calls_period ?? 0) === 0);
  const unusedTokens = unused.reduce((n, t) => n + t.tokens, 0);
  const view: ContextView = {
    ...b,
    tools,
    period_days: days,
    period_note: calls ? null : note,
    unused_tools: unused.map((t) => t.name),
    unused_tokens: unusedTokens,
    advice: [],
  };
  view.advice = adviceOf(view);
  return view;
}

/** Advice, never action: what the user could change, with the figure that says why. */
function adviceOf(v: ContextView): string[] {
  const advice: string[] = [];
  const schemas = v.parts.find((p) => p.part === 'tool_schemas')?.sent ?? 0;
  if (v.unused_tools.length > 0 && schemas > 0) {
    const when = v.tools.some((t) => t.calls_period !== null)
      ? `in ${v.period_days} days`
      : 'in this session (analytics off: no longer period)';
    const n = v.unused_tools.length;
    const names =
      v.unused_tools.length > 12
        ? `${v.unused_tools.slice(0, 12).join(', ')} and ${n - 12} more`
        : v.unused_tools.join(', ');
    advice.push(
      `tool schemas are ${sharePercent(schemas, v.total.sent)} % of each request; ${n === 1 ? 'this tool was' : `these ${n} tools were`} never called ${when} and cost ${kTokens(v.unused_tokens)} tokens a call (${names}): ` +
        "Hermes' toolsets setting can leave them out: `hermes tools disable <toolset>` (config.yaml `platform_toolsets`, per platform; `agent.disabled_toolsets` for all), `hermes tools list` shows which toolset holds each tool",
    );
  }
  return advice;
}

function count(v: unknown): number | null {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : null;
}

/** A breakdown read back from a session file, checked field by field; null when it is not one. */
export function parseContextBreakdown(value: unknown): ContextBreakdown | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  const total = v.total as Record<string, unknown> | null | undefined;
  if (typeof v.session_id !== 'string' || typeof v.at !== 'number' || typeof total !== 'object' || total === null)
    return null;
  const raw = count(total.raw);
  const sent = count(total.sent);
  if (raw === null || sent === null || !Array.isArray(v.parts) || !Array.isArray(v.tools)) return null;
  const parts: ContextPart[] = [];
  for (const p of v.parts as unknown[]) {
    const r = p as Record<string, unknown> | null;
    if (typeof r !== 'object' || r === null || !(CONTEXT_PARTS as readonly unknown[]).includes(r.part)) return null;
    const pr = count(r.raw);
    const ps = count(r.sent);
    if (pr === null || ps === null) return null;
    parts.push({ part: r.part as ContextPartName, raw: pr, sent: ps });
  }
  const tools: ToolSchemaCost[] = [];
  for (const t of v.tools as unknown[]) {
    const r = t as Record<string, unknown> | null;
    if (typeof r !== 'object' || r === null || typeof r.name !== 'string') return null;
    const tokens = count(r.tokens);
    const calls = count(r.calls_session);
    if (tokens === null || calls === null) return null;
    tools.push({ name: r.name, tokens, calls_session: calls });
  }
  const window = count(v.context_window);
  return {
    session_id: v.session_id,
    at: v.at,
    model: typeof v.model === 'string' ? v.model : '',
    context_window: window && window > 0 ? window : null,
    total: { raw, sent },
    parts,
    tools,
    tool_schemas_joints:
      typeof v.tool_schemas_joints === 'number' && Number.isInteger(v.tool_schemas_joints) ? v.tool_schemas_joints : 0,
    request_seen: v.request_seen === true,
    problems: Array.isArray(v.problems) ? v.problems.filter((p): p is string => typeof p === 'string') : [],
  };
}
