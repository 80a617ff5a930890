/**
 * Test helpers for the code filter: build `ToolOutput` values and render a strategy's line plan
 * back to text the way the engine does (kept lines verbatim, markers as their own lines).
 */
import type { HmcConfig } from '../../../src/config/keys.js';
import { expect } from 'vitest';
import type { FileLines, LinePlanItem, OutputKind, StrategyResult, ToolOutput } from '../../../src/core/strategy.js';
import type { codeFilter } from '../../../src/strategies/single/code-filter/index.js';
import { MARKER_RE } from '../../../src/strategies/single/code-filter/plan.js';

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

/**
 * Asserts a plan is well-formed: kept indices strictly increasing and in range; every marker one
 * line, CR-free, and honest: it names exactly the file lines of the gap it stands in (or, when
 * comments outside bodies are dropped, lines inside that gap), and counts them.
 */
export function checkPlan(output: ToolOutput, result: ReturnType<typeof codeFilter>, exactGaps: boolean): void {
  if (result.kind === 'skipped') return;
  expect(result.kind).toBe('lines');
  if (result.kind !== 'lines') return;
  const span = output.fileLines ?? { start: 0, end: output.lines.length, first: 1, openEnd: false };
  const number = (index: number): number => span.first + index - span.start;
  let prev = -1;
  let pending: { from: number; to: number } | null = null;
  const closeGap = (next: number): void => {
    if (pending !== null) {
      const gap = { from: number(prev + 1), to: number(next - 1) };
      if (exactGaps) expect(pending).toEqual(gap);
      else expect(pending.from >= gap.from && pending.to <= gap.to).toBe(true);
    } else if (exactGaps) expect(next - prev - 1).toBe(0);
    pending = null;
  };
  for (const item of result.lines as LinePlanItem[]) {
    if (typeof item === 'number') {
      expect(Number.isInteger(item) && item > prev && item < output.lines.length).toBe(true);
      closeGap(item);
      prev = item;
    } else {
      expect(pending).toBeNull();
      expect(item.marker).not.toMatch(/[\r\n]/);
      const m = MARKER_RE.exec(item.marker);
      expect(m).not.toBeNull();
      pending = { from: Number(m?.[3]), to: Number(m?.[4]) };
      expect(Number(m?.[2])).toBe(pending.to - pending.from + 1);
      expect(Number(m?.[2])).toBeGreaterThanOrEqual(3);
    }
  }
  closeGap(output.lines.length);
}
