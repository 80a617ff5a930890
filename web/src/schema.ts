/**
 * The shapes of the dashboard's API answers and SSE events (docs/dashboard.md), as guards.
 *
 * Invariant: mirrors src/server (routes) and src/events/types.ts; a field the server may omit is
 * optional here, so an older or newer server degrades to blanks rather than a broken page.
 */
import { arrayOf, bool, literal, nullable, num, optional, recordOf, shape, str, type Infer } from './guards.js';

const input = shape({ raw: num, hmc: num });
const base = { id: str, source: str, time: num, session_id: str };

export const turnEvent = shape({
  ...base,
  type: literal('turn'),
  turn: num,
  model: str,
  platform: str,
  project_path: str,
  context_tokens: num,
  context_window: num,
  context_percent: num,
  delta_saved: num,
  cumulative_saved: num,
  by_strategy: recordOf(num),
  by_tool: recordOf(num),
  input_tokens: input,
  tool_calls: num,
  cache_breaks: num,
  turn_model_calls: optional(num),
  context_saved: optional(num),
  summarise_at: optional(num),
  host_compress_at: optional(num),
});
export const toolEvent = shape({
  ...base,
  type: literal('tool'),
  turn: num,
  tool_name: str,
  tool_call_id: str,
  is_error: bool,
  tokens_before: num,
  tokens_after: num,
  strategies: arrayOf(str),
  delta_saved: num,
  cumulative_saved: num,
  by_strategy: recordOf(num),
  context_tokens: num,
  context_percent: num,
  inspect_id: optional(str),
});
export const sessionEndEvent = shape({
  ...base,
  type: literal('session_end'),
  turns: num,
  tool_calls: num,
  total_saved: num,
  by_strategy: recordOf(num),
  by_tool: recordOf(num),
  input_tokens: input,
});
export const sessionIdleEvent = shape({
  ...base,
  type: literal('session_idle'),
  turns: num,
  tool_calls: num,
  total_saved: num,
  by_strategy: recordOf(num),
  by_tool: recordOf(num),
  input_tokens: input,
});
export const phaseEvent = shape({
  ...base,
  type: literal('phase'),
  phase_id: num,
  topic: str,
  turn_from: num,
  turn_to: num,
  tokens_before: num,
  tokens_after: num,
  recall_id: str,
  updated: bool,
});
export type TurnEvent = Infer<typeof turnEvent>;
export type ToolEvent = Infer<typeof toolEvent>;
export type SessionEndEvent = Infer<typeof sessionEndEvent>;
export type SessionIdleEvent = Infer<typeof sessionIdleEvent>;
export type PhaseEvent = Infer<typeof phaseEvent>;
export type HmcEvent = TurnEvent | ToolEvent | SessionEndEvent | SessionIdleEvent | PhaseEvent;
export const hmcEvent = (v: unknown): v is HmcEvent =>
  turnEvent(v) || toolEvent(v) || sessionEndEvent(v) || sessionIdleEvent(v) || phaseEvent(v);

/** Where a session is in its life (docs/dashboard.md "Session states"). */
export const sessionState = literal('live', 'idle', 'ended');
export type SessionState = Infer<typeof sessionState>;

export const livePoint = shape({
  turn: num,
  time: num,
  context_percent: num,
  context_tokens: num,
  saved: num,
  delta_saved: num,
  model_calls: optional(num),
  context_saved: optional(num),
});
export type LivePoint = Infer<typeof livePoint>;
const liveFields = {
  session_id: str,
  source: str,
  project_path: str,
  model: str,
  platform: str,
  started_at: num,
  last_seen: num,
  state: optional(sessionState),
  ended: bool,
  turns: num,
  tool_calls: num,
  context_tokens: num,
  context_window: num,
  context_percent: num,
  saved: num,
  by_strategy: recordOf(num),
  by_tool: recordOf(num),
  input_tokens: input,
  cache_breaks: num,
  summarise_at: optional(num),
  host_compress_at: optional(num),
};
export const liveSession = shape({ ...liveFields, points: arrayOf(livePoint) });
export type LiveSession = Infer<typeof liveSession>;
export const summaryResponse = shape({ current: nullable(liveSession), sessions: arrayOf(shape(liveFields)) });
export type SummaryResponse = Infer<typeof summaryResponse>;

export const analyticsResponse = shape({
  total_saved: num,
  total_sessions: num,
  total_input: num,
  savings_pct: num,
  model_calls: optional(num),
  sessions_without_model_calls: optional(num),
  by_strategy: recordOf(num),
  by_tool: recordOf(num),
  estimated_cost_saved: shape({ amount: num, currency: str, basis: str }),
  store: str,
});
export type AnalyticsResponse = Infer<typeof analyticsResponse>;

