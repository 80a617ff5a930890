/**
 * The languages the code filter understands, named once: the filter's tables map extensions and
 * fence tags to them (src/strategies/single/code-filter/languages.ts), and the config accepts
 * exactly these names for `code_filter.languages`.
 *
 * Invariant: a language added here is accepted by the config and must be handled by the filter.
 */

/** A language the code filter understands. */
export type Language =
  | 'python'
  | 'javascript'
  | 'typescript'
  | 'rust'
  | 'go'
  | 'php'
  | 'java'
  | 'csharp'
  | 'kotlin'
  | 'elixir';

/** The languages whose structure is brace-delimited (everything but Python and Elixir). */
export type BraceLanguage = Exclude<Language, 'python' | 'elixir'>;

export const LANGUAGES: readonly Language[] = [
  'python',
  'javascript',
  'typescript',
  'rust',
  'go',
  'php',
  'java',
  'csharp',
  'kotlin',
  'elixir',
];
