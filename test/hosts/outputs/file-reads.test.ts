/**
 * File reads as agents really receive them (issue 8 items 5 and 7): which tool results are reads,
 * where the file's own lines are between a tool's header and trailer, and what their line numbers
 * are; and the outputs that must never be taken for reads (search results, logs, web pages, an
 * edit's echo).
 */
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config/keys.js';
import { compressOutput } from '../../../src/engine/turn/compress.js';
import { parseEnvelope } from '../../../src/hosts/outputs/envelope.js';
import { toolWords } from '../../../src/hosts/outputs/file-reads.js';
import { shellRead } from '../../../src/hosts/outputs/shell-reads.js';
import { protectionFor } from '../../../src/engine/session/protection.js';

/** A TypeScript service of `n` methods, each with a 6-line body. */
function service(n = 12): string[] {
  const out = [
    "import { db } from '../../engine/db.js';",
    '',
    'export const RETRIES = 3;',
    '',
    'export class UserService {',
  ];
  for (let k = 0; k < n; k++) {
    out.push(
      `  async method${k}(id: string): Promise<User> {`,
      '    const row = await db.find(id);',
      '    if (!row) {',
      `      return null;`,
      '    }',
      '    const user = toUser(row);',
      '    return user;',
      '  }',
    );
  }
  out.push('}', '');
  return out;
}

const claude = (lines: readonly string[], first = 1): string =>
  lines.map((l, i) => `${String(i + first).padStart(6)}\u2192${l}`).join('\n');
const REMINDER =
  '\n\n<system-reminder>\nWhenever you read a file, you should consider whether it looks malicious. If it does, you MUST refuse to improve or augment the code.\n</system-reminder>\n';

const config = defaultConfig();
const ctx = { config, protection: protectionFor(config), manual: false, log: () => {} };

describe('numbered reads with a header or trailer', () => {
  it('regression: a Claude Code Read with its <system-reminder> trailer is filtered inside the numbers and keeps the trailer byte for byte', () => {
    const raw = claude(service()) + REMINDER;
    const env = parseEnvelope(raw, { tool: 'Read', args: { file_path: '/repo/src/user-service.ts' } });
    expect(env.output.kind).toBe('file');
    expect(env.output.fileLines).toEqual({ start: 0, end: service().length, first: 1, openEnd: false });
    const result = compressOutput(raw, { tool: 'Read', args: { file_path: '/repo/src/user-service.ts' } }, ctx);
    expect(result.content.length).toBeLessThan(raw.length * 0.7);
    expect(result.content.endsWith(REMINDER)).toBe(true);
    expect(result.content).toContain('    // … 6 lines elided (7–12)');
    expect(result.content).toContain('     6\u2192  async method0(id: string): Promise<User> {');
    expect(result.content).toContain('     3\u2192export const RETRIES = 3;');
  });

  it('reads SWE-agent windows: the header names the file, the gutter the numbers, "(N more lines below)" an open end', () => {
    const body = service();
    const raw = [
      '[File: /repo/src/user-service.ts (400 lines total)]',
      '(40 more lines above)',
      ...body.map((l, i) => `${i + 41}:${l}`),
      '(259 more lines below)',
      '(Open file: /repo/src/user-service.ts)',
      '(Current directory: /repo)',
      'bash-$',
    ].join('\n');
    const env = parseEnvelope(raw, { tool: 'open', args: { command: 'open src/user-service.ts 60' } });
    expect(env.output).toMatchObject({
      kind: 'file',
      path: '/repo/src/user-service.ts',
      fileLines: { start: 2, end: 2 + body.length, first: 41, openEnd: true },
    });
    expect(env.output.lines[0]).toBe('[File: /repo/src/user-service.ts (400 lines total)]');
    expect(env.output.lines[2]).toBe(body[0]);
  });

  it('reads Hermes read_file JSON: `N|` gutters, and `truncated: true` as an open end', () => {
    const body = service();
    const raw = JSON.stringify({
      content: body.map((l, i) => `${i + 1}|${l}`).join('\n'),
      total_lines: 900,
      truncated: true,
    });
    const env = parseEnvelope(raw, { tool: 'read_file', args: { path: 'src/user-service.ts' } });
    expect(env.output.fileLines).toEqual({ start: 0, end: body.length, first: 1, openEnd: true });
  });

  it('reads OpenCode <file> blocks with zero-padded gutters, keeping the wrapper', () => {
    const body = service(3);
    const raw = [
      '<file>',
      ...body.map((l, i) => `${String(i + 1).padStart(5, '0')}| ${l}`),
      '',
      "(File has more lines. Use 'offset' parameter to read beyond line 2000)",
      '</file>',
    ].join('\n');
    const env = parseEnvelope(raw, { tool: 'read', args: { filePath: '/repo/a.ts' } });
    expect(env.output).toMatchObject({
      kind: 'file',
      path: '/repo/a.ts',
      fileLines: { start: 1, end: 1 + body.length, first: 1, openEnd: true },
    });
    expect(env.output.lines[1]).toBe(body[0]);
  });

  it('reads str_replace_editor view output (cat -n gutters after a sentence)', () => {
    const body = service(3);
    const raw = [
      "Here's the result of running `cat -n` on /repo/a.ts:",
      ...body.map((l, i) => `${String(i + 1).padStart(6)}\t${l}`),
    ].join('\n');
    const env = parseEnvelope(raw, { tool: 'str_replace_editor', args: { command: 'view', path: '/repo/a.ts' } });
    expect(env.output).toMatchObject({
      kind: 'file',
      path: '/repo/a.ts',
      fileLines: { start: 1, end: 1 + body.length, first: 1 },
    });
  });
});

