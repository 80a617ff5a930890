/**
 * The validators of the config table (`table.ts`): each turns a raw YAML value into a typed one, or
 * says what was expected; the price table and language list keep their good entries and name the
 * bad ones.
 *
 * Invariant: a validator never throws; a value it refuses is reported by the caller with its key's
 * path and replaced by that key's default.
 */
import { LANGUAGES } from '../core/languages.js';

/** A value accepted (possibly with a `warning` about a part of it left out), or what was expected. */
export type Validator<T> = (
  value: unknown,
) => { ok: true; value: T; warning?: string } | { ok: false; expected: string };

export interface ConfigKey<P extends string = string, T = unknown> {
  /** Dotted path, e.g. "truncation.max_lines". */
  path: P;
  default: T;
  validate: Validator<T>;
  doc: string;
}

/** One row of the table; the validator decides the value's type, the default must be one. */
export function key<const P extends string, T>(
  path: P,
  value: NoInfer<T>,
  validate: Validator<T>,
  doc: string,
): ConfigKey<P, T> {
  return { path, default: value, validate, doc };
}

export const bool: Validator<boolean> = (v) => {
  if (typeof v === 'boolean') return { ok: true, value: v };
  // YAML users write `enabled: "false"`; the original treated that string as true (reference §14 F18).
  if (v === 'true' || v === 'yes' || v === 'on') return { ok: true, value: true };
  if (v === 'false' || v === 'no' || v === 'off') return { ok: true, value: false };
  return { ok: false, expected: 'true or false' };
};

export const int =
  (min: number, max = Number.MAX_SAFE_INTEGER): Validator<number> =>
  (v) => {
    const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
    if (typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max) return { ok: true, value: n };
    return {
      ok: false,
      expected: `a whole number from ${min}${max === Number.MAX_SAFE_INTEGER ? ' up' : ` to ${max}`}`,
    };
  };

export const fraction: Validator<number> = (v) => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n === 'number' && Number.isFinite(n) && n > 0 && n <= 1) return { ok: true, value: n };
  return { ok: false, expected: 'a number above 0 and at most 1 (e.g. 0.8)' };
};

export const nonNegative: Validator<number> = (v) => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n === 'number' && Number.isFinite(n) && n >= 0) return { ok: true, value: n };
  return { ok: false, expected: 'a number of 0 or more' };
};

export const str: Validator<string> = (v) => {
  if (v === null) return { ok: true, value: '' };
  if (typeof v === 'string') return { ok: true, value: v };
  return { ok: false, expected: 'a string' };
};

export const stringList: Validator<string[]> = (v) => {
  if (v === null) return { ok: true, value: [] };
  // A lone string is one item (the original split it into characters, reference §10).
  if (typeof v === 'string') return { ok: true, value: [v] };
  if (Array.isArray(v) && v.every((x): x is string => typeof x === 'string')) return { ok: true, value: [...v] };
  return { ok: false, expected: 'a list of strings' };
};

export const oneOf =
  <T extends string>(...options: T[]): Validator<T> =>
  (v) => {
    const found = options.find((o) => o === v);
    return found !== undefined ? { ok: true, value: found } : { ok: false, expected: `one of ${options.join(', ')}` };
  };

/** A model's prices as config.yaml gives them: a number (its input price, the old form), or any of the four. */
export type PriceEntry = Partial<Record<'input' | 'cache_read' | 'cache_write' | 'output', number>>;
const PRICE_FIELDS = ['input', 'cache_read', 'cache_write', 'output'] as const;
const PRICE_EXPECTED =
  'a map of model name to a price per million input tokens, or to {input, cache_read, cache_write, output} (each from 0 to 1000000; a bad entry is left out, named)';

/** No list price comes near this per million tokens; a larger one is a typo that would make every cost absurd (or Infinity). */
const MAX_PRICE = 1_000_000;

/** A price per million tokens: a number (or its digits as a string) from 0 to MAX_PRICE; else null. */
function priceValue(v: unknown): number | null {
  const n = typeof v === 'string' && /^\s*\d+(?:\.\d+)?\s*$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 && n <= MAX_PRICE ? n : null;
}

