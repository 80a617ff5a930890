/**
 * Locates the top-level fields of a JSON object text without re-serialising it, so the engine can
 * swap one string field and leave every other byte of a tool's envelope as the tool wrote it
 * (Python's `json.dumps` spacing and `\uXXXX` escapes included).
 *
 * Invariant: answers null for anything that is not one well-formed JSON object; never throws.
 */

export interface FieldSpan {
  /** Offset of the value's first character in the text. */
  start: number;
  /** Offset just past the value's last character. */
  end: number;
}

/** The top-level fields of `text` (a JSON object) with the spans of their raw values. */
export function topLevelFields(text: string): Map<string, FieldSpan> | null {
  let i = skipSpace(text, 0);
  if (text[i] !== '{') return null;
  const fields = new Map<string, FieldSpan>();
  i = skipSpace(text, i + 1);
  if (text[i] === '}') return skipSpace(text, i + 1) === text.length ? fields : null;
  for (;;) {
    if (text[i] !== '"') return null;
    const keyEnd = stringEnd(text, i);
    if (keyEnd < 0) return null;
    let key: string;
    try {
      key = JSON.parse(text.slice(i, keyEnd)) as string;
    } catch {
      return null;
    }
    i = skipSpace(text, keyEnd);
    if (text[i] !== ':') return null;
    const start = skipSpace(text, i + 1);
    const end = valueEnd(text, start);
    if (end < 0) return null;
    fields.set(key, { start, end });
    i = skipSpace(text, end);
    if (text[i] === ',') {
      i = skipSpace(text, i + 1);
      continue;
    }
    if (text[i] === '}') return skipSpace(text, i + 1) === text.length ? fields : null;
    return null;
  }
}

/** `text` with the value at `span` replaced by `value` serialised as JSON. */
export function replaceField(text: string, span: FieldSpan, value: unknown): string {
  return text.slice(0, span.start) + JSON.stringify(value) + text.slice(span.end);
}

function skipSpace(text: string, i: number): number {
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}

/** End (exclusive) of the string literal starting at `i`, or -1. */
function stringEnd(text: string, i: number): number {
  // Jump from quote to quote (native search); a quote preceded by an odd run of backslashes is escaped.
  let j = text.indexOf('"', i + 1);
  while (j >= 0) {
    let backslashes = 0;
    for (let k = j - 1; k > i && text.charCodeAt(k) === 0x5c; k--) backslashes++;
    if (backslashes % 2 === 0) return j + 1;
    j = text.indexOf('"', j + 1);
  }
  return -1;
}

/** End (exclusive) of the JSON value starting at `i`, or -1. Nested values are matched by depth. */
function valueEnd(text: string, i: number): number {
  const first = text[i];
  if (first === '"') return stringEnd(text, i);
  if (first === '{' || first === '[') {
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      const c = text[j];
      if (c === '"') {
        j = stringEnd(text, j) - 1;
        if (j < 0) return -1;
      } else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return -1;
  }
  let j = i;
  while (j < text.length && !',}] \n\r\t'.includes(text[j] as string)) j++;
  return j > i ? j : -1;
}
