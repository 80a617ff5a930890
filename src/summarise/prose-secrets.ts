/**
 * Secrets written as prose or markdown rather than assigned (issue 19, finding 3): what a summary
 * writes when it repeats one ("The SMTP password is Xq7…", "**Token**: ghx9…", "- API key:
 * `Zk9…`", "logged in with password S3c…", "the Redis password (`Ab3d…`)"), and what people write
 * in notes and tickets. Before this rule, redaction after the summary missed 11 of 18.
 *
 * A credential noun (`password`, `passphrase`, `secret`, `token`, `credentials`, `api key`,
 * `access key`…, also at the end of a name: `SMTP_PASSWORD`), its markdown closing, then a link:
 * - a strong one (`:`, `=`, `→`, `is`, `was`, `set to`, an opening parenthesis): the value is taken
 *   when it is quoted or backticked (unless it reads as code or a constant's name), or when bare
 *   and random-looking (a digit, irregular case or a symbol; 6 characters or more);
 * - a plain space ("with password S3cr…"): only a value of high entropy (8+ characters).
 * A generic noun (`key`, `pass` alone) takes only a long random value (weakSecret).
 *
 * Invariants: pure; English after a noun ("the token is expired", "password: hashed with bcrypt",
 * "Token: the string /login returns") is kept, as are references, placeholders, paths, URLs,
 * numbers and versions; every quantifier is bounded, so no input makes the rule quadratic.
 */
import type { Hit } from './command-secrets.js';
import {
  highEntropy,
  isPlaceholder,
  looksLikeCall,
  looksLikeCode,
  looksLikeIdentifier,
  looksRandom,
  REDACTED,
  secretValue,
  symbolicConstant,
  TYPE_WORDS,
  weakSecret,
} from './secret-values.js';

/** Words that make a name a credential's (`API key`, `root password`, `SMTP_PASS`). */
const PREFIX = String.raw`(?:api|access|auth|bearer|refresh|bot|deploy|personal[ -]access|secret|private|signing|encryption|master|client|app|webhook|jwt|session|admin|root|db|database|smtp|mail|redis|ssh)`;
/** Of those, the ones that make a `key` a credential (`API key`, not `ROOT_KEY` or `CACHE_KEY`). */
const KEY_PREFIX = String.raw`(?:api|access|auth|secret|private|signing|encryption|master|client|app|webhook|jwt|ssh|deploy)`;
/** `key id` counts only as a private key's (a GCP service-account key's `private_key_id`, issue 26): see `takes`. */
const NOUN = String.raw`(?:${PREFIX}[ _-]?)?(?:pass(?:word|phrase|wd)?|pwd|secret|token|key[ _-]?id|key|credentials?)`;
/** A name ending in the noun (`SMTP_PASSWORD`, `db-pass`): up to four parts before it. */
const NAMED = String.raw`(?:[A-Za-z0-9]{1,20}[_-]){0,4}${NOUN}`;
/** Links that assign: `:`, `=`, arrows. */
const OPERATOR = String.raw`[ \t]{0,3}(?::|=|=>|->|→)[ \t]{0,3}`;
/** Links in words: "is", "was set to", "changed to". */
const VERB = String.raw`[ \t]{1,3}(?:(?:(?:is|was|has been|got|were) )?(?:set|changed|rotated|reset|updated) to|is|was|are|were|reads|equals|becomes|to)[ \t]{1,3}`;
/** A parenthesis after a space: "the Redis password (`…`)". */
const PAREN = String.raw`[ \t]{1,3}\(`;
const PLAIN = String.raw`[ \t]{1,3}`;
/** What qualifies the noun before the link: "password for root", "token of the bot". */
const QUALIFIER = String.raw`(?:[ \t]{1,3}(?:for|of|on|in)[ \t]{1,3}[^\s:=()\x60'"]{1,60}){0,2}`;
/** A value in quotes, backticks or bold runs to its closing mark (it may hold `*`, `(` or spaces' neighbours). */
const QUOTED = String.raw`\x60([^\x60\n]{4,400})\x60|"([^"\n]{4,400})"|'([^'\n]{4,400})'|\*\*([^*\n]{4,400})\*\*`;
/** A bare value ends at white space, a quote, a bracket, a comma, a semicolon or CJK punctuation (`）`, `。`). */
const BARE = String.raw`[^\s\x60'"()<>\[\],;\u3000-\u303f\uff00-\uffef]{4,400}`;

const PROSE = new RegExp(
  String.raw`(?<![A-Za-z0-9_$.-])(${NAMED})(?![A-Za-z0-9(])([*_\x60"']{0,4})(${QUALIFIER})(?:(${OPERATOR})|(${VERB})|(${PAREN})|(${PLAIN}))(?:${QUOTED}|(${BARE}))`,
  'gi',
);