export const price: Validator<number> = (v) => {
  const n = priceValue(v);
  return n !== null
    ? { ok: true, value: n }
    : { ok: false, expected: `a price per million tokens from 0 to ${MAX_PRICE}` };
};

/**
 * The user's price table (issue 26, finding 9): a model whose entry is bad (a negative price, a
 * word, an unknown field, no price at all) is left out with a warning naming it and what is wrong,
 * so it is priced from the built-in table or the defaults, never from a wrong figure; the others
 * are kept (before, one bad entry dropped the whole table).
 */
export const priceTable: Validator<Record<string, PriceEntry>> = (v) => {
  if (v === null) return { ok: true, value: {} };
  if (typeof v !== 'object' || Array.isArray(v)) return { ok: false, expected: PRICE_EXPECTED };
  const out: Record<string, PriceEntry> = {};
  const problems: string[] = [];
  for (const [k, entry] of Object.entries(v as Record<string, unknown>)) {
    const name = JSON.stringify(k.length > 60 ? `${k.slice(0, 60)}…` : k);
    const whole = priceValue(entry);
    if (whole !== null) {
      out[k.toLowerCase()] = { input: whole };
      continue;
    }
    const problem = entryProblem(entry);
    if (typeof problem === 'string') problems.push(`${name} ${problem}`);
    else out[k.toLowerCase()] = problem;
  }
  if (problems.length === 0) return { ok: true, value: out };
  const more = problems.length > 3 ? ` (and ${problems.length - 3} more)` : '';
  return {
    ok: true,
    value: out,
    warning: `left out ${problems.slice(0, 3).join('; ')}${more}; those models are priced from the built-in table or pricing.default_*`,
  };
};

/** One model's entry as prices, or what is wrong with it. */
function entryProblem(entry: unknown): PriceEntry | string {
  const shown = (x: unknown): string =>
    JSON.stringify(typeof x === 'string' && x.length > 40 ? `${x.slice(0, 40)}…` : x) ?? String(x);
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
    return `must be a price per million input tokens (0 to ${MAX_PRICE}) or {input, cache_read, cache_write, output}, got ${shown(entry)}`;
  const fields = entry as Record<string, unknown>;
  const unknown = Object.keys(fields).find((f) => !(PRICE_FIELDS as readonly string[]).includes(f));
  if (unknown !== undefined) return `has an unknown field ${shown(unknown)} (allowed: ${PRICE_FIELDS.join(', ')})`;
  const clean: PriceEntry = {};
  for (const f of PRICE_FIELDS) {
    if (fields[f] === undefined || fields[f] === null) continue;
    const n = priceValue(fields[f]);
    if (n === null) return `${f} must be a price per million tokens from 0 to ${MAX_PRICE}, got ${shown(fields[f])}`;
    clean[f] = n;
  }
  if (Object.keys(clean).length === 0) return 'names no price (give input, cache_read, cache_write or output)';
  return clean;
}

/**
 * Languages as the code filter names them (its own list, so a language added there is accepted
 * here without a second copy). Unknown names are reported and left out; when none is known the
 * key falls back to its default (issue 11: `languages: [cobol]` was accepted silently).
 */
export const languageList: Validator<string[]> = (v) => {
  const listed = stringList(v);
  if (!listed.ok) return { ok: false, expected: `a list of languages from ${LANGUAGES.join(', ')}` };
  const names = listed.value.map((x) => x.trim().toLowerCase());
  const known = names.filter((x) => (LANGUAGES as readonly string[]).includes(x));
  const unknown = names.filter((x) => !(LANGUAGES as readonly string[]).includes(x));
  if (unknown.length === 0) return { ok: true, value: known };
  if (known.length === 0) return { ok: false, expected: `a list of languages from ${LANGUAGES.join(', ')}` };
  const them = unknown.map((x) => JSON.stringify(x)).join(', ');
  return {
    ok: true,
    value: known,
    warning: `${them} ${unknown.length === 1 ? 'is not a language' : 'are not languages'} the code filter knows (${LANGUAGES.join(', ')}); ignored`,
  };
};
