/**
 * Runs a recorded conversation through the hooks as an ideal host would (DESIGN §10 `hmc replay`,
 * the same loop as `../shared/bench/replay.py`): pre_llm_call once per user turn, pre_model_call
 * before every model call (each assistant reply), pre/post_tool_call around each tool result,
 * on_session_end after each turn and the session's end at the end. Reports input tokens over all
 * model calls with and without HMC, their cost under the prompt cache, cache breaks, the final
 * context, savings per strategy and per tool, invariant violations, and whether the conversation
 * came back byte-exact.
 */
import type { HmcConfig } from '../config/keys.js';
import type { InputTokens, Saved } from '../core/savings.js';
import { NULL_SINK } from '../events/types.js';
import type { Engine } from '../engine/engine.js';
import { Engine as EngineClass } from '../engine/engine.js';
import { InProcessHost } from '../hosts/in-process.js';
import { CacheCostMeter, savedPercent, type RequestMessage } from '../engine/ledger/cache-cost.js';
import { sessionRecord } from '../engine/turn/events.js';
import { checkView } from '../engine/turn/invariants.js';
import { safeJson } from '../engine/session/hashing.js';
import { contentTokens, messageExtra, overheadTokens } from '../core/tokens.js';
import type { Message } from '../core/message.js';

/** The public shape of `hmc replay --json` (keep these names stable). */
export interface ReplayReport {
  session_id: string;
  messages: number;
  turns: number;
  tool_calls: number;
  model_calls: number;
  restore_exact: boolean;
  input_tokens: InputTokens;
  final_context_tokens: InputTokens;
  savings_pct: number;
  saved_by_strategy: Saved;
  saved_by_tool: Saved;
  /** Input cost in base-price token units under the prompt cache (cached 0.1×, written 1.25×). */
  cost: { raw: number; hmc: number };
  cost_saved_pct: number;
  /** Model calls where a message the previous call had sent was rewritten. */
  cache_breaks: number;
  cache_breaks_per_100_calls: number;
  invariant_violations: string[];
}

export interface ReplayOptions {
  sessionId?: string;
  /** An engine to replay through (e.g. a runtime's, to record analytics); else a bare one. */
  engine?: Engine;
  config?: HmcConfig;
  model?: string;
  platform?: string;
  contextLength?: number;
}

/** Reads a session file's text: a JSON array of messages, `{ "messages": [...] }`, or JSONL. */
export function parseSession(text: string, label: string): Message[] {
  const trimmed = text.trim();
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    try {
      value = trimmed
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as unknown);
    } catch {
      throw new Error(
        `${label}: not JSON (expected an array of messages, {"messages": [...]}, or one message per line)`,
      );
    }
  }
  if (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Array.isArray((value as { messages?: unknown }).messages)
  ) {
    value = (value as { messages: unknown[] }).messages;
  }
  if (!Array.isArray(value)) throw new Error(`${label}: expected an array of messages`);
  value.forEach((m, i) => {
    if (typeof m !== 'object' || m === null || typeof (m as { role?: unknown }).role !== 'string') {
      throw new Error(
        `${label}: message ${i} has no "role" (every message needs a role: system, user, assistant or tool)`,
      );
    }
  });
  return value as Message[];
}

