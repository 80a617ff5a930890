/**
 * Error text inside bodies: statements that raise or return an error with a message written in
 * the code (`raise ValueError("bad precision")`, `throw new Error('no config')`,
 * `return fmt.Errorf("missing %s", k)`, `panic!("…")`, Elixir's `{:error, "…"}` and Ecto's
 * `add_error(changeset, :field, "…")`). The code filter keeps them when it elides
 * the body around them: an agent asked what a function fails with must still see it.
 *
 * Invariant: decided on a statement's code with literals blanked (`""`), so a keyword inside a
 * string or comment never counts, and a statement counts only when it carries a literal message.
 */
import type { Language } from './languages.js';

const THROW = /\bthrow\b/;

const RAISES: Record<Language, RegExp> = {
  python: /\braise\b/,
  javascript: THROW,
  typescript: THROW,
  rust: /\b(?:panic|unreachable|unimplemented|todo|bail|anyhow|ensure)!|\bErr\(|\.expect\(/,
  go: /\bpanic\(|\berrors\.New\(|\bfmt\.Errorf\(/,
  php: THROW,
  java: THROW,
  csharp: THROW,
  kotlin: /\bthrow\b|\berror\(|\b(?:require|check)(?:NotNull)?\(/,
  elixir: /\braise\b|\{:error,|\badd_error\(/,
};

/** A blanked literal in scanned code (`""`, `''`, a template, a raw or verbatim string). */
const LITERAL = /""|''|``/;

/** True when `code` (one statement, literals blanked) raises an error carrying a written message. */
export function raisesWithMessage(lang: Language, code: string): boolean {
  return RAISES[lang].test(code) && LITERAL.test(code);
}

/**
 * Body lines (relative indices in `from..to`) of statements raising an error with a written
 * message. A statement runs on over the next lines while its brackets stay open (`bracketEnd`,
 * the depth after a line) or the next line starts inside a literal.
 */
export function errorStatements<L extends { code: string; startsInside: boolean }>(
  lang: Language,
  info: readonly L[],
  from: number,
  to: number,
  bracketEnd: (line: L | undefined) => number,
): Set<number> {
  const kept = new Set<number>();
  for (let b = from; b < to; b++) {
    const line = info[b];
    if (line === undefined || line.startsInside) continue;
    const base = bracketEnd(info[b - 1]);
    let e = b;
    let code = line.code;
    while (e + 1 < to && (bracketEnd(info[e]) > base || info[e + 1]?.startsInside === true))
      code += (info[++e] as L).code;
    if (raisesWithMessage(lang, code)) for (let k = b; k <= e; k++) kept.add(k);
    b = e;
  }
  return kept;
}
