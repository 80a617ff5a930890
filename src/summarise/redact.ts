/**
 * Secret redaction for layer 1 (issue 10): everything sent to the summariser and everything it
 * answers passes through `redactSecrets`, so a credential in a tool output never leaves in a
 * request and never lands in a stored summary. A redacted value becomes `[REDACTED]`; the name
 * or header around it stays, so the summary can still say "the token in .env was replaced".
 *
 * The rules are shape-based, in order: private key blocks, URL userinfo, vendor-prefixed tokens
 * and JWTs, authorization headers, URL query parameters, then assignments to key-like names
 * (quoted values, `NAME=value`, YAML lines, inline `name=value`, command-line flags), also
 * inside JSON strings (tool-call arguments). Values that read like code rather than data
 * (identifiers, types, `$VAR` references, placeholders) are left alone (secret-values.ts);
 * docs/engine.md "Layer 1: the summariser" has the measured false-positive rate and the gaps.
 *
 * Invariants: pure and total (never throws); idempotent (`[REDACTED]` is never redacted again);
 * every quantifier is bounded or anchored at a word start, and key blocks are found by indexed
 * search, so no input makes a rule quadratic.
 */
import { redactCommandSecrets } from './command-secrets.js';
import { redactProseSecrets } from './prose-secrets.js';
import {
  highEntropy,
  isPlaceholder,
  looksLikeCall,
  looksLikeCode,
  looksRandom,
  REDACTED,
  secretValue,
  unquote,
  yamlSecret,
} from './secret-values.js';

export { REDACTED };

export interface Redaction {
  /** The text with every secret found replaced by `[REDACTED]`. */
  text: string;
  /** How many values were replaced. */
  count: number;
  /** The values replaced (distinct), so they can be scrubbed wherever else they appear (`scrubValues`). */
  values: string[];
}

/** Name endings whose value is a secret whatever it looks like (`DB_PASSWORD`, `apiKey`, `client_secret`). */
const STRONG_SUFFIX = String.raw`(?:password|passwd|passphrase|secret|token|(?:api|access|secret|private|auth|encryption|signing|master|client|account)[_-]?key|private[_-]?key[_-]?id|[_.-]pass|[_.-]pwd)`;
const STRONG_NAME = String.raw`[A-Za-z0-9_.-]{0,40}?${STRONG_SUFFIX}`;
/** An environment variable's name: upper case by convention (`OPENAI_API_KEY`). */
const ENV_NAME = String.raw`[A-Z0-9_]{0,40}?${STRONG_SUFFIX.toUpperCase()}`;
/**
 * Names whose value is a secret only when it looks random (long, a digit, high entropy): generic
 * endings (`key`, `salt`, `cookie`, `credentials`…) and any name holding a secret word
 * (`SECRET_KEY_BASE`). `session_key` and `credentials` are here, not above: in code they hold
 * ids and fetch modes (`credentials: "include"`) far more often than secrets.
 */
const WEAK_NAME = String.raw`[A-Za-z0-9_.-]{0,40}?(?:key|sig|signature|salt|hmac|cookie|session|sid|auth|nonce|dsn|credentials?|(?:secret|password|passwd|token|credential)[A-Za-z0-9_.-]{0,40}?)`;
/** Names in a URL query whose value is a secret (strong ones) or is when it looks random. */
const QUERY_NAME = String.raw`(?:[A-Za-z_][A-Za-z0-9_.-]{0,40}?)?(?:token|key|secret|password|passwd|sig|signature|code|auth|credential|session_?id)`;
/**
 * A name starts at a word start (so a rule never rescans inside a long word), or right after an
 * escaped line break or tab (`…\\npassword: x` inside a JSON string).
 */
const NAME_START = String.raw`(?:(?<![A-Za-z0-9_.-])|(?<=\\[nrt]))`;
/**
 * An `&` inside a value (`REDIS_PASSWORD=Ab3d&h1Jk…`, issue 19): glued to what follows and not
 * starting another `name=` (a URL query's next parameter) or a shell's `&&`.
 */
