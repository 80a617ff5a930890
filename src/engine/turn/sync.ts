/**
 * Brings the held conversation in line with the host's: keeps the prefix that is unchanged, starts
 * over where the host rewrote its history (its own compressor, an edit), and takes in what is new:
 * each new tool result compressed once (or left to catch up, past the call's budget), its tool
 * call remembered, its turn and the model calls it shows counted in the ledger.
 *
 * Invariant: the raw contents are the host's, held by reference and never changed; every message
 * from the first changed one on gets its edit again; a reply is counted as a model call once.
 */
import type { Message } from '../../core/message.js';
import { messageExtra } from '../../core/tokens.js';
import { argsFingerprint } from '../../strategies/list-wide/dedup.js';
import * as catchUp from './catch-up.js';
import type { Compression } from '../session/held.js';
import { parseArgs } from '../../hosts/outputs/envelope.js';
import { OutputMemo } from '../session/memo.js';
import { hash, replySignature, safeJson } from '../session/hashing.js';
import type { MessageState, ToolRecord } from '../session/held.js';
import type { Session } from '../session/session.js';
import { viewCounts } from '../ledger/message-tokens.js';

/** Messages per accounting job (a resumed long history is accounted in many small jobs). */
const ACCOUNT_CHUNK = 256;

export interface SyncDeps {
  /** Compresses one new tool result (keeping a recall copy when it changed). */
  compress: (s: Session, key: string, tool: string, raw: string, args: unknown, hostError: boolean) => Compression;
  /** The host cut its history at `from`: layer 1 drops what it summarised there; the indices whose view changed. */
  truncated: (s: Session, from: number) => readonly number[];
  /** Bytes of tool output this call compresses before the rest waits (catch-up.ts). */
  budgetBytes: number;
  /** How long past catch-up.ts's UNTIMED_BYTES this call keeps compressing. */
  budgetMs: number;
}

/** What the host told us about a tool call, with its arguments kept only as a hashed fingerprint. */
export function toolRecord(tool: string, args: unknown, turn: number, isError: boolean): ToolRecord {
  return { tool, fingerprint: hash(argsFingerprint(tool, parseArgs(args))), turn, isError };
}

/**
 * Syncs `s` with the host's conversation. `messages` starts at index `base` (the host vouches the
 * first `base` held messages are unchanged). `partial`: they are a stretch of a streamed history
 * with more to follow, so held messages past its end are not cut (the next stretch or the real
 * call says whether they still stand). True when anything held changed or was taken in.
 */
