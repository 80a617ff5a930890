/**
 * Which parts of a conversation a compaction summarises (issue 16: HMC as the host's context
 * engine), the cut points chosen the way layer 1's are (summary-range.ts) but for a host that
 * needs the context well under its threshold now: the head (everything up to the first user
 * message) and the latest user message always stay; the recent tail stays as far as `tailTokens`
 * allows (whole turns, and in a long current tool loop its last calls); a tool call is never cut
 * from its results. At most two ranges: the earlier turns, and the older calls of the current
 * loop (the latest user message sits between them).
 *
 * Each range is replaced by one summary message whose role keeps the roles valid: never two user
 * or two assistant messages in a row, where the neighbours allow it (a range where neither role
 * fits is left out). A range that starts where a summary the session already holds starts reuses
 * it: as it is when it covers the whole range, else extended over the rest (the summariser reads
 * only the new messages).
 *
 * Pure: a function of the message shapes it is given.
 */

/** What the chooser needs to know of each message. */
export interface CompactionMessage {
  role: string;
  tokens: number;
}

/** A summary the session already holds over messages [from, to] (inclusive). */
export interface HeldSummary {
  id: number;
  from: number;
  to: number;
}

export interface CompactionOptions {
  /** The most tokens the kept recent tail may take (at least one turn, or one call, always stays). */
  tailTokens: number;
  /** A range under this many tokens is not worth a summary. */
  minTokens: number;
}

export interface CompactionRange {
  from: number;
  /** Inclusive. */
  to: number;
  /** Tokens of the range now. */
  tokens: number;
  /** The role of the summary message that replaces it. */
  role: 'user' | 'assistant';
  /** A held summary covering exactly this range: used as it is, no model call. */
  reuse?: number;
  /** A held summary covering the range's start: updated with the messages after it. */
  extends?: number;
}

export function chooseCompaction(
  messages: readonly CompactionMessage[],
  held: readonly HeldSummary[],
  opts: CompactionOptions,
): CompactionRange[] {
  const users: number[] = [];
  messages.forEach((m, i) => {
    if (m.role === 'user') users.push(i);
  });
  if (users.length === 0) return [];
  const first = users[0] as number;
  const last = users[users.length - 1] as number;
  const suffix = suffixTokens(messages);
  // Earlier turns kept whole while they fit the tail (the latest turn always stays).
  let keptTurns = last;
  for (let k = users.length - 2; k >= 1; k--) {
    const start = users[k] as number;
    if ((suffix[start] as number) > opts.tailTokens) break;
    keptTurns = start;
  }
  const spans: [number, number][] = [];
  let from = first + 1;
  while (from < keptTurns && messages[from]?.role !== 'assistant') from++;
  if (from < keptTurns) spans.push([from, keptTurns]);
  // The current loop: its last calls stay while they fit (at least one); its first call stays too,
  // so the summary follows that call's results instead of the user message (two user messages).
  const calls: number[] = [];
  for (let i = last + 1; i < messages.length; i++) if (messages[i]?.role === 'assistant') calls.push(i);
  if (calls.length >= 3) {
    let tail = calls.length - 1;
    while (tail > 1 && (suffix[calls[tail - 1] as number] as number) <= opts.tailTokens) tail--;
    const start = calls[1] as number;
    const end = calls[tail] as number;
    if (start < end) spans.push([start, end]);
  }
  const out: CompactionRange[] = [];
  for (const [start, end] of spans) {
    const tokens = (suffix[start] as number) - (suffix[end] as number);
    if (tokens < opts.minTokens) continue;
    const role = summaryRole(messages[start - 1]?.role, messages[end]?.role);
    if (!role) continue;
    const range: CompactionRange = { from: start, to: end - 1, tokens, role };
    const at = held.filter((h) => h.from === start && h.to <= end - 1).sort((a, b) => b.to - a.to)[0];
    if (at && at.to === end - 1) range.reuse = at.id;
    else if (at) range.extends = at.id;
    out.push(range);
  }
  return out;
}

/**
 * The role of a summary between `before` and `after` that repeats neither (two user or two
 * assistant messages in a row; a tool result is neither), or null when no role fits.
 */
function summaryRole(before: string | undefined, after: string | undefined): 'user' | 'assistant' | null {
  for (const role of ['assistant', 'user'] as const) if (role !== before && role !== after) return role;
  return null;
}

/** suffix[i] = tokens of messages i..end (suffix[length] = 0). */
function suffixTokens(messages: readonly CompactionMessage[]): number[] {
  const out = new Array<number>(messages.length + 1).fill(0);
  for (let i = messages.length - 1; i >= 0; i--)
    out[i] = (out[i + 1] as number) + (messages[i] as CompactionMessage).tokens;
  return out;
}
