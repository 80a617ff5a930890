import { describe, expect, it } from 'vitest';
import { parseEnvelope } from '../../../src/hosts/outputs/envelope.js';
import { fileOpOf, normalizePath, samePath } from '../../../src/strategies/shared/file-ops.js';

const op = (tool: string, args: Record<string, unknown>, output = 'ok') =>
  fileOpOf(parseEnvelope(output, { tool, args }).output);
const numbered = (from: number, n: number, gutter = (k: number) => `${k}|`) =>
  Array.from({ length: n }, (_, i) => `${gutter(from + i)}line ${from + i}`).join('\n');

describe('file operations of a tool call', () => {
  const cases: [string, string, Record<string, unknown>, string, unknown][] = [
    [
      'a Hermes read_file shows the lines of its gutter',
      'read_file',
      { path: 'src/a.py' },
      JSON.stringify({ content: numbered(40, 20) }),
      { op: 'read', path: 'src/a.py', span: { first: 40, last: 59 } },
    ],
    [
      'a Claude Code Read shows its arrow-numbered lines',
      'Read',
      { file_path: '/w/src/a.ts' },
      numbered(1, 12, (k) => `${String(k).padStart(6)}\u2192`),
      { op: 'read', path: '/w/src/a.ts', span: { first: 1, last: 12 } },
    ],
    [
      'a Hermes write_file rewrites the whole file',
      'write_file',
      { path: 'src/a.py', content: 'x' },
      '{"bytes_written": 3}',
      { op: 'write', paths: ['src/a.py'] },
    ],
    [
      'a Claude Code Edit patches its file',
      'Edit',
      { file_path: 'src/a.ts', old_string: 'a', new_string: 'b' },
      'ok',
      { op: 'patch', paths: ['src/a.ts'] },
    ],
    [
      'an apply_patch names every file it touches',
      'apply_patch',
      { input: '*** Begin Patch\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** Add File: src/b.ts\n+x\n*** End Patch' },
      'Done',
      { op: 'patch', paths: ['src/a.ts', 'src/b.ts'] },
    ],
    [
      'a Codex shell apply_patch is a patch',
      'shell',
      { command: ['apply_patch', '*** Begin Patch\n*** Update File: lib/x.py\n*** End Patch'] },
      'Done',
      { op: 'patch', paths: ['lib/x.py'] },
    ],
    [
      'an editor create is a write',
      'str_replace_editor',
      { command: 'create', path: '/repo/a.py', file_text: 'x' },
      'File created',
      { op: 'write', paths: ['/repo/a.py'] },
    ],
    [
      'an editor str_replace is a patch',
      'str_replace_editor',
      { command: 'str_replace', path: '/repo/a.py', old_str: 'a', new_str: 'b' },
      'edited',
      { op: 'patch', paths: ['/repo/a.py'] },
    ],
    [
      'sed -i through a shell is a patch',
      'bash',
      { command: "sed -i 's/a/b/' src/a.py" },
      '',
      { op: 'patch', paths: ['src/a.py'] },
    ],
    [
      'a redirection through a shell is a write',
      'terminal',
      { command: 'echo hi > notes.txt' },
      '{"output": "", "exit_code": 0}',
      { op: 'write', paths: ['notes.txt'] },
    ],
    [
      'a redirection to /dev/null or a descriptor writes no file',
      'terminal',
      { command: 'make 2>&1 > /dev/null' },
      '{"output": "", "exit_code": 0}',
      null,
    ],
    [
      'a test run touches no file',
      'terminal',
      { command: 'pytest -q' },
      '{"output": "3 passed", "exit_code": 0}',
      null,
    ],
    [
      'a search result is no read',
      'search_files',
      { pattern: 'def' },
      JSON.stringify({ matches: [{ path: 'a.py', line: 1, content: 'def f():' }] }),
      null,
    ],
  ];
  for (const [name, tool, args, output, expected] of cases) {
    it(name, () => expect(op(tool, args, output)).toEqual(expected));
  }

  it('takes a read range from the arguments when the output has no line numbers', () => {
    expect(op('read_file', { path: 'a.md', offset: 10, limit: 5 }, 'plain text\nno gutter')).toEqual({
      op: 'read',
      path: 'a.md',
      span: { first: 10, last: 14 },
    });
    expect(op('view', { path: 'a.md', view_range: [3, -1] }, 'plain')).toEqual({
      op: 'read',
      path: 'a.md',
      span: { first: 3, last: Infinity },
    });
  });
});

describe('paths', () => {
  it('compares paths as the same file across ./, doubled slashes and the project root', () => {
    expect(normalizePath('./src//a.ts')).toBe('src/a.ts');
    expect(normalizePath('/work/proj/src/a.ts', '/work/proj')).toBe('src/a.ts');
    expect(samePath('/home/u/proj/src/a.ts', 'src/a.ts')).toBe(true);
    expect(samePath('/home/u/proj/src/a.ts', 'a.ts')).toBe(false);
    expect(samePath('src/a.ts', 'lib/a.ts')).toBe(false);
  });
});
