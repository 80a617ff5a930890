import { describe, expect, it } from 'vitest';
import type { OutputKind, ToolOutput } from '../../../src/core/strategy.js';
import { isDocument, looksLikeDocument } from '../../../src/strategies/shared/documents.js';

const out = (
  text: string,
  tool = 'bash',
  kind: OutputKind = 'log',
  args: Record<string, unknown> = {},
): ToolOutput => ({ tool, args, text, lines: text.split('\n'), kind, isError: false });
const SUBJECTS = ['The scheduler', 'Each worker', 'A request', 'This option', 'The cache layer', 'Every job'];
const prose = Array.from(
  { length: 30 },
  (_, i) =>
    `${SUBJECTS[i % SUBJECTS.length]} keeps one entry per key and returns it to callers after every update, note ${i}.`,
).join('\n');

describe('isDocument', () => {
  it('trusts web, docs, browser and subagent tools', () => {
    for (const tool of ['web_extract', 'WebFetch', 'mcp__fetch__fetch', 'browser_snapshot', 'web_search', 'Task'])
      expect(isDocument(out('x', tool, 'text'))).toBe(true);
    expect(isDocument(out('x', 'TaskOutput', 'text'))).toBe(false);
  });

  it('trusts commands that print pages, manuals and prose files', () => {
    expect(isDocument(out('x', 'bash', 'log', { command: 'curl -s https://example.com' }))).toBe(true);
    expect(isDocument(out('x', 'bash', 'log', { command: 'npm test' }))).toBe(false);
  });

  it('never calls a file read or a search listing a document', () => {
    expect(isDocument(out(prose, 'read_file', 'file'))).toBe(false);
    expect(isDocument(out(prose, 'grep', 'search'))).toBe(false);
  });
});

describe('looksLikeDocument', () => {
  const is = (text: string): boolean => looksLikeDocument(text, text.split('\n'));

  it('reads prose, markdown reports, HTML and one JSON value as documents', () => {
    expect(is(prose)).toBe(true);
    expect(is(`# Report\n\n## Findings\n\n${prose}\n\`\`\`ts\nconst x = 1;\n\`\`\``)).toBe(true);
    expect(is('<!DOCTYPE html>\n<html><body>hi</body></html>')).toBe(true);
    expect(is(JSON.stringify(Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i])), null, 2))).toBe(
      true,
    );
  });

  it('reads logs as logs, even with sentences in them', () => {
    const jest = Array.from(
      { length: 30 },
      (_, i) => `        ✓ should extract content for the planning phase with a header ${i} (8 ms)`,
    ).join('\n');
    const pip = Array.from(
      { length: 30 },
      (_, i) => `Requirement already satisfied: pkg${i} in /usr/lib/python3/site-packages (from tox) (1.${i})`,
    ).join('\n');
    const server = Array.from(
      { length: 30 },
      (_, i) =>
        `2024-05-02 10:31:${String(i).padStart(2, '0')} INFO the worker finished handling the request for the user`,
    ).join('\n');
    const code = `{ role: 'user', content: prompt },\n${Array.from({ length: 20 }, (_, i) => `  const v${i} = f(${i});`).join('\n')}\n}`;
    for (const text of [jest, pip, server, code]) expect(is(text)).toBe(false);
  });
});