describe('reads through shells', () => {
  it.each([
    ['cat src/a.ts', { path: 'src/a.ts', firstLine: 1, openEnd: false }],
    ["cd /testbed && sed -n '190,215p' tests/test_x.py", { path: 'tests/test_x.py', firstLine: 190, openEnd: true }],
    [`bash -lc "sed -n '1,200p' src/core/client.ts"`, { path: 'src/core/client.ts', firstLine: 1, openEnd: true }],
    [['bash', '-lc', "nl -ba src/a.rs | sed -n '40,80p'"], { path: 'src/a.rs', firstLine: null, openEnd: true }],
    ['cat -n main.go', { path: 'main.go', firstLine: null, openEnd: false }],
    ['head -n 50 lib.rs', { path: 'lib.rs', firstLine: 1, openEnd: true }],
    ['tail -n +120 lib.rs', { path: 'lib.rs', firstLine: 120, openEnd: false }],
    ["cat a.py | sed -n '10,20p'", { path: 'a.py', firstLine: 10, openEnd: true }],
    // The end of a file, from a line whose number is unknown: a read (never cut as a log) the code filter leaves whole.
    ['tail -n 20 a.py', { path: 'a.py', firstLine: null, openEnd: false }],
    [
      'cat django/test/utils.py | head -300 | tail -150',
      { path: 'django/test/utils.py', firstLine: null, openEnd: true },
    ],
  ])('%j is a read', (command, expected) => {
    expect(shellRead(command)).toEqual(expected);
  });

  it.each([
    'cat a.py | grep x',
    'cat logs/server.log',
    'cat > fix.py << EOF',
    'grep -n foo a.py',
    'cat a.py b.py',
    'tail -f out.txt',
    'tail -n 20 logs/app.log',
    "sed -i 's/a/b/' a.py",
    'python a.py',
    'cat $(ls *.py)',
    'cat src/*.ts',
    'cd repo && make && cat a.py',
    'cat /proc/cpuinfo',
    'ls -la',
  ])('%j is not a read', (command) => {
    expect(shellRead(command)).toBeNull();
  });

  it('regression: a read of a JSON file through a shell is a read, not a tool envelope to cut as text', () => {
    const pkg = JSON.stringify(
      {
        name: 'app',
        version: '1.2.3',
        scripts: Object.fromEntries(
          Array.from({ length: 80 }, (_, i) => [`task${i}`, `node scripts/task${i}.js --flag`]),
        ),
      },
      null,
      2,
    );
    const call = { tool: 'shell', args: { command: "bash -lc 'cat package.json'" } };
    expect(parseEnvelope(pkg, call).output).toMatchObject({ kind: 'file', path: 'package.json' });
    expect(compressOutput(pkg, call, ctx).content).toBe(pkg);
  });

  it('takes mini-swe-agent output out of its <returncode>/<output> wrapper, numbered from the sed range', () => {
    const body = ['def f(a):', '    return a', ''];
    const raw = ['<returncode>0</returncode>', '<output>', ...body, '</output>'].join('\n');
    const env = parseEnvelope(raw, {
      tool: 'bash',
      args: { command: "cd /testbed && sed -n '190,192p' astroid/x.py" },
    });
    expect(env.output).toMatchObject({
      kind: 'file',
      path: 'astroid/x.py',
      fileLines: { start: 2, end: 5, first: 190, openEnd: true },
    });
  });
});

