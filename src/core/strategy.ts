/**
 * The strategy contract: the tool output a strategy sees, what it answers, and the shape of a
 * single-output strategy. Strategies import these from here, never from the engine.
 *
 * Invariant: strategies are pure functions of a `ToolOutput` and their config slice; anything
 * about sessions, ordering, protection or accounting belongs to the engine (STYLE "What we take" 1, 5).
 */

/** What kind of text a tool output carries; decides which strategies may touch it. */
export type OutputKind =
  /** A file read: `path` names the file (Hermes `read_file`, Claude `Read`, SWE-agent `open`). */
  | 'file'
  /** Output of a command (terminal, bash): logs, test runs, git, package managers. */
  | 'log'
  /** Search results (grep, search_files): lines from many files, never source code as a whole. */
  | 'search'
  /** Anything else: web pages, MCP results, prose. */
  | 'text';

/** One tool output as a strategy sees it: the text inside any envelope, plus what is known of the call. */
export interface ToolOutput {
  /** Tool name as the host reported it (`''` when unknown). */
  tool: string;
  /** Parsed tool-call arguments (`{}` when unknown or unparsable). */
  args: Readonly<Record<string, unknown>>;
  /** The text to compress: the envelope's main text field, line-number gutters removed. */
  text: string;
  /** `text` split on `\n` (a `\r` before the `\n` stays at the end of its line). */
  lines: readonly string[];
  /** What the text is. */
  kind: OutputKind;
  /** Path of the file read, when `kind` is `'file'`. */
  path?: string;
  /**
   * For a file read whose line numbers are known: `lines[start..end)` are the file's own lines
   * `first`, `first + 1`…; lines outside are the tool's header and trailer, kept as they are.
   */
  fileLines?: FileLines;
  /** True when the host or the envelope signals failure (is_error, non-zero exit code, error field). */
  isError: boolean;
}

/** Where a file read's own lines are inside its output (hosts/outputs/file-reads.ts). */
export interface FileLines {
  start: number;
  end: number;
  /** The file's line number of `lines[start]`. */
  first: number;
  /** The read may stop before the file's end (a range, a page, "(N more lines below)"). */
  openEnd: boolean;
}

/** A kept input line (its index in `ToolOutput.lines`) or a marker line standing for what was cut. */
export type LinePlanItem = number | { marker: string };

/**
 * What a strategy answers. `text` replaces the whole text; `lines` keeps chosen input lines (so the
 * engine can put each line's original gutter back, keeping numbering honest) with markers between.
 * Unsure means skipped, never a guess.
 */
export type StrategyResult =
  | { kind: 'text'; text: string }
  | { kind: 'lines'; lines: LinePlanItem[] }
  | { kind: 'skipped'; reason: string };

/** Shorthand constructors so strategies read as sentences. */
export const skipped = (reason: string): StrategyResult => ({ kind: 'skipped', reason });
export const replacedBy = (text: string): StrategyResult => ({ kind: 'text', text });
export const keptLines = (lines: LinePlanItem[]): StrategyResult => ({ kind: 'lines', lines });

/**
 * A single-output strategy (src/strategies/single/): a pure function of one tool output and its
 * config slice. `weights` says how many original lines each input line stands for when an
 * earlier strategy's plan was applied first (a marker then counts original lines, never fewer).
 */
export type Strategy<C> = (output: ToolOutput, cfg: C, weights?: readonly number[]) => StrategyResult;
