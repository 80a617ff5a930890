/**
 * Token counts with a real BPE tokenizer (o200k_base, pure JS), memoised per string: a conversation
 * is re-counted on every turn but each message text only once (DESIGN §7).
 *
 * Invariant: counting never throws (a tokenizer failure falls back to the chars/4 estimate, which
 * is labelled as such where shown) and is kept off the hook path by the ledger's deferred jobs.
 */
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';

const CACHE_LIMIT = 20_000;
const cache = new Map<string, number>();

/** Exact o200k token count of `text`. */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  let n: number;
  try {
    n = countO200k(text);
  } catch {
    n = estimateTokens(text);
  }
  // A plain bounded map: when full, start over; hot strings are re-counted at most once more.
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(text, n);
  return n;
}

/** The cheap estimate (characters / 4), only where speed matters more than exactness. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Tokens of a message's content as the model is sent it (non-string content serialised). */
export function contentTokens(content: unknown): number {
  if (typeof content === 'string') return countTokens(content);
  if (content === null || content === undefined) return 0;
  let serialised: string;
  try {
    serialised = JSON.stringify(content) ?? '';
  } catch {
    serialised = String(content);
  }
  return countTokens(serialised);
}
