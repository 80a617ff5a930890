/**
 * Test helpers for the code filter: build `ToolOutput` values and render a strategy's line plan
 * back to text the way the engine does (kept lines verbatim, markers as their own lines).
 */
import type { HmcConfig } from '../../../src/config/keys.js';
import type { FileLines, OutputKind, StrategyResult, ToolOutput } from '../../../src/core/strategy.js';

export const CFG: HmcConfig['code_filter'] = {
  enabled: true,
  languages: ['python', 'javascript', 'typescript', 'rust', 'go', 'php', 'java', 'csharp', 'kotlin', 'elixir'],
  min_lines: 1,
  preserve_docstrings: true,
};

/** A whole-file read of `path` holding `text` (its lines numbered from 1). */
export function fileRead(path: string, text: string, span: Partial<FileLines> = {}): ToolOutput {
  const lines = text.split('\n');
  const fileLines: FileLines = { start: 0, end: lines.length, first: 1, openEnd: false, ...span };
  return { tool: 'read_file', args: { path }, text, lines, kind: 'file', path, fileLines, isError: false };
}

/** Any other output (search results, logs, web pages). */
export function otherOutput(kind: OutputKind, text: string, tool = 'terminal'): ToolOutput {
  return { tool, args: {}, text, lines: text.split('\n'), kind, isError: false };
}

/** The text the engine would show for `result` over `input` (null when skipped). */
export function render(input: ToolOutput, result: StrategyResult): string | null {
  if (result.kind === 'skipped') return null;
  if (result.kind === 'text') return result.text;
  return result.lines.map((item) => (typeof item === 'number' ? input.lines[item] : item.marker)).join('\n');
}