export function syncConversation(
  s: Session,
  messages: readonly Message[],
  deps: SyncDeps,
  base = 0,
  partial = false,
): boolean {
  const held = s.held.messages;
  let first = base;
  while (
    first < held.length &&
    first - base < messages.length &&
    sameMessage(held[first] as MessageState, messages[first - base] as Message)
  )
    first++;
  const end = base + messages.length;
  // A stretch the engine holds already, and more after it: nothing changed. Cutting there dropped
  // the rest and compressed it all again at the next stretch (a resent 1,000-message history:
  // ~12 -> ~34 ms once stretches became 1 MiB; issue 19).
  if (partial && first === end) return false;
  if (first < held.length) {
    // The host rewrote its history from `first` on (its own compressor, an edit): start over there.
    s.held.cutFrom(first);
    s.rewriteIndex.invalidate();
    s.inputIndex.invalidate();
    s.view.cutFrom(first);
    const from = first;
    catchUp.truncate(s, from);
    for (const i of deps.truncated(s, from)) s.viewChanged(i);
    s.ledger.defer(() => s.ledger.truncate(from));
  }
  for (let i = first - base; i < messages.length; i++) s.held.indexCalls(messages[i] as Message);
  let users = s.held.userCount;
  const budget = new catchUp.CompressBudget(deps.budgetBytes, deps.budgetMs);
  for (let i = first; i < base + messages.length; i++) {
    const m = messages[i - base] as Message;
    if (m.role === 'user') users++;
    s.held.arriving(timestampOf(m.timestamp), m.role === 'assistant');
    const key =
      m.role === 'tool' ? (typeof m.tool_call_id === 'string' && m.tool_call_id ? m.tool_call_id : `#${i}`) : '';
    const call = key ? s.held.calls.get(key) : undefined;
    const tool = m.role === 'tool' ? toolName(m, call?.name) : '';
    if (m.role === 'tool' && !s.held.records.has(key))
      s.held.recordTool(key, toolRecord(tool, call?.args ?? {}, Math.max(users, 1), m.is_error === true));
    const state: MessageState = {
      role: m.role,
      raw: m.content,
      key,
      tool,
      args: call?.args ?? {},
      turn: Math.max(users, 1),
      single: null,
      prune: null,
      extra: messageExtra(m),
      inputs: null,
      summary: null,
      source: { ...m },
      memo: new OutputMemo(m.content),
    };
    if (m.role === 'tool' && typeof m.content === 'string') {
      const cached = s.held.postResults.get(key);
      const record = s.held.records.get(key);
      if (cached && cached.raw === m.content) state.single = cached;
      else if (budget.allows(m.content.length))
        state.single = deps.compress(
          s,
          key,
          tool,
          m.content,
          call?.args ?? {},
          record?.isError === true || m.is_error === true,
        );
      // Over this call's budget: sent raw now, compressed between hooks (a big first call).
      else catchUp.wait(s, i, state, call?.args ?? {});
      if (record && state.single?.isError) record.isError = true;
    }
    s.held.take(state);
  }
  s.held.usersHeld(users);
  accountNew(s, messages, base);
  for (let i = first; i < held.length; i++) s.refreshEdit(i);
  return true;
}

/** Queues the ledger's jobs for the messages it was not told about yet, in small chunks. */
function accountNew(s: Session, messages: readonly Message[], base: number): void {
  const held = s.held.messages;
  const countReplies = !s.counts.callsAtSend;
  const start = s.held.ledgerLength;
  const end = held.length;
  const views = held.slice(start, end).map((m, k) => ({
    index: start + k,
    m,
    steps: s.stepsOf(m),
    signature: m.role === 'assistant' ? replySignature(messages[start + k - base] ?? heldMessage(m), start + k) : '',
  }));
  // Small jobs, so a long history is accounted in slices between hooks.
  for (let from = 0; from < views.length; from += ACCOUNT_CHUNK) {
    const chunk = views.slice(from, from + ACCOUNT_CHUNK);
    s.ledger.defer(
      () => {
        for (const { index, m, steps, signature } of chunk) {
          if (m.role === 'assistant' && s.held.account(signature)) {
            if (countReplies) s.ledger.accountCall(index, m.turn);
          }
          s.ledger.addMessage(index, steps, m.tool, m.extra);
        }
      },
      chunk.flatMap(({ m, steps }) => viewCounts(steps, m.extra)),
    );
  }
  s.held.ledgerToldUpTo(end);
}

/** A message's own timestamp in ms (ISO text, or seconds / ms since the epoch), or 0. */
function timestampOf(value: unknown): number {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value > 1e12 ? value : value * 1000;
  if (typeof value === 'string' && value.length >= 10) {
    const t = Date.parse(value);
    return Number.isFinite(t) ? t : 0;
  }
  return 0;
}

function sameMessage(held: MessageState, m: Message): boolean {
  if (held.role !== m.role) return false;
  if (held.raw === m.content) return true;
  if (typeof held.raw === 'string' || typeof m.content === 'string') return false;
  return safeJson(held.raw) === safeJson(m.content);
}

/** A held message rebuilt for the incremental path (only role, content and tool ids matter). */
function heldMessage(m: MessageState): Message {
  const out: Message = { role: m.role, content: m.raw };
  if (m.role === 'tool' && !m.key.startsWith('#')) out.tool_call_id = m.key;
  if (m.tool) out.name = m.tool;
  return out;
}

function toolName(m: Message, fromCall: string | undefined): string {
  if (typeof m.name === 'string' && m.name) return m.name;
  if (typeof m.tool_name === 'string' && m.tool_name) return m.tool_name;
  return fromCall ?? '';
}