export function replaySession(source: readonly Message[], opts: ReplayOptions): ReplayReport {
  const sessionId = opts.sessionId ?? 'replay';
  const config = opts.config;
  const engine =
    opts.engine ??
    new EngineClass({
      config: () => config as HmcConfig,
      stateDir: null,
      sink: NULL_SINK,
      recorder: null,
      log: () => {},
      autoSettle: false,
    });
  const cfg = engine.config;
  // A replay plays the whole conversation: what a recording engine holds of the session goes.
  if (opts.engine) engine.startOver(sessionId);
  const host = new InProcessHost(engine);
  // The host's messages are the file's own objects: restore must leave them as they were.
  const before = source.map((m) => safeJson(m));
  const conversation: Message[] = [];
  const violations: string[] = [];
  const calls = toolCalls(source);
  const extra = {
    model: opts.model ?? 'replay',
    platform: opts.platform ?? 'replay',
    ...(opts.contextLength ? { context_length: opts.contextLength } : {}),
  };
  const rawContents = new Map(source.map((m) => [m, { content: m.content, calls: m.tool_calls }] as const));
  const rawMeter = new CacheCostMeter();
  const viewMeter = new CacheCostMeter();
  // What a message's tool calls, id and name cost, per list of calls sent (input clearing sends another list).
  const overhead = new WeakMap<object, number>();
  const request = (sent: (m: Message) => { content: unknown; calls: Message['tool_calls'] }): RequestMessage[] =>
    conversation.map((m) => {
      const { content, calls } = sent(m);
      const key = calls ?? m;
      let extra = overhead.get(key);
      if (extra === undefined) overhead.set(key, (extra = overheadTokens(messageExtra({ ...m, tool_calls: calls }))));
      return { message: m, content, calls, tokens: contentTokens(content) + extra };
    });
  let turnOpen = false;
  let toolCallCount = 0;

  const view = (method: 'pre_llm_call' | 'pre_model_call'): void => {
    host.restore(sessionId);
    const params = { session_id: sessionId, messages: conversation, ...extra };
    const result = method === 'pre_llm_call' ? engine.preLlmCall(params) : engine.preModelCall(params);
    for (const v of checkView(conversation, result.edits, cfg))
      violations.push(`${method} at message ${conversation.length - 1}: ${v}`);
    host.apply(sessionId, conversation, result.edits);
  };

  for (const message of source) {
    if (message.role === 'user') {
      if (turnOpen) host.onSessionEnd(sessionId);
      conversation.push(message);
      view('pre_llm_call');
      turnOpen = true;
      continue;
    }
    if (message.role === 'assistant') {
      // One model call: its request is everything before this reply, as the host would send it.
      view('pre_model_call');
      turnOpen = true;
      rawMeter.call(request((m) => rawContents.get(m) ?? { content: m.content, calls: m.tool_calls }));
      viewMeter.call(request((m) => ({ content: m.content, calls: m.tool_calls })));
      conversation.push(message);
      for (const call of message.tool_calls ?? []) {
        if (typeof call?.id === 'string')
          host.preToolCall(sessionId, call.function?.name ?? '', call.function?.arguments ?? {}, call.id);
      }
      continue;
    }
    if (message.role === 'tool') {
      toolCallCount++;
      const id = typeof message.tool_call_id === 'string' ? message.tool_call_id : '';
      const call = calls.get(id);
      if (typeof message.content === 'string') {
        const shown = host.postToolCall(
          sessionId,
          call?.name ?? (typeof message.name === 'string' ? message.name : ''),
          call?.args ?? {},
          message.content,
          id,
          message.is_error === true,
        );
        if (shown.length > message.content.length)
          violations.push(`tool result ${id}: replacement longer than the output`);
      }
      conversation.push(message);
      continue;
    }
    conversation.push(message);
  }
  host.onSessionEnd(sessionId);
  engine.settle();
  const session = engine.sessions.get(sessionId);
  host.onSessionFinalize(sessionId, conversation);
  engine.settle();
  // After finalize: the last turn's messages are in the ledger too.
  const context = session ? session.ledger.totals() : null;

  const restoreExact =
    conversation.length === source.length && conversation.every((m, i) => m === source[i] && safeJson(m) === before[i]);
  const record = session ? sessionRecord(session) : null;
  const raw = record?.input_tokens_raw ?? 0;
  const hmc = record?.input_tokens_hmc ?? 0;
  return {
    session_id: sessionId,
    messages: source.length,
    turns: record?.turns ?? 0,
    tool_calls: toolCallCount,
    model_calls: session?.ledger.modelCalls ?? 0,
    restore_exact: restoreExact,
    input_tokens: { raw, hmc },
    final_context_tokens: { raw: context?.contextRawTokens ?? 0, hmc: context?.contextTokens ?? 0 },
    savings_pct: raw > 0 ? Math.round(((raw - hmc) / raw) * 10000) / 100 : 0,
    saved_by_strategy: record?.by_strategy ?? {},
    saved_by_tool: record?.by_tool ?? {},
    cost: { raw: Math.round(rawMeter.totals.cost), hmc: Math.round(viewMeter.totals.cost) },
    cost_saved_pct: savedPercent(rawMeter.totals.cost, viewMeter.totals.cost),
    cache_breaks: viewMeter.totals.breaks,
    cache_breaks_per_100_calls:
      viewMeter.totals.calls > 0 ? Math.round((viewMeter.totals.breaks / viewMeter.totals.calls) * 10000) / 100 : 0,
    invariant_violations: violations,
  };
}

function toolCalls(messages: readonly Message[]): Map<string, { name: string; args: unknown }> {
  const out = new Map<string, { name: string; args: unknown }>();
  for (const m of messages) {
    if (m.role !== 'assistant' || !Array.isArray(m.tool_calls)) continue;
    for (const c of m.tool_calls)
      if (typeof c?.id === 'string') out.set(c.id, { name: c.function?.name ?? '', args: c.function?.arguments ?? {} });
  }
  return out;
}