const GLUED_AMP = String.raw`&(?![\s&;|)]|$|[A-Za-z_][\w.-]{0,40}=)`;
/** Assignment operators of env files, YAML, JSON, code and config languages (not `==`: a comparison). */
const ASSIGN = String.raw`[ \t]{0,8}(?::=|=>|:(?!:)|=(?![=>]))[ \t]{0,8}`;

/** A key block is a few KB; an END further than this from its BEGIN belongs to another block. */
const MAX_KEY_BLOCK_CHARS = 100_000;
const PEM_BEGIN = /-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/g;
const PEM_END = /-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/g;
/** One more line of a key block's body (real or `\n`-escaped line breaks, as in a JSON string). */
const PEM_BODY_LINE = /(?:\\r)?(?:\\n|\r?\n)[A-Za-z0-9+/=:,. -]{0,200}/y;
/** Body lines read backwards from an END: a line break (real or escaped, reversed), then a line of base64, again and again. */
const PEM_BODY_REVERSED = /(?:(?:\n\r?|n\\(?:r\\)?)[A-Za-z0-9+/=]{1,200}(?=\n|n\\|$))+/y;
const URL_USERINFO = /\b([a-z][a-z0-9+.-]{1,20}:\/\/)([^\s:/?#@'"<>]{0,256}):([^\s/?#@'"<>]{1,256})@/gi;
const VENDOR_TOKEN = new RegExp(
  String.raw`(?<![A-Za-z0-9_-])(?:` +
    [
      String.raw`sk-[A-Za-z0-9_-]{20,400}`, // OpenAI (sk-, sk-proj-), Anthropic (sk-ant-), DeepSeek…
      String.raw`(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,200}`, // Stripe
      String.raw`(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}`, // AWS access key ids
      String.raw`gh[pousr]_[A-Za-z0-9]{30,200}`, // GitHub tokens
      String.raw`github_pat_[A-Za-z0-9_]{30,300}`,
      String.raw`glpat-[A-Za-z0-9_-]{20,200}`, // GitLab
      String.raw`xox[abposr]-[A-Za-z0-9-]{10,300}`, // Slack
      String.raw`xapp-\d-[A-Za-z0-9-]{10,300}`,
      String.raw`AIza[0-9A-Za-z_-]{35}`, // Google API keys
      String.raw`hf_[A-Za-z0-9]{30,200}`, // Hugging Face
      String.raw`npm_[A-Za-z0-9]{36}`,
      String.raw`pypi-[A-Za-z0-9_-]{50,300}`,
      String.raw`SG\.[A-Za-z0-9_-]{16,100}\.[A-Za-z0-9_-]{16,100}`, // SendGrid
      String.raw`eyJ[A-Za-z0-9_-]{10,4000}\.eyJ[A-Za-z0-9_-]{10,8000}\.[A-Za-z0-9_-]{0,4000}`, // JWT
    ].join('|') +
    String.raw`)(?![A-Za-z0-9_-])`,
  'g',
);
const AUTH_HEADER =
  /\b((?:proxy-)?authorization|x-api-key|api-key|x-auth-token|x-access-token)(["'`]?[ \t]{0,8}[:=][ \t]{0,8}["'`]?)((?:bearer|basic|token|digest|bot)[ \t]{1,8})?([A-Za-z0-9._~+/=:-]{4,4000})(?![^\s"'`,;])/gi;
const BARE_BEARER = /\b(bearer[ \t]{1,8})([A-Za-z0-9._~+/-]{16,4000}=*)/gi;
/** `?access_token=…&` in a URL; `&&`, `?.` and `===` are code, not a query. */
const URL_QUERY = new RegExp(String.raw`(?<![&?])([?&])(${QUERY_NAME})=(?!=)([\w.~%+/=:@!$*-]{1,4000})`, 'gi');
/** `"password": "…"`, `token = '…'`, and the same inside a JSON string (`\\"password\\": \\"…\\"`, as in tool-call arguments). */
const QUOTED_ASSIGNMENT = new RegExp(
  String.raw`${NAME_START}(\\?["']|)(${STRONG_NAME}|${WEAK_NAME})\1(${ASSIGN})(\\?["'\x60])((?:(?!\4)(?:[^\n\\]|\\[^\n])){0,4000})\4`,
  'gi',
);
/** `DB_PASSWORD=…` as in .env files and shell commands (also mid-line: `DB_PASSWORD=x npm start`). */
const ENV_ASSIGNMENT = new RegExp(
  String.raw`(?:(?<![\w.$-])|(?<=\\[nrt]))((?:export[ \t]{1,8})?)(${ENV_NAME})=((?:[^\s"'\x60;&|)\\]|${GLUED_AMP}){1,4000})`,
  'g',
);
/** `password: …` alone on its line (a real line, or one inside a JSON string after an escaped break). */
const YAML_LINE = new RegExp(
  String.raw`((?:^|\\n)[ \t]{0,80}(?:-[ \t]{1,8})?)(${STRONG_NAME}):[ \t]{1,8}([^\s\\]{1,4000})[ \t]*(?=\r?$|[ \t]#|\\[rn])`,
  'gim',
);
const INLINE_ASSIGNMENT = new RegExp(
  String.raw`${NAME_START}(${STRONG_NAME}|${WEAK_NAME})(${ASSIGN})((?:[^\s"'\x60,;&(){}\[\]<>|\\]|${GLUED_AMP}){1,4000})`,
  'gi',
);
/** `--password <value>` (one space: help text aligns its columns with several). */
const CLI_FLAG =
  /(?:(?<![\w-])|(?<=\\[nrt]))(--?[A-Za-z0-9-]{0,40}(?:password|passwd|passphrase|token|secret|api-?key|access-?key)|--(?:[A-Za-z0-9]{1,20}-){0,3}(?:pass|pwd))( )(["']?)([^\s"'`-][^\s"'`]{0,4000})\3/gi;

const STRONG_FULL = new RegExp(`^${STRONG_NAME}$`, 'i');
const WEAK_QUERY_FULL = /(?:code|sig|signature|key|auth|session_?id)$/i;
/** Header values that are the scheme alone (`"Basic " + …`). */
const SCHEMES = new Set(['bearer', 'basic', 'token', 'digest', 'bot', 'negotiate']);
/** Replaces every secret `redactSecrets` recognises in `text` with `[REDACTED]`. */
export function redactSecrets(text: string): Redaction {
  if (typeof text !== 'string' || text.length === 0)
    return { text: typeof text === 'string' ? text : '', count: 0, values: [] };
  let count = 0;
  const values = new Set<string>();
  const hit = (value: string): string => {
    count++;
    values.add(value);
    return REDACTED;
  };
  let out = text;
  if (out.includes('PRIVATE KEY')) out = redactKeyBlocks(out, hit);
  out = redactKeyLines(out, hit);
  if (out.includes('://')) {
    out = out.replace(URL_USERINFO, (m, scheme: string, user: string, pass: string) =>
      isPlaceholder(pass) ? m : `${scheme}${user}:${hit(pass)}@`,
    );
  }
  // `sk-` also starts library names (`sk-learn-…`): that prefix alone needs a random-looking rest.
  out = out.replace(VENDOR_TOKEN, (m: string) => (!m.startsWith('sk-') || looksRandom(m) ? hit(m) : m));
  out = out.replace(AUTH_HEADER, (m, name: string, sep: string, scheme: string | undefined, value: string) =>
    isPlaceholder(value) || SCHEMES.has(value.toLowerCase()) || !looksRandom(value)
      ? m
      : `${name}${sep}${scheme ?? ''}${hit(value)}`,
  );
  out = out.replace(BARE_BEARER, (m, scheme: string, value: string) =>
    !isPlaceholder(value) && looksRandom(value) ? `${scheme}${hit(value)}` : m,
  );
  out = out.replace(URL_QUERY, (m, lead: string, name: string, value: string, offset: number, whole: string) => {
    if (isPlaceholder(value) || looksLikeCode(value) || whole.charAt(offset + m.length) === '(') return m;
    const weak = WEAK_QUERY_FULL.test(name) && !STRONG_FULL.test(name);
    return weak && !(value.length >= 12 && highEntropy(value)) ? m : `${lead}${name}=${hit(value)}`;
  });
  out = out.replace(QUOTED_ASSIGNMENT, (m, q1: string, name: string, sep: string, q: string, value: string) =>
    secretValue(STRONG_FULL.test(name), value, 'quoted', sep) ? `${q1}${name}${q1}${sep}${q}${hit(value)}${q}` : m,
  );
  out = out.replace(ENV_ASSIGNMENT, (m, lead: string, name: string, value: string, offset: number, whole: string) => {
    if (isPlaceholder(value) || looksLikeCall(value) || whole.charAt(offset + m.length) === '(') return m;
    return `${lead}${name}=${hit(value)}`;
  });
  out = out.replace(YAML_LINE, (m, lead: string, name: string, value: string) => {
    const bare = unquote(value);
    // `password: hashed,` or `token: string;` ends like code, not like YAML: judge it as code.
    if (/[;,]$/.test(bare))
      return secretValue(true, bare.slice(0, -1), 'bare', ': ') ? `${lead}${name}: ${hit(bare.slice(0, -1))}` : m;
    return yamlSecret(bare) ? `${lead}${name}: ${hit(bare)}` : m;
  });
  out = out.replace(INLINE_ASSIGNMENT, (m, name: string, sep: string, value: string, offset: number, whole: string) => {
    const next = whole.charAt(offset + m.length);
    if (next === '(' || next === '[' || !secretValue(STRONG_FULL.test(name), value, 'bare', sep)) return m;
    return `${name}${sep}${hit(value)}`;
  });
  out = out.replace(CLI_FLAG, (m, flag: string, space: string, q: string, value: string) =>
    secretValue(true, value, 'bare', '=') && !/^[A-Z_]+$/.test(value) ? `${flag}${space}${q}${hit(value)}${q}` : m,
  );
  out = redactCommandSecrets(out, hit);
  out = redactProseSecrets(out, hit);
  return { text: out, count, values: [...values] };
}

/**
 * Private key blocks, found with indexed searches rather than one regex (a text full of BEGIN
 * lines and no END must stay linear): BEGIN…END whole; a BEGIN whose END was cut off, with the
 * body lines after it; an END whose BEGIN was cut off, with the body lines before it.
 */
function redactKeyBlocks(text: string, hit: (value: string) => string): string {
  let out = '';
  let from = 0;
  let noEndAfter = Infinity;
  PEM_BEGIN.lastIndex = 0;
  for (let begin = PEM_BEGIN.exec(text); begin; begin = PEM_BEGIN.exec(text)) {
    let stop = begin.index + begin[0].length;
    PEM_END.lastIndex = stop;
    let end = stop < noEndAfter ? PEM_END.exec(text) : null;
    if (!end) noEndAfter = Math.min(noEndAfter, stop);
    // An END that far away closes some other block: this one was cut.
    else if (end.index - stop > MAX_KEY_BLOCK_CHARS) end = null;
    if (end) stop = end.index + end[0].length;
    else {
      for (PEM_BODY_LINE.lastIndex = stop; PEM_BODY_LINE.test(text) && PEM_BODY_LINE.lastIndex > stop; )
        stop = PEM_BODY_LINE.lastIndex;
    }
    out += text.slice(from, begin.index) + hit(text.slice(begin.index, stop));
    from = stop;
    PEM_BEGIN.lastIndex = stop;
  }
  out += text.slice(from);
  // Ends left over have lost their BEGIN: the body lines just before them go too. The text before
  // an END is read backwards (reversed), so one sticky match finds where the body starts.
  let result = '';
  let last = 0;
  PEM_END.lastIndex = 0;
  for (let end = PEM_END.exec(out); end; end = PEM_END.exec(out)) {
    const floor = Math.max(last, end.index - 410_000);
    const before = [...out.slice(floor, end.index)].reverse().join('');
    PEM_BODY_REVERSED.lastIndex = 0;
    const body = PEM_BODY_REVERSED.exec(before);
    const start = end.index - (body ? body[0].length : 0);
    result += out.slice(last, start) + hit(out.slice(start, end.index + end[0].length));
    last = end.index + end[0].length;
  }
  return result + out.slice(last);
}

/**
 * A run of base64 of 40 characters or more, as a key block's body lines are (64 or 70 characters,
 * the last one shorter), standing alone: not glued to a word, a `sha512-` prefix or a path. A tool
 * output that shows part of a key (`sed -n 2,4p key.pem`, `tail -2 id_rsa`) has no BEGIN/END to
 * find it by (issue 26, finding 6).
 */
const KEY_LINE = /(?<![A-Za-z0-9+/=_.:$-])[A-Za-z0-9+/]{40,200}={0,2}(?![A-Za-z0-9+/=_.-])/g;

/** Body lines of a key without their BEGIN/END: random base64 (both cases, a digit, about 4.5 bits a character or more). */
function redactKeyLines(text: string, hit: (value: string) => string): string {
  return text.replace(KEY_LINE, (m: string, offset: number, whole: string) => {
    // After a backslash, `n`, `r` or `t` is an escaped line break or tab (a JSON string): the run starts after it.
    if (whole.charAt(offset - 1) === '\\' && /^[nrt]/.test(m))
      return randomBase64(m.slice(1)) ? `${m[0]}${hit(m.slice(1))}` : m;
    // A data URI's payload (`data:image/png;base64,…`) is a file, not a key.
    if (whole.slice(Math.max(0, offset - 7), offset) === 'base64,') return m;
    return randomBase64(m) ? hit(m) : m;
  });
}

function randomBase64(value: string): boolean {
  const run = value.replace(/=+$/, '');
  if (run.length < 40 || !/[a-z]/.test(run) || !/[A-Z]/.test(run) || !/\d/.test(run)) return false;
  // An alphabet table (`ABCDEFGHIJ…`), an SSH public key (`AAAA…`: its length prefix), text someone
  // encoded (decodes to printable text; a key decodes to binary): none is a key's body.
  if (/ABCDEFGHIJ|abcdefghij|0123456789/.test(run) || run.startsWith('AAAA') || decodesToText(run)) return false;
  const freq = new Map<string, number>();
  for (const ch of run) freq.set(ch, (freq.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of freq.values()) {
    const p = n / run.length;
    bits -= p * Math.log2(p);
  }
  return bits >= 4.5;
}

/** Whether base64 `run` (from a 4-character boundary) decodes to mostly printable text (90% or more of its bytes). */
function decodesToText(run: string): boolean {
  const bytes = Buffer.from(run.slice(0, run.length - (run.length % 4)), 'base64');
  let printable = 0;
  for (const b of bytes) if ((b >= 0x20 && b < 0x7f) || b === 0x0a || b === 0x0d || b === 0x09) printable++;
  return bytes.length > 0 && printable / bytes.length >= 0.9;
}

/** Values shorter than this are not scrubbed by value alone: too many ordinary words are that short. */
const MIN_SCRUB_CHARS = 6;
/** At most this many values are scrubbed (a range holding more secrets than that is cut to its longest). */
const MAX_SCRUB_VALUES = 256;

/**
 * Every occurrence of a value already found to be a secret elsewhere (`Redaction.values`), in any
 * context: the password a rule found in `.env` must not pass in a log line that only shows the
 * value, nor in the note the model writes (issue 19, finding 3).
 */
export function scrubValues(text: string, values: Iterable<string>): Redaction {
  const found = [...new Set(values)].filter((v) => v.length >= MIN_SCRUB_CHARS && !v.includes(REDACTED));
  if (found.length === 0 || text.length === 0) return { text, count: 0, values: [] };
  // Longest first, so a value that contains another goes whole.
  found.sort((a, b) => b.length - a.length);
  const pattern = new RegExp(
    found
      .slice(0, MAX_SCRUB_VALUES)
      .map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('|'),
    'g',
  );
  let count = 0;
  const hits = new Set<string>();
  const out = text.replace(pattern, (m) => {
    count++;
    hits.add(m);
    return REDACTED;
  });
  return { text: out, count, values: [...hits] };
}
