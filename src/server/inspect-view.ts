/**
 * What the inspector shows of one tool output: the text inside its JSON envelope (Hermes'
 * `{"output": "...", "exit_code": 0}`, `{"content": "1|…"}`, `search_files` matches), line by
 * line, and the envelope's other fields apart, so a diff compares real lines instead of one
 * escaped JSON line.
 *
 * Invariant: read-only and total: anything that is not an envelope with a main text (plain text,
 * other JSON) is shown whole (`field: null`), never guessed at. An envelope cut short by the
 * inspector's cap still yields its leading text field, marked `cut`.
 */
import { mainTextField, matchLine, TEXT_FIELDS } from '../hosts/outputs/envelope-fields.js';

export interface OutputView {
  /** The JSON field holding the main text (`output`, `content`, `matches`…), or null: the whole text. */
  field: string | null;
  /** The main text as the model reads it; a search's matches one per line. */
  text: string;
  /** The envelope's other top-level fields, in order, each value as compact JSON (long ones shortened). */
  fields: EnvelopeField[];
  /** The envelope was cut short (the inspector's 256 KiB cap): the text ends early, other fields are unknown. */
  cut: boolean;
}

export interface EnvelopeField {
  name: string;
  value: string;
}

const MAX_FIELD_CHARS = 300;
const LEADING_TEXT_FIELD = /^\s*\{\s*"([A-Za-z_]+)"\s*:\s*"/;

export function outputView(content: string, capped: boolean): OutputView {
  const json = parseObject(content);
  if (json) {
    const field = mainTextField(json);
    if (field !== undefined) return { field, text: String(json[field]), fields: otherFields(json, field), cut: false };
    if (Array.isArray(json.matches))
      return {
        field: 'matches',
        text: json.matches.map(searchLine).join('\n'),
        fields: otherFields(json, 'matches'),
        cut: false,
      };
    return whole(content);
  }
  if (capped) {
    const leading = leadingTextField(content);
    if (leading) return { ...leading, fields: [], cut: true };
  }
  return whole(content);
}

function whole(content: string): OutputView {
  return { field: null, text: content, fields: [], cut: false };
}

/** A match line; the marker HMC puts where matches were left out (`{"omitted": "…"}`) as its text. */
function searchLine(match: unknown): string {
  if (typeof match === 'object' && match !== null && !Array.isArray(match)) {
    const entries = new Map(Object.entries(match));
    const omitted = entries.get('omitted');
    if (entries.size === 1 && typeof omitted === 'string') return omitted;
  }
  return matchLine(match);
}

function otherFields(json: Record<string, unknown>, main: string): EnvelopeField[] {
  return Object.entries(json)
    .filter(([name]) => name !== main)
    .map(([name, value]) => {
      const text = JSON.stringify(value) ?? String(value);
      return { name, value: text.length > MAX_FIELD_CHARS ? `${text.slice(0, MAX_FIELD_CHARS)}…` : text };
    });
}

/** `{"output": "…` cut anywhere: the string decoded up to the cut (a torn escape at the end dropped). */
function leadingTextField(content: string): { field: string; text: string } | null {
  const m = LEADING_TEXT_FIELD.exec(content);
  const field = m?.[1];
  if (!m || field === undefined || !TEXT_FIELDS.includes(field)) return null;
  const body = content.slice(m[0].length);
  let end = 0;
  while (end < body.length && body[end] !== '"') {
    const step = body[end] === '\\' ? (body[end + 1] === 'u' ? 6 : 2) : 1;
    if (end + step > body.length) break; // an escape torn by the cut
    end += step;
  }
  try {
    const text: unknown = JSON.parse(`"${body.slice(0, end)}"`);
    return typeof text === 'string' ? { field, text } : null;
  } catch {
    return null;
  }
}

function parseObject(content: string): Record<string, unknown> | null {
  if (!content.trimStart().startsWith('{')) return null;
  try {
    const parsed: unknown = JSON.parse(content);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? Object.fromEntries(Object.entries(parsed))
      : null;
  } catch {
    return null;
  }
}
