/**
 * One harm case: a tool output as an agent received it, the facts a compression must keep, and
 * (where it matters) a claim the compression must not make. The classes are the ones in which
 * harmful cuts were seen (issue 8 item 7), plus the classes the older tests cover.
 */

export type HarmClass =
  | 'search'
  | 'traceback'
  | 'chained'
  | 'warning-detail'
  | 'test-title'
  | 'language'
  | 'prose'
  | 'log-failure'
  | 'false-success'
  | 'repetitive'
  | 'install-warning'
  | 'lint-message'
  | 'rare-kind'
  | 'lint-all-messages';

export interface HarmCase {
  name: string;
  klass: HarmClass;
  tool: string;
  args?: Record<string, unknown>;
  output: string;
  isError?: boolean;
  /** Substrings that must survive compression (each one somewhere in what the model sees). */
  keep: readonly string[];
  /** Substrings only a compression writes (a collapse marker's count): must appear in the output. */
  marks?: readonly string[];
  /** Substrings that must not appear (a success claim for a failure). */
  absent?: readonly string[];
  /** For outputs that must shrink: the compressed length must be at most this fraction of the input. */
  shrinkTo?: number;
  /**
   * A diagnostic's message and location lines: any kept line matching the second pattern keeps
   * the nearest line above it matching the first (a location without its message is harm).
   */
  pairs?: readonly [RegExp, RegExp];
}

/** The lines of `output` a kept location needs kept with it: location line → its message line. */
export function pairedLines(output: string, pairs: readonly [RegExp, RegExp]): Map<string, string> {
  const [message, location] = pairs;
  const needs = new Map<string, string>();
  let last: string | null = null;
  for (const line of output.split('\n')) {
    if (message.test(line)) last = line;
    else if (location.test(line) && last !== null) needs.set(line, last);
  }
  return needs;
}

/** A bash call as agents record it. */
export function bash(command: string): Pick<HarmCase, 'tool' | 'args'> {
  return { tool: 'bash', args: { command } };
}

/** Hermes' terminal envelope: `{"output", "exit_code", "error"}`. */
export function terminalJson(output: string, exitCode: number): string {
  return JSON.stringify({ output, exit_code: exitCode, error: null });
}
