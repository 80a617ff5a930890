/**
 * Where a corpus' input is, and what HMC still sends of it (issues 15 and 25): every model call's
 * request, message by message, in o200k tokens, split into tool outputs by the tool's kind (read,
 * shell, search, agent…, hosts/tools.ts; an edit's or a write's output is its own part), the
 * arguments of tool calls by what they carry (file writes, edits and patches, shell commands,
 * subagent prompts, other: hosts/tool-inputs.ts `bulkInputOf`), user messages, assistant text and
 * the system prompt. Counted twice per call: as the host holds it (raw) and as HMC sends it (the
 * view), so each part reads "raw share → share still sent", both of all raw input.
 *
 * Invariant: a message's part is decided by the raw message (a cleared call counts where its raw
 * arguments belong), so raw and sent compare part by part; the sums are the requests' messages
 * (system prompt and tool schemas the host adds are not in a replay's messages).
 */
import type { Message, ToolCall } from '../src/core/message.js';
import { contentTokens, countTokens } from '../src/core/tokens.js';
import { toolKind } from '../src/hosts/index.js';
import { parseArgs } from '../src/hosts/outputs/envelope.js';
import { bulkInputOf } from '../src/hosts/tool-inputs.js';

/** Tokens per part (`output:read`, `arguments:shell commands`, `user`…), summed over model calls. */
export type InputParts = Record<string, number>;

/** Raw and sent tokens per part. */
export interface PartTotals {
  raw: InputParts;
  sent: InputParts;
}

const ARGUMENT_PART: Record<string, string> = {
  write: 'file writes',
  shell: 'file writes',
  edit: 'edits and patches',
  command: 'shell commands',
  agent: 'subagent prompts',
  other: 'other',
};

/** Each call's part, each tool result's tool name: read once from the raw conversation. */
export class PartIndex {
  private readonly callPart = new Map<string, string>();
  private readonly toolName = new Map<string, string>();
  private readonly callTokens = new WeakMap<ToolCall, number>();
  private seen = 0;

  /** Learns the calls of messages not seen yet (the conversation only grows in a replay). */
  learn(messages: readonly Message[]): void {
    for (let i = this.seen; i < messages.length; i++) {
      for (const call of messages[i]?.tool_calls ?? []) {
        if (typeof call?.id !== 'string') continue;
        const name = call.function?.name ?? '';
        this.toolName.set(call.id, name);
        const input = bulkInputOf(name, parseArgs(call.function?.arguments));
        this.callPart.set(call.id, `arguments:${ARGUMENT_PART[input?.kind ?? 'other'] ?? 'other'}`);
      }
    }
    this.seen = Math.max(this.seen, messages.length);
  }

  /** Adds one request's messages to `into`. */
  add(request: readonly Message[], into: InputParts): void {
    const add = (part: string, tokens: number): void => {
      into[part] = (into[part] ?? 0) + tokens;
    };
    for (const m of request) {
      if (m.role === 'tool') {
        const tool = (typeof m.name === 'string' && m.name) || this.toolName.get(m.tool_call_id ?? '') || '';
        add(`output:${toolKind(tool) ?? 'other'}`, contentTokens(m.content));
        continue;
      }
      add(m.role === 'assistant' ? 'assistant text' : m.role, contentTokens(m.content));
      for (const call of m.tool_calls ?? [])
        add(this.callPart.get(call?.id ?? '') ?? 'arguments:other', this.tokensOf(call));
    }
  }

  private tokensOf(call: ToolCall): number {
    let n = this.callTokens.get(call);
    if (n === undefined) this.callTokens.set(call, (n = countTokens(JSON.stringify(call))));
    return n;
  }
}

/** The request as sent: the raw messages with a view's edits applied (a field an edit leaves out is sent raw). */
export function sentRequest(
  messages: readonly Message[],
  edits: readonly { index: number; content?: string; tool_calls?: ToolCall[] }[],
): Message[] {
  const out = [...messages];
  for (const e of edits) {
    const m = out[e.index];
    if (!m) continue;
    out[e.index] = {
      ...m,
      ...(e.content !== undefined ? { content: e.content } : {}),
      ...(e.tool_calls !== undefined ? { tool_calls: e.tool_calls } : {}),
    };
  }
  return out;
}

/** The table: one row per part, its raw share → the share HMC still sends, both of all raw input. */
export function formatParts(parts: PartTotals): string {
  const total = Object.values(parts.raw).reduce((a, b) => a + b, 0);
  const pct = (n: number): string => `${((n / Math.max(1, total)) * 100).toFixed(1)} %`;
  const keys = Object.keys(parts.raw).sort((a, b) => (parts.raw[b] ?? 0) - (parts.raw[a] ?? 0));
  const label = (k: string): string =>
    k.startsWith('output:') ? `${k.slice(7)} outputs` : k.startsWith('arguments:') ? `arguments: ${k.slice(10)}` : k;
  const rows = keys.map(
    (k) => `  ${label(k).padEnd(32)} ${pct(parts.raw[k] ?? 0).padStart(7)} → ${pct(parts.sent[k] ?? 0).padStart(7)}`,
  );
  const sentTotal = Object.values(parts.sent).reduce((a, b) => a + b, 0);
  return [
    `  ${'part'.padEnd(32)} ${'raw'.padStart(7)} → ${'sent'.padStart(7)}`,
    ...rows,
    `  ${'all'.padEnd(32)} ${pct(total).padStart(7)} → ${pct(sentTotal).padStart(7)}`,
  ].join('\n');
}
