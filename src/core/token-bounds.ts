/**
 * o200k counting in bounded time and memory, whatever the text (issue 19, finding 2).
 *
 * The tokenizer's byte-pair merge is quadratic in the length of one pre-token (a run of letters,
 * of punctuation, of spaces: 128 KB of one letter took 11 s, a 50 MB line never answered). Two
 * bounds make counting linear:
 * - a pre-token longer than MAX_PIECE characters is counted in cuts of MAX_PIECE characters;
 * - a text longer than STRETCH characters is counted stretch by stretch, so the count can be
 *   done in slices between hooks (`TokenCounter.advance`) and never holds more than one stretch.
 *
 * What this costs in honesty (docs/engine.md, "Accounting"): the count differs from the whole
 * text's o200k count only at a cut. A cut inside a pre-token of more than MAX_PIECE characters
 * (measured: +0 to +0.4 tokens per cut, so at most +0.3 % on random letters and 0 on a run of one
 * letter), and a stretch boundary where no exact cut point is found within STRETCH characters (a
 * base64 blob, a one-line run: at most one token per STRETCH characters). Ordinary text, code and
 * logs are counted exactly: their pre-tokens are short, and a stretch ends where a word starts,
 * which is a pre-token boundary.
 *
 * Invariant: the result depends on the text only (never on how the work was sliced), and every
 * call does at most O(length) work.
 */
import { clearMergeCache, countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';

/** The longest pre-token counted whole (characters); a longer one is counted in cuts this long. */
export const MAX_PIECE = 256;
/** Texts are counted in stretches of about this many characters. */
export const STRETCH = 4096;
/** How far past a stretch's nominal end an exact cut point is looked for. */
const CUT_SEARCH = 1024;

/**
 * Special tokens' text (`<|endoftext|>`) in a tool output is ordinary text to the model's API; the
 * library's default throws on it, which made such an output fall back to the estimate.
 */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * The library keeps the merges of the pre-tokens it has seen in an LRU of 100,000 entries. Once that
 * map is full, V8 rehashes it on nearly every hit (a hit moves the entry to the end): counting the
 * JSON of `yes` output after a base64 blob took 42 ms/KB instead of 0.07. Emptying it every
 * CLEAR_EVERY characters keeps it far from full (an entry is at least one character), and costs
 * ordinary text nothing measurable (words repeat within that span).
 */
const CLEAR_EVERY = 65_536;
let sinceClear = 0;

/** The exact count of a text known to hold no pre-token over MAX_PIECE + 2 characters. */
function exact(text: string): number {
  if (text.length === 0) return 0;
  sinceClear += text.length;
  if (sinceClear > CLEAR_EVERY) {
    clearMergeCache();
    sinceClear = text.length;
  }
  return countO200k(text, PLAIN_TEXT);
}

/**
 * Whether some pre-token of `text` may be longer than MAX_PIECE + 2 characters. Conservative (a
 * false yes only costs a second pass): inside a pre-token an ASCII digit appears only in a run of at
 * most three digits, and a space followed by an ASCII letter only at its start, so a text in which
 * every MAX_PIECE characters hold one of the two has no long pre-token.
 */
export function mayHoldLongPiece(text: string): boolean {
  if (text.length <= MAX_PIECE) return false;
  let lastBreak = -1;
  let prev = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 48 && c <= 57) || (prev === 32 && ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)))) lastBreak = i;
    else if (i - lastBreak > MAX_PIECE) return true;
    prev = c;
  }
  return false;
}

/** One stretch's count: exact where pre-tokens are short, long pre-tokens in cuts of MAX_PIECE. */
export function countStretch(text: string): number {
  if (!mayHoldLongPiece(text)) return exact(text);
  let n = 0;
  let from = 0;
  for (const match of text.matchAll(O200K_TOKEN_SPLIT_REGEX)) {
    const piece = match[0];
    if (piece.length <= MAX_PIECE) continue;
    const at = match.index;
    n += exact(text.slice(from, at));
    for (let i = 0; i < piece.length; ) {
      const end = safeEnd(piece, Math.min(piece.length, i + MAX_PIECE));
      n += exact(piece.slice(i, end));
      i = end;
    }
    from = at + piece.length;
  }
  return n + exact(text.slice(from));
}

/** `end`, moved past a low surrogate so a cut never splits a character. */
function safeEnd(text: string, end: number): number {
  if (end >= text.length) return text.length;
  const c = text.charCodeAt(end - 1);
  return c >= 0xd800 && c <= 0xdbff ? end + 1 : end;
}

/**
 * Where the stretch starting at `from` ends: the first exact cut point at or after
 * `from + STRETCH`, else a forced cut at `from + STRETCH`. Two cut points are exact, whatever
 * comes before them: a space followed by an ASCII letter (a pre-token starts at that space), and
 * the start of a line that begins with a character other than whitespace or `/` (no pre-token
 * runs on past a line break, except into whitespace or a `/`: o200k's punctuation pattern ends
 * in `[\r\n/]*`). The second finds a cut in a table of figures, which has no word for a
 * thousand characters (docs/configuration.md's price table: one token too many before).
 */
export function stretchEnd(text: string, from: number): number {
  const nominal = from + STRETCH;
  if (nominal >= text.length) return text.length;
  const limit = Math.min(text.length - 1, nominal + CUT_SEARCH);
  for (let i = nominal; i < limit; i++) {
    const c = text.charCodeAt(i);
    if (c === 32) {
      const after = text.charCodeAt(i + 1);
      if ((after >= 65 && after <= 90) || (after >= 97 && after <= 122)) return i;
    } else if (text.charCodeAt(i - 1) === 10 && c !== 47 && !WHITESPACE.test(text[i] as string)) {
      return i;
    }
  }
  return safeEnd(text, nominal);
}

const WHITESPACE = /\s/;

/** A count in progress: `advance` until done, then `total`. */
export class TokenCounter {
  private at = 0;
  private n = 0;

  constructor(readonly text: string) {}

  get done(): boolean {
    return this.at >= this.text.length;
  }

  get total(): number {
    return this.n;
  }

  /** Counts stretches until done or `deadline` (a performance.now() time) passes; true when done. */
  advance(deadline = Number.POSITIVE_INFINITY): boolean {
    while (!this.done) {
      const end = stretchEnd(this.text, this.at);
      this.n += countStretch(this.text.slice(this.at, end));
      this.at = end;
      if (performance.now() >= deadline) break;
    }
    return this.done;
  }
}

/** The bounded count of `text`, all at once. */
export function boundedCount(text: string): number {
  const counter = new TokenCounter(text);
  counter.advance();
  return counter.total;
}
