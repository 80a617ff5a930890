/**
 * The conversation as held: its messages' state (held.ts), what the host said of each tool call
 * (records; the calls seen in assistant messages), compressions made at post_tool_call waiting for
 * their result to show up, and the counts over the list (user messages, replies, the newest
 * timestamp, what the ledger and the previous call were told).
 *
 * Invariant: read-only to the outside; turn/sync.ts takes messages in and cuts them, the tool
 * hooks record calls, turn/call.ts says what a call sent. A message's own state (its compression,
 * placeholder, summary) is written by the pass that makes it (held.ts: MessageState).
 */
import type { Message } from '../../core/message.js';
import type { Compression, MessageState, ToolRecord } from './held.js';

export interface SavedConversation {
  records: Record<string, ToolRecord>;
  accounted: string[];
  sent_length: number;
}

export class HeldConversation {
  private readonly _messages: MessageState[] = [];
  private readonly _records = new Map<string, ToolRecord>();
  private readonly _postResults = new Map<string, Compression>();
  private readonly _calls = new Map<string, { name: string; args: unknown }>();
  private readonly _accounted = new Set<string>();
  private _replies = 0;
  private _userCount = 0;
  private _latestStamp = 0;
  private _ledgerLength = 0;
  private _previousCallLength = 0;

  constructor(saved?: SavedConversation) {
    if (!saved) return;
    for (const [k, v] of Object.entries(saved.records)) this._records.set(k, v);
    for (const k of saved.accounted) this._accounted.add(k);
    this._previousCallLength = saved.sent_length;
  }

  get messages(): readonly MessageState[] {
    return this._messages;
  }
  /** What the host told us of each tool call, by id (its values' flags are the tool hooks'). */
  get records(): ReadonlyMap<string, ToolRecord> {
    return this._records;
  }
  /** Compressions made at post_tool_call, reused when the result shows up in the conversation. */
  get postResults(): ReadonlyMap<string, Compression> {
    return this._postResults;
  }
  /** Tool calls seen in assistant messages, by id: results name their call by id. */
  get calls(): ReadonlyMap<string, { name: string; args: unknown }> {
    return this._calls;
  }
  /** Assistant replies already counted as model calls (signatures). */
  get accounted(): ReadonlySet<string> {
    return this._accounted;
  }
  /** Assistant replies among `messages`: the model calls made so far. */
  get replies(): number {
    return this._replies;
  }
  /** User messages among `messages`. */
  get userCount(): number {
    return this._userCount;
  }
  /** The newest timestamp the host's messages carried (ms), or 0 when they carry none. */
  get latestStamp(): number {
    return this._latestStamp;
  }
  /** Messages the ledger has been told about. */
  get ledgerLength(): number {
    return this._ledgerLength;
  }
  /** Message count at the previous pre_llm_call (what the model had already been sent). */
  get previousCallLength(): number {
    return this._previousCallLength;
  }

  /** The host rewrote its history from `first` on: the messages from there are dropped, the counts follow. */
  cutFrom(first: number): void {
    this._messages.length = first;
    this._ledgerLength = Math.min(this._ledgerLength, first);
    this._previousCallLength = Math.min(this._previousCallLength, first);
    this._userCount = countRole(this._messages, 'user');
    this._replies = countRole(this._messages, 'assistant');
  }

  /** Host message `m` names its tool calls: each one's name and arguments are kept by id. */
  indexCalls(m: Message): void {
    if (m.role !== 'assistant' || !Array.isArray(m.tool_calls)) return;
    for (const call of m.tool_calls) {
      if (typeof call?.id !== 'string') continue;
      this._calls.set(call.id, {
        name: typeof call.function?.name === 'string' ? call.function.name : '',
        args: call.function?.arguments ?? {},
      });
    }
  }

  /** A message stamped `stamp` (ms, 0 for none) is taken in; `reply`: an assistant's. */
  arriving(stamp: number, reply: boolean): void {
    if (reply) this._replies++;
    if (stamp > this._latestStamp) this._latestStamp = stamp;
  }

  /** Message state `m` is held (the next index). */
  take(m: MessageState): void {
    this._messages.push(m);
  }

  /** `users` user messages are held. */
  usersHeld(users: number): void {
    this._userCount = users;
  }

  /** The host told us of tool call `id`. */
  recordTool(id: string, record: ToolRecord): void {
    this._records.set(id, record);
  }

  /** Compression `comp` of call `id`'s result made at post_tool_call, kept (the oldest of more than `max` dropped). */
  keepPostResult(id: string, comp: Compression, max: number): void {
    this._postResults.set(id, comp);
    if (this._postResults.size > max) this._postResults.delete(this._postResults.keys().next().value as string);
  }

  /** The reply signed `signature` is counted as a model call; false when it was already. */
  account(signature: string): boolean {
    if (this._accounted.has(signature)) return false;
    this._accounted.add(signature);
    return true;
  }

  /** The ledger was told of the first `end` messages. */
  ledgerToldUpTo(end: number): void {
    this._ledgerLength = end;
  }

  /** A model call sent the first `length` messages. */
  sentUpTo(length: number): void {
    this._previousCallLength = length;
  }
}

function countRole(messages: readonly { role: string }[], role: string): number {
  let n = 0;
  for (const m of messages) if (m.role === role) n++;
  return n;
}
