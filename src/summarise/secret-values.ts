/**
 * Judging a value found after a key-like name (redact.ts finds them): is it data (a secret) or
 * code (an identifier, a type, a call), a reference (`$VAR`, `{{ … }}`) or a placeholder (`****`,
 * `your-key`)? The tests behind each rule are in test/summarise/redact.test.ts; the measured
 * false-positive rate in docs/engine.md "Layer 1: the summariser".
 *
 * Invariant: pure predicates on one string; none throws; each is linear in the value's length.
 */
/** What a redacted value becomes (re-exported by redact.ts). */
export const REDACTED = '[REDACTED]';

/** Words that, after `password:` and the like, are a type or a flag, not a value. */
export const TYPE_WORDS = new Set([
  'string',
  'number',
  'boolean',
  'bool',
  'str',
  'int',
  'integer',
  'float',
  'double',
  'bytes',
  'any',
  'unknown',
  'object',
  'void',
  'never',
  'null',
  'none',
  'nil',
  'undefined',
  'true',
  'false',
  'yes',
  'no',
  'on',
  'off',
  'required',
  'optional',
  'bigint',
  'symbol',
  'dict',
  'list',
  'text',
  'char',
  'varchar',
  'secret',
  'password',
  'token',
  'redacted',
  'hidden',
]);
/** Words that stand for a credential in examples (`user:password@host`, `token=token`). */
const PLACEHOLDER_WORDS = new Set([
  'password',
  'passwd',
  'pass',
  'pwd',
  'secret',
  'token',
  'apikey',
  'api_key',
  'key',
  'changeme',
]);
/** Objects whose members hold a value in code (`token: opts.token`, `password: self.password`). */
const CODE_OBJECTS =
  /^(?:this|self|cls|ctx|context|opts|options|config|cfg|conf|settings|params|props|args|kwargs|env|process|os|window|document|state|req|request|res|response|data|result|info|auth|user|session|app|client|err|error|e)\??\./;

/** Whether `value`, assigned with the operator `sep` to a strong (`password`) or weak (`key`) name, is a secret. */
export function secretValue(strong: boolean, value: string, form: 'quoted' | 'bare', sep: string): boolean {
  if (isPlaceholder(value)) return false;
  // Spaces around the operator are code's style (`const token = cfg2.token`); env, URLs and logs write `token=…`.
  if (form === 'bare' && /\s/.test(sep) && looksLikeIdentifier(value)) return false;
  if (!strong) return weakSecret(value);
  if (form === 'quoted') {
    if (value.length < 3 || /\s/.test(value) || TYPE_WORDS.has(value.toLowerCase()) || symbolicConstant(value))
      return false;
    if (!/[A-Za-z0-9]/.test(value)) return false; // a word in another script (`secret: 'シークレット'`), a symbol
    // One short word reads as a mode or a label in code (`token: "auto"`, `secret: 'Geheim'`).
    return !/^\p{Lu}?\p{Ll}{1,12}$/u.test(value);
  }
  if (value.length < 4 || looksLikeCode(value)) return false;
  // A bare word of letters only reads as an identifier or a type (`token = token`, `password: str`).
  return !(/^[A-Za-z_$]+$/.test(value) && looksLikeIdentifier(value));
}

/**
 * An identifier or a member path as people write them (`cfg2.token`, `SOCKS5_AUTH`, `mapToken2`,
 * `kEnumerableProperty`): words (lower case, Capitalised, or a short ACRONYM) and short numbers.
 * A random string of the same alphabet breaks into runs of capitals and stray letters instead.
 */
