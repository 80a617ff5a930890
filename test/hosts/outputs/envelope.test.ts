import { describe, expect, it } from 'vitest';
import { parseEnvelope } from '../../../src/hosts/outputs/envelope.js';
import { topLevelFields } from '../../../src/hosts/outputs/json-fields.js';

describe('top-level JSON fields', () => {
  it('finds each value span without re-serialising', () => {
    const text =
      '{"output": "a \\"quoted\\" {brace}", "exit_code": 0, "error": null, "nested": {"x": [1, {"y": "}"}]}}';
    const fields = topLevelFields(text);
    expect(fields).not.toBeNull();
    const span = fields?.get('nested');
    expect(text.slice(span?.start, span?.end)).toBe('{"x": [1, {"y": "}"}]}');
    expect(text.slice(fields?.get('exit_code')?.start, fields?.get('exit_code')?.end)).toBe('0');
  });

  it.each(['', '[1,2]', '{"a": 1', '{"a" 1}', '{"a": 1} trailing', 'plain text'])('answers null for %j', (text) => {
    expect(topLevelFields(text)).toBeNull();
  });
});

describe('envelopes', () => {
  it('gives strategies the output inside a Hermes terminal result and keeps every other byte', () => {
    const raw = '{"output": "line one\\nline two", "exit_code": 0, "error": null}';
    const env = parseEnvelope(raw, { tool: 'terminal', args: { command: 'make' } });
    expect(env.output.text).toBe('line one\nline two');
    expect(env.output.kind).toBe('log');
    expect(env.output.isError).toBe(false);
    expect(env.withText('short')).toBe('{"output": "short", "exit_code": 0, "error": null}');
  });

  it('reads a non-zero exit code or an error field as a failure', () => {
    expect(
      parseEnvelope('{"output": "x", "exit_code": 2, "error": null}', { tool: 'terminal', args: {} }).output.isError,
    ).toBe(true);
    expect(
      parseEnvelope('{"output": "", "exit_code": 0, "error": "timeout"}', { tool: 'terminal', args: {} }).output
        .isError,
    ).toBe(true);
    expect(
      parseEnvelope('{"output": "", "exit_code": 0, "error": ""}', { tool: 'terminal', args: {} }).output.isError,
    ).toBe(false);
  });

  it('strips read_file gutters for strategies and puts each kept line back with its own number', () => {
    const content = ['import os', 'def f():', '    return 1', 'x = 2'].map((l, i) => `${i + 1}|${l}`).join('\n');
    const raw = JSON.stringify({ content, total_lines: 4 });
    const env = parseEnvelope(raw, { tool: 'read_file', args: { path: 'a.py' } });
    expect(env.output.kind).toBe('file');
    expect(env.output.path).toBe('a.py');
    expect(env.output.lines).toEqual(['import os', 'def f():', '    return 1', 'x = 2']);
    const rebuilt = JSON.parse(env.withPlan([0, 1, { marker: '    # ... 1 lines elided' }, 3])) as {
      content: string;
      total_lines: number;
    };
    expect(rebuilt.content).toBe('1|import os\n2|def f():\n    # ... 1 lines elided\n4|x = 2');
    expect(rebuilt.total_lines).toBe(4);
  });

  it('recognises Claude Code and SWE-agent gutters and file headers', () => {
    const claude = ['     1\u2192const a = 1;', '     2\u2192const b = 2;', '     3\u2192const c = 3;'].join('\n');
    expect(parseEnvelope(claude, { tool: 'Read', args: { file_path: '/x/a.ts' } }).output.lines[0]).toBe(
      'const a = 1;',
    );
    const swe = [
      '[File: /repo/m.py (120 lines total)]',
      '(0 more lines above)',
      '1:import os',
      '2:import re',
      '3:x = 1',
      '4:y = 2',
    ].join('\n');
    const env = parseEnvelope(swe, { tool: 'open', args: { command: 'open m.py' } });
    expect(env.output.kind).toBe('file');
    expect(env.output.path).toBe('/repo/m.py');
  });

  it('keeps CRLF line endings on kept lines and markers', () => {
    const env = parseEnvelope('a\r\nb\r\nc\r\nd', { tool: 'bash', args: {} });
    expect(env.withPlan([0, { marker: '... (2 lines omitted)' }, 3])).toBe('a\r\n... (2 lines omitted)\r\nd');
  });

  it('plans over search_files matches keep the envelope valid JSON', () => {
    const matches = Array.from({ length: 5 }, (_, i) => ({ path: `src/f${i}.ts`, line: i + 1, content: `hit ${i}` }));
    const raw = JSON.stringify({ total_count: 5, matches });
    const env = parseEnvelope(raw, { tool: 'search_files', args: { pattern: 'hit' } });
    expect(env.output.kind).toBe('search');
    const out = JSON.parse(env.withPlan([0, { marker: '... (3 lines omitted)' }, 4])) as {
      total_count: number;
      matches: unknown[];
    };
    expect(out.total_count).toBe(5);
    expect(out.matches).toEqual([matches[0], { omitted: '... (3 lines omitted)' }, matches[4]]);
  });

  it('treats a cat of one file through a shell as a file read, other commands as logs', () => {
    expect(parseEnvelope('x', { tool: 'terminal', args: { command: 'cat src/a.py' } }).output).toMatchObject({
      kind: 'file',
      path: 'src/a.py',
    });
    // Its lines are grep's hits: a search listing (kept whole like one), not a read nor a log.
    expect(parseEnvelope('x', { tool: 'terminal', args: { command: 'cat a.py | grep x' } }).output.kind).toBe('search');
    expect(parseEnvelope('x', { tool: 'terminal', args: { command: 'make 2>&1 | tail -50' } }).output.kind).toBe('log');
    expect(parseEnvelope('x', { tool: 'terminal', args: { command: 'cat logs/server.log' } }).output.kind).toBe('log');
    expect(parseEnvelope('x', { tool: 'web_search', args: { query: 'Next.js' } }).output.kind).toBe('text');
  });
});