type Link = 'operator' | 'verb' | 'paren' | 'plain';

/** Sentence punctuation after a value is the sentence's, not the value's. */
const TRAILING = /[.!?:]+$/;

/** Replaces the values of credentials named in prose; the words around them stay. */
export function redactProseSecrets(text: string, hit: Hit): string {
  return text.replace(PROSE, (m: string, ...args: unknown[]) => {
    const [named, , , op, verb, paren, , backticked, doubled, single, bold, bare] = args as (string | undefined)[];
    const quoted = backticked ?? doubled ?? single ?? bold;
    const raw = quoted ?? bare ?? '';
    // Bare, sentence punctuation after the value is the sentence's.
    const value = quoted !== undefined ? raw : raw.replace(TRAILING, '');
    const link: Link =
      op !== undefined ? 'operator' : verb !== undefined ? 'verb' : paren !== undefined ? 'paren' : 'plain';
    if (!takes(named ?? '', value, link, quoted !== undefined)) return m;
    // The value sits at the match's end (then its closing mark, when quoted).
    const at = m.lastIndexOf(raw);
    return `${m.slice(0, at)}${hit(value)}${m.slice(at + value.length)}`;
  });
}

/** A member access (`cfg2.token`, `self.api_key`): code, digits or not. */
const MEMBER = /^[A-Za-z_$][\w$]*(?:[?!]?\.[A-Za-z_$][\w$]*)+$/;
const GENERIC = /(?:^|[ _-])(?:key|pass)$/i;
const KEY_ID = /key[ _-]?id$/i;
const CREDENTIAL_KEY = new RegExp(String.raw`${KEY_PREFIX}[ _-]?(?:key|pass)$`, 'i');

/** Whether `value`, linked to the noun of `named` by `link`, quoted or bare, is a secret. */
function takes(named: string, value: string, link: Link, quoted: boolean): boolean {
  if (value.length < 4 || value.includes(REDACTED) || isPlaceholder(value) || TYPE_WORDS.has(value.toLowerCase()))
    return false;
  // A key id names a key; only a private key's (a service account's `private_key_id`) is kept secret.
  if (KEY_ID.test(named) && !/private/i.test(named)) return false;
  // An example's shape (`user:password@host`): one of its parts is a placeholder word.
  if (value.split(/[:@/.]/).some((part) => part.length > 2 && isPlaceholder(part))) return false;
  if (/^(?:\/|\.{1,2}\/|~\/)|:\/\/|^\d{1,9}$|^v?\d+(?:\.\d+)+$|^\$/.test(value) || looksLikeCall(value)) return false;
  // Bare, an assignment or an expression is code (`app_key=****%s`, `Optional[str]`, `x=>y`).
  if (!quoted && (/^[A-Za-z_][\w.-]{2,}=/.test(value) || looksLikeCode(value))) return false;
  // A member path of words (`cfg2.token`, `self.api_key`), not a random string with a dot in it.
  if (
    (MEMBER.test(value) || /^[A-Za-z_$][A-Za-z_$]*(?:\.[A-Za-z_$][A-Za-z_$]*)+$/.test(value)) &&
    looksLikeIdentifier(value)
  )
    return false;
  // A constant's name (`OPENAI_API_KEY`, `SECRET_DO_NOT_PASS`) is where a secret lives, not one.
  if (/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(value) || symbolicConstant(value)) return false;
  // Hyphenated words ("non-ASCII", "read-only") are English.
  if (/^[A-Za-z]+(?:-[A-Za-z]+)+$/.test(value)) return false;
  if (GENERIC.test(named) && !CREDENTIAL_KEY.test(named)) return weakSecret(value);
  const mixed = /[a-z]/.test(value) && /[A-Z]/.test(value);
  const digit = /\d/.test(value);
  const symbol = /[!#%^&*+=~@$]/.test(value);
  if (quoted && link !== 'plain')
    return (
      secretValue(true, value, 'quoted', ': ') &&
      !/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(value) &&
      !/^[a-z]+(?:_[a-z]+)+$/.test(value)
    );
  if (link === 'operator') {
    // `=` and `:` are code's operators too: an identifier after them is code (`token: userToken2`).
    if (value.startsWith('=') || looksLikeIdentifier(value)) return false;
    return value.length >= 6 && (digit || looksRandom(value) || symbol);
  }
  // After a verb the sentence is English: a word with a digit ("base64url") is still a word.
  if (link === 'verb')
    return value.length >= 6 && ((digit && (mixed || symbol)) || (value.length >= 16 && highEntropy(value)));
  return value.length >= 8 && highEntropy(value) && (mixed || value.length >= 16);
}