export const strategiesResponse = shape({ strategies: arrayOf(shape({ strategy: str, saved: num })) });
export const toolsResponse = shape({ tools: arrayOf(shape({ tool: str, saved: num })) });
export const daysResponse = shape({ days: arrayOf(shape({ day: str, saved: num, input: num, sessions: num })) });
export const monthsResponse = shape({ months: arrayOf(shape({ month: str, saved: num, input: num, sessions: num })) });
export const weeksResponse = shape({ weeks: arrayOf(shape({ week: str, saved: num, input: num, sessions: num })) });

/** GET /api/models: HMC's tokens per model priced (an estimate), and the provider's own usage where a host passed it. */
const price = shape({ input: num, cache_read: num, cache_write: num, output: num, source: str, matched: str });
const modelRow = shape({
  model: str,
  sessions: num,
  model_calls: num,
  input: num,
  sent: num,
  saved: num,
  cached_input: num,
  cached_sent: num,
  sessions_without_cache_model: num,
  price,
  cost: shape({ spent: num, without_hmc: num, saved: num }),
});
export type ModelRow = Infer<typeof modelRow>;
const providerRow = shape({
  model: str,
  calls: num,
  prompt_tokens: num,
  cache_read_tokens: num,
  cache_write_tokens: num,
  completion_tokens: num,
  price,
  cost: shape({ input: num, output: num }),
});
export type ProviderRow = Infer<typeof providerRow>;
export const modelsResponse = shape({
  models: arrayOf(modelRow),
  provider: optional(arrayOf(providerRow)),
  total: shape({ amount: num, currency: str, basis: str }),
  currency: str,
});
export type ModelsResponse = Infer<typeof modelsResponse>;

/** GET /api/outputs?by=tool|kind|program. */
export const OUTPUT_BY = ['tool', 'kind', 'program'] as const;
export type OutputBy = (typeof OUTPUT_BY)[number];
const outputRow = shape({
  name: str,
  kind: str,
  outputs: num,
  tokens_raw: num,
  tokens_sent: num,
  saved: num,
  saved_per_output: num,
  savings_pct: num,
  input_saved: optional(num),
});
export type OutputRow = Infer<typeof outputRow>;
export const outputsResponse = shape({ by: literal(...OUTPUT_BY), outputs: arrayOf(outputRow) });

/** GET /api/work: did compression cost the agent work. */
export const workResponse = shape({
  sessions: num,
  model_calls: num,
  tool_calls: num,
  elided: num,
  recalls: num,
  rereads: num,
  per_100_elided: num,
  top: arrayOf(shape({ session_id: str, started_at: num, model: str, recalls: num, rereads: num, elided: num })),
});
export type WorkResponse = Infer<typeof workResponse>;

export const projectsResponse = shape({
  projects: arrayOf(shape({ project_path: str, saved_tokens: num, input_tokens: num, sessions: num })),
});
export type ProjectRow = Infer<typeof projectsResponse>['projects'][number];

export const sessionRow = shape({
  session_id: str,
  project_path: str,
  platform: str,
  model: str,
  started_at: num,
  ended_at: nullable(num),
  turns: num,
  tool_calls: num,
  input_tokens_raw: num,
  input_tokens_hmc: num,
  saved: num,
  savings_pct: num,
  live: optional(bool),
  state: optional(sessionState),
});
export type SessionRow = Infer<typeof sessionRow>;
export const sessionsResponse = shape({ total: num, rows: arrayOf(sessionRow) });

const turnPoint = shape({
  turn: num,
  time: num,
  context_tokens: num,
  context_raw_tokens: optional(num),
  context_percent: num,
  input_raw: num,
  input_hmc: num,
  model_calls: optional(num),
  tool_calls: num,
});
export type TurnPoint = Infer<typeof turnPoint>;
export const storedSession = shape({
  session_id: str,
  project_path: str,
  model: str,
  platform: str,
  started_at: num,
  turns: num,
  tool_calls: num,
  input_tokens_raw: num,
  input_tokens_hmc: num,
  saved: num,
  by_strategy: recordOf(num),
  by_tool: recordOf(num),
  timeline: arrayOf(turnPoint),
});
export type StoredSession = Infer<typeof storedSession>;
export const sessionDetailResponse = shape({
  session: nullable(storedSession),
  live: nullable(liveSession),
  state: optional(sessionState),
});
export type SessionDetail = Infer<typeof sessionDetailResponse>;

/** One side of an inspected output: the text inside its JSON envelope, and the envelope's other fields. */
export const outputView = shape({
  field: nullable(str),
  text: str,
  fields: arrayOf(shape({ name: str, value: str })),
  cut: bool,
});
export type OutputView = Infer<typeof outputView>;
export const inspectRecord = shape({
  id: str,
  session_id: str,
  tool_call_id: str,
  tool_name: str,
  time: num,
  strategies: arrayOf(str),
  tokens_before: num,
  tokens_after: num,
  before: str,
  after: str,
  before_truncated: bool,
  before_view: optional(outputView),
  after_view: optional(outputView),
});
export type InspectRecord = Infer<typeof inspectRecord>;

