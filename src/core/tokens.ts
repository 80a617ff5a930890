/**
 * Token counts with a real BPE tokenizer (o200k_base, pure JS), memoised per string: a conversation
 * is re-counted on every turn but each message text only once (DESIGN §7).
 *
 * Invariant: counting never throws (a tokenizer failure falls back to the chars/4 estimate, which
 * is labelled as such where shown), takes time linear in the text and memory bounded whatever the
 * text (token-bounds.ts says what that costs in exactness), and is kept off the hook path by the
 * ledger's deferred jobs, which count a long text ahead in slices (`countAhead`).
 */
import { TokenCounter } from './token-bounds.js';

const CACHE_LIMIT = 20_000;
/** The cache holds at most this many characters of keys (a few huge outputs must not pin memory). */
const CACHE_CHARS = 32 * 1024 * 1024;
const cache = new Map<string, number>();
let cachedChars = 0;
/** Counts begun by `countAhead` and not finished yet (a handful: the ledger works in order). */
const begun = new Map<string, TokenCounter>();
const BEGUN_LIMIT = 16;

/** The o200k token count of `text` (exact but for token-bounds.ts's cuts). */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  const counter = begun.get(text) ?? new TokenCounter(text);
  begun.delete(text);
  let n: number;
  try {
    counter.advance();
    n = counter.total;
  } catch {
    n = estimateTokens(text);
  }
  remember(text, n);
  return n;
}

/**
 * Counts `text` until `deadline` (a performance.now() time) and keeps the progress, so a long
 * text is counted in slices between hooks; true when `countTokens(text)` now answers at once.
 */
export function countAhead(text: string, deadline: number): boolean {
  if (text.length === 0 || cache.has(text)) return true;
  let counter = begun.get(text);
  if (!counter) {
    counter = new TokenCounter(text);
    if (begun.size >= BEGUN_LIMIT) begun.delete(begun.keys().next().value as string);
    begun.set(text, counter);
  }
  try {
    if (!counter.advance(deadline)) return false;
    remember(text, counter.total);
  } catch {
    remember(text, estimateTokens(text));
  }
  begun.delete(text);
  return true;
}

function remember(text: string, n: number): void {
  // A plain bounded map: when full, start over; hot strings are re-counted at most once more.
  // (A text over the whole budget is still kept, alone: it is counted once, like any other.)
  if (cache.size >= CACHE_LIMIT || cachedChars + text.length > CACHE_CHARS) {
    cache.clear();
    cachedChars = 0;
  }
  cache.set(text, n);
  cachedChars += text.length;
}

/** The cheap estimate (characters / 4), only where speed matters more than exactness. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Tokens of a message's content as the model is sent it (non-string content serialised). */
export function contentTokens(content: unknown): number {
  if (typeof content === 'string') return countTokens(content);
  if (content === null || content === undefined) return 0;
  return countTokens(serialise(content));
}

/** `countAhead` for a message's content (non-string content serialised, as `contentTokens` does). */
export function contentAhead(content: unknown, deadline: number): boolean {
  if (typeof content === 'string') return countAhead(content, deadline);
  if (content === null || content === undefined) return true;
  return countAhead(serialise(content), deadline);
}

/** What a message costs besides its content, as text: its tool calls, call id and tool name. */
export function messageExtra(m: { tool_calls?: unknown; tool_call_id?: unknown; name?: unknown }): string {
  const parts: string[] = [];
  if (Array.isArray(m.tool_calls) && m.tool_calls.length > 0) parts.push(serialise(m.tool_calls));
  if (typeof m.tool_call_id === 'string') parts.push(m.tool_call_id);
  if (typeof m.name === 'string') parts.push(m.name);
  return parts.join(' ');
}

/** Tokens a message costs besides its content: role and separators (4), tool calls and ids. */
export function overheadTokens(extra: string): number {
  return 4 + (extra ? countTokens(extra) : 0);
}

/**
 * What one message of a request costs (DESIGN §7, docs/engine.md "Accounting"): 4 for its role and
 * separators, its content (text, or the JSON of non-text content), and the JSON of its tool calls,
 * its tool_call_id and its name. Other fields a host sends (reasoning echoes, cache markers) are
 * not counted. The ledger counts every message this way, and so does a test re-counting the wire.
 */
export function messageTokens(m: {
  content?: unknown;
  tool_calls?: unknown;
  tool_call_id?: unknown;
  name?: unknown;
}): number {
  return overheadTokens(messageExtra(m)) + contentTokens(m.content);
}

/** What the tool schemas sent with a call cost: the tokens of their JSON (0 without tools). */
export function toolsTokens(tools: unknown): number {
  return Array.isArray(tools) && tools.length > 0 ? countTokens(serialise(tools)) : 0;
}

/** The input tokens of one chat-completions request: every message (the system prompt too) plus the tool schemas. */
export function requestTokens(request: { messages?: unknown; tools?: unknown }): number {
  const messages = Array.isArray(request.messages) ? request.messages : [];
  let n = toolsTokens(request.tools);
  for (const m of messages) if (typeof m === 'object' && m !== null) n += messageTokens(m as Record<string, unknown>);
  return n;
}

function serialise(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return String(value);
  }
}

/** Above this many characters, shorter text is fewer tokens in practice; below, a close call is counted. */
const CHECKED_BELOW = 1000;

/**
 * `next` is a real saving over `current`: fewer characters and, for short texts (where a marker's
 * ids can cost more tokens than the words they replace), fewer tokens too.
 */
export function isShorter(next: string, current: string): boolean {
  if (next.length >= current.length) return false;
  // Half the characters, or 96 fewer, is fewer tokens in any text a tool prints (a recall id costs
  // under a dozen); only a close call between short texts is counted.
  if (current.length > CHECKED_BELOW || next.length * 2 <= current.length || current.length - next.length >= 96)
    return true;
  return countTokens(next) < countTokens(current);
}