export function looksLikeIdentifier(value: string): boolean {
  if (!/^[A-Za-z_$][\w$]*(?:[?!]?\.[A-Za-z_$][\w$]*)*$/.test(value)) return false;
  const constantCase = !/[a-z]/.test(value);
  let single = 0;
  let short = 0;
  let acronyms = 0;
  let numbers = 0;
  for (const part of value.split(/[^A-Za-z0-9]+/)) {
    if (constantCase && part.length > 12 && !/\d/.test(part) && !value.includes('_')) return false; // AKIA-like runs
    for (const token of part.match(/[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+/g) ?? []) {
      if (/^\d+$/.test(token)) {
        if (token.length > 4 || ++numbers > 2) return false;
      } else if (token.length <= 2 && (++short > 2 || (token.length === 1 && ++single > 1))) {
        return false;
      } else if (!constantCase && /^[A-Z]+$/.test(token)) {
        if (token.length > 4 || ++acronyms > 2) return false;
      }
    }
  }
  return true;
}

/** A YAML value (after `password:` at a line start) that is data, not a type or a reference. */
export function yamlSecret(value: string): boolean {
  if (isPlaceholder(value) || value.length < 3 || looksLikeCode(value) || TYPE_WORDS.has(value.toLowerCase()))
    return false;
  if (/^[A-Z][A-Za-z]*$/.test(value) || /^[a-z]+[A-Z][A-Za-z]*$/.test(value)) return false; // PascalCase type, camelCase identifier
  if (/\?\./.test(value) || CODE_OBJECTS.test(value)) return false; // options2?.token, self.token
  return true;
}

/** A value under a generic name (`key`, `session`) is a secret only when long and random. */
export function weakSecret(value: string): boolean {
  if (value.length < 16 || !highEntropy(value)) return false;
  if (/^(?:\/(?:[A-Za-z][a-z]*(?:[A-Z][a-z]+)*(?:[-_.][a-z0-9]+)*|v\d+))+\/?$/.test(value)) return false; // a path of words: /api/v5/robotLogic/sign-token
  if (/^[a-z]+(?:[_.-][a-z0-9]+)+$/.test(value) && value.split(/[_.-]/).filter((w) => /^[a-z]+$/.test(w)).length >= 2)
    return false; // skills_sh_sitemap_v1
  if (/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(value)) return false; // a CONSTANT_NAME
  return !/^[A-Za-z_$][\w$]*(?:[?!]?\.[A-Za-z_$][\w$]*)+$/.test(value); // a member access
}

/**
 * A name in code rather than a value: several words joined without a digit (`SECRET_DO_NOT_PASS`,
 * `?InterpolationInJSX`, `NonExpressionParenEnd`). A one-word letters-only value is still redacted.
 */
export function symbolicConstant(value: string): boolean {
  if (/\d/.test(value)) return false;
  return (
    /^\??[A-Za-z]+(?:[_-][A-Za-z]+)+$/.test(value) ||
    /^\?[A-Za-z]+$/.test(value) ||
    /^\??(?:[A-Z][a-z]+){3,}$/.test(value)
  );
}

/** Values that stand for a secret without being one: references, templates, masks, examples, empties. */
export function isPlaceholder(value: string): boolean {
  if (value.length === 0 || value.includes(REDACTED)) return true;
  if (/^[$%{[]|^<[^>]*>?$|^\*{3,}|^process\.env|^os\.(?:environ|getenv)|^env\(|^(?:your|my)[-_]/i.test(value))
    return true;
  if (/^(?:\.\.\.|…)|(?:\.\.\.|…)$/.test(value)) return true; // sk-..., …abc
  if ((value.match(/x/gi) ?? []).length * 2 >= value.length && /xxx/i.test(value)) return true; // 0.xxx, sk-xxxxxxxx
  if (/^(?:[^=]*=)?[*x.]*%(?:\(\w+\))?[sdr]$/i.test(value)) return true; // a format argument: %s, key=****%s
  if (/^[a-z]{2,6}[-_]$/i.test(value)) return true; // a prefix alone: xoxb-, ghp_
  if (/^#[0-9a-f]{3,8}$/i.test(value)) return true; // a colour
  if (PLACEHOLDER_WORDS.has(value.toLowerCase())) return true; // user:password@host in docs
  return /^(.)\1*$/.test(value); // ********, ........
}

/**
 * A member access, a call, a type expression or an operator (`opts.password`, `getToken()`,
 * `Optional[str]`, `e===x`, `x=>y`); a digit makes a member access data (`ab1.cd`).
 */
export function looksLikeCode(value: string): boolean {
  if (/^[A-Za-z_$][A-Za-z_$]*(?:\.[A-Za-z_$][A-Za-z_$]*)+$/.test(value) || looksLikeCall(value)) return true;
  return (
    /^[A-Za-z_$][\w$.]*[[<]/.test(value) ||
    /^=|^[A-Za-z_$][\w$.]{0,40}(?:===|!==|=>|[!=]=(?:null|undefined|void|true|false)\b)/.test(value)
  );
}

export function looksLikeCall(value: string): boolean {
  return /^[A-Za-z_$][\w$.]*\(/.test(value);
}

export function unquote(value: string): string {
  const m = /^(["'])(.*)\1$/.exec(value);
  return m ? (m[2] ?? '') : value;
}

/**
 * Random-looking: a digit, or upper and lower case mixed beyond capitalised words
 * (`sk-learn-estimator`, `Negotiate`, `DialogTitle` are not; `hQzTkWm` is).
 */
export function looksRandom(value: string): boolean {
  if (/\d/.test(value)) return true;
  if (!/[a-z]/.test(value) || !/[A-Z]/.test(value)) return false;
  // Capitalised words are capitals each followed by a small letter. (This was one regex of nested
  // quantifiers, exponential on `aaaa…aA`: 26 letters took 0.3 s, 40 would take hours; issue 19.)
  return /[A-Z](?![a-z])/.test(value);
}

/**
 * Drawn from a key alphabet, with a letter and a digit (or, from 20 characters, irregular mixed
 * case), and at least 3 bits of entropy per character.
 */
export function highEntropy(value: string): boolean {
  if (!/^[A-Za-z0-9+/=_.~-]+$/.test(value) || !/[A-Za-z]/.test(value)) return false;
  if (!/\d/.test(value) && !(value.length >= 20 && looksRandom(value))) return false;
  const freq = new Map<string, number>();
  for (const ch of value) freq.set(ch, (freq.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of freq.values()) {
    const p = n / value.length;
    bits -= p * Math.log2(p);
  }
  return bits >= 3;
}