/** One summarised phase of the session index (GET /api/phases). */
export const phaseEntry = shape({
  session_id: str,
  phase_id: num,
  message_from: num,
  message_to: num,
  turn_from: num,
  turn_to: num,
  topic: str,
  summary: str,
  tokens_before: num,
  tokens_after: num,
  recall_id: str,
  model: str,
  created_at: num,
  updates: num,
});
export type PhaseEntry = Infer<typeof phaseEntry>;
export const phasesResponse = shape({ session_id: str, phases: arrayOf(phaseEntry) });
export const phaseResponse = shape({ session_id: str, phase: phaseEntry });
const mark = (v: unknown): v is [number, number] => Array.isArray(v) && v.length === 2 && num(v[0]) && num(v[1]);
export const phaseHit = shape({
  session_id: str,
  phase_id: num,
  turn_from: num,
  turn_to: num,
  topic: str,
  tokens_before: num,
  tokens_after: num,
  recall_id: str,
  created_at: num,
  snippet: str,
  marks: arrayOf(mark),
});
export type PhaseHit = Infer<typeof phaseHit>;
export const phaseSearchResponse = shape({
  query: str,
  scope: literal('session', 'global'),
  search: str,
  hits: arrayOf(phaseHit),
});

/** The provider's usage of a session's model calls (GET /api/sessions/:id/usage; context-engine hosts). */
const usageCall = shape({
  seq: num,
  at: num,
  model: str,
  provider: str,
  prompt_tokens: num,
  completion_tokens: num,
  cache_read_tokens: num,
  cache_write_tokens: num,
  reasoning_tokens: num,
  hmc_input: nullable(num),
  raw_input: nullable(num),
  hmc_cached: nullable(num),
});
export type UsageCall = Infer<typeof usageCall>;
export const sessionUsage = shape({
  session_id: str,
  totals: shape({
    calls: num,
    prompt_tokens: num,
    completion_tokens: num,
    cache_read_tokens: num,
    cache_write_tokens: num,
    reasoning_tokens: num,
    hmc_calls: num,
    hmc_input: num,
    hmc_cached: num,
  }),
  models: arrayOf(shape({ model: str, calls: num })),
  calls: arrayOf(usageCall),
});
export type SessionUsage = Infer<typeof sessionUsage>;
/** Reconcile (issue 24): the provider's figures (measured) beside HMC's (modelled), breaks by cause, the costliest calls. */
const costlyCall = shape({
  seq: num,
  call_id: str,
  model: str,
  prompt_tokens: num,
  cache_read_tokens: num,
  input_cost: num,
  why: str,
  cause: str,
});
export const reconciled = shape({
  calls: num,
  unseen_calls: num,
  tokenizer_ratio: nullable(num),
  cached_share: shape({ modelled: nullable(num), measured: nullable(num) }),
  breaks: shape({ count: num, tokens: num, by_cause: shape({ hmc: num, hermes: num, ttl: num, unknown: num }) }),
  cost: shape({
    currency: str,
    measured_input: num,
    measured_output: num,
    seen_measured_input: num,
    modelled_without_hmc: num,
    saved: num,
    unknown_models: arrayOf(str),
  }),
  costliest: arrayOf(costlyCall),
});
export type Reconciled = Infer<typeof reconciled>;
export const usageResponse = shape({
  session_id: str,
  usage: nullable(sessionUsage),
  reconcile: optional(nullable(reconciled)),
});

export const eventsResponse = shape({ events: arrayOf((v: unknown): v is unknown => true), found: bool });
export const helloData = shape({ time: num, resumed: optional(bool), version: optional(str) });

/** GET /api/sessions/:id/context: where the latest request went (src/core/context-view.ts). */
const contextPart = shape({ part: str, raw: num, sent: num });
const contextTool = shape({ name: str, tokens: num, calls_session: num, calls_period: nullable(num) });
export const contextViewData = shape({
  at: num,
  context_window: nullable(num),
  total: shape({ raw: num, sent: num }),
  parts: arrayOf(contextPart),
  tools: arrayOf(contextTool),
  request_seen: bool,
  problems: arrayOf(str),
  period_days: num,
  period_note: nullable(str),
  unused_tools: arrayOf(str),
  unused_tokens: num,
  advice: arrayOf(str),
});
export type ContextViewData = Infer<typeof contextViewData>;
export const contextResponse = shape({
  session_id: str,
  breakdown: nullable(contextViewData),
  breakdown_note: optional(str),
});