describe('reads through tools with generic names', () => {
  const numbered = claude(service(3));
  it.each([
    ['view', { path: '/repo/a.ts' }],
    ['filesystem__read_file', { path: '/repo/a.ts' }],
    ['mcp__fs__read_text_file', { path: '/repo/a.ts' }],
    ['github.get_file_contents', { path: 'src/a.ts', owner: 'o', repo: 'r' }],
    ['ReadFile', { absolute_path: '/repo/a.ts' }],
    ['text_editor', { command: 'view', path: '/repo/a.ts' }],
    ['source_viewer', { file: '/repo/a.ts' }],
  ])('%s is a read', (tool, args) => {
    expect(parseEnvelope(numbered, { tool, args }).output).toMatchObject({
      kind: 'file',
      path: expect.stringContaining('a.ts'),
    });
  });

  it('read_many_files is a read of several files (never truncated as a log), with no single path', () => {
    const out = parseEnvelope('--- a.ts ---\nconst a = 1;\n--- b.ts ---\nconst b = 2;', {
      tool: 'read_many_files',
      args: { paths: ['a.ts', 'b.ts'] },
    }).output;
    expect(out.kind).toBe('file');
    expect(out.path).toBeUndefined();
  });

  it('splits tool names into words after any MCP server prefix', () => {
    expect(toolWords('mcp__filesystem__read_text_file')).toEqual(['read', 'text', 'file']);
    expect(toolWords('github.getFileContents')).toEqual(['get', 'file', 'contents']);
  });

  it.each([
    ['grep', { pattern: 'x', path: 'src/a.ts' }, '12:const a = 1;\n13:const b = 2;\n14:const c = 3;'],
    ['search_file', { path: 'src/a.ts' }, numbered],
    ['web_fetch', { url: 'https://x.dev/a.ts' }, numbered],
    ['read_url', { url: 'https://x.dev' }, numbered],
    ['view_image', { path: 'a.png' }, numbered],
    ['list_directory', { path: '/repo' }, numbered],
    ['bash', { command: 'grep -rn foo src' }, 'src/a.ts:1:foo\nsrc/a.ts:2:foo\nsrc/a.ts:3:foo'],
    ['terminal', { command: 'tail -n 50 logs/app.log' }, '1: started\n2: ready\n3: done'],
  ])('%s is not a read', (tool, args, output) => {
    const out = parseEnvelope(output, { tool, args }).output;
    expect(out.kind === 'file' && out.path !== undefined).toBe(false);
  });

  it("an edit's echo of the file (SWE-agent edit, Claude Code Edit) is kept whole, never code-filtered", () => {
    const echo =
      "The file /repo/a.ts has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n" +
      claude(service(6));
    for (const tool of ['Edit', 'edit', 'str_replace_based_edit_tool', 'MultiEdit']) {
      const env = parseEnvelope(echo, { tool, args: { file_path: '/repo/a.ts' } });
      expect(env.output.kind).toBe('file');
      expect(env.output.path).toBeUndefined();
      expect(compressOutput(echo, { tool, args: { file_path: '/repo/a.ts' } }, ctx).content).toBe(echo);
    }
  });
});
