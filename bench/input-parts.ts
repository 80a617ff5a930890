/**
 * Where a corpus' input is (issue 15's table): each message's o200k tokens weighted by how many
 * model calls it is sent in (the assistant replies after it), split into tool outputs by the
 * tool's kind (read, shell, search, agent…, hosts/tools.ts), the arguments of tool calls (file
 * writes, edits and patches, other: hosts/tool-inputs.ts), user messages, assistant text and the
 * system prompt. Raw sessions, before any compression: what there is to save.
 */
import type { Message } from '../src/core/message.js';
import { contentTokens, countTokens } from '../src/core/tokens.js';
import { toolKind } from '../src/hosts/index.js';
import { parseArgs } from '../src/hosts/outputs/envelope.js';
import { fileInputOf } from '../src/hosts/tool-inputs.js';

/** Weighted tokens per part (`output:read`, `arguments:write`, `user`…). */
export type InputParts = Record<string, number>;

export function inputParts(messages: readonly Message[], into: InputParts = {}): InputParts {
  const add = (part: string, tokens: number): void => {
    into[part] = (into[part] ?? 0) + tokens;
  };
  const calls = new Map<string, string>();
  let after = messages.filter((m) => m.role === 'assistant').length;
  for (const m of messages) {
    if (m.role === 'assistant') after--;
    const sentIn = after;
    if (sentIn === 0) continue;
    if (m.role === 'tool') {
      const tool = (typeof m.name === 'string' && m.name) || calls.get(m.tool_call_id ?? '') || '';
      add(`output:${toolKind(tool) ?? 'other'}`, sentIn * contentTokens(m.content));
      continue;
    }
    add(m.role === 'assistant' ? 'assistant text' : m.role, sentIn * contentTokens(m.content));
    for (const call of m.tool_calls ?? []) {
      const name = call.function?.name ?? '';
      if (typeof call.id === 'string') calls.set(call.id, name);
      const input = fileInputOf(name, parseArgs(call.function?.arguments));
      const part = input === null ? 'other' : input.kind === 'edit' ? 'edits and patches' : 'file writes';
      add(`arguments:${part}`, sentIn * countTokens(JSON.stringify(call)));
    }
  }
  return into;
}

/** The table: one row per part, its share of the input, largest first within tool outputs and arguments. */
export function formatParts(parts: InputParts): string {
  const total = Object.values(parts).reduce((a, b) => a + b, 0);
  const pct = (n: number): string => `${((n / Math.max(1, total)) * 100).toFixed(1)} %`;
  const group = (prefix: string): [string, number][] =>
    Object.entries(parts).filter(([k]) => k.startsWith(prefix)).map(([k, v]): [string, number] => [k.slice(prefix.length), v]).sort((a, b) => b[1] - a[1]);
  const line = (name: string, entries: [string, number][]): string => {
    const sum = entries.reduce((n, [, v]) => n + v, 0);
    return `  ${name.padEnd(22)} ${pct(sum).padStart(7)}  ${entries.map(([k, v]) => `${k} ${pct(v)}`).join(', ')}`;
  };
  const rest = Object.entries(parts).filter(([k]) => !k.includes(':')).sort((a, b) => b[1] - a[1]);
  return [line('tool outputs', group('output:')), line('arguments of calls', group('arguments:')), ...rest.map(([k, v]) => `  ${k.padEnd(22)} ${pct(v).padStart(7)}`)].join('\n');
}
