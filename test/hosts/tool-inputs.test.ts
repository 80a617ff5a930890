/**
 * What a call's arguments carry when it writes a file, for the agents of the corpora: Hermes,
 * Claude Code, Codex, OpenCode, Gemini CLI, SWE-agent and mini-swe-agent (input clearing, issue 15).
 */
import { describe, expect, it } from 'vitest';
import { bulkInputOf, fileInputOf } from '../../src/hosts/tool-inputs.js';

const BODY = Array.from({ length: 12 }, (_, i) => `line ${i} of the new text`).join('\n');

describe('fileInputOf', () => {
  it.each([
    ['write_file', { path: 'src/a.py', content: BODY }, 'write', ['src/a.py'], ['content']],
    [
      'patch',
      { mode: 'replace', path: 'src/a.py', old_string: BODY, new_string: `${BODY}!` },
      'edit',
      ['src/a.py'],
      ['old_string', 'new_string'],
    ],
    [
      'patch',
      { mode: 'patch', patch: `*** Begin Patch\n*** Update File: src/b.py\n@@\n-${BODY}\n+x\n*** End Patch` },
      'edit',
      ['src/b.py'],
      ['patch'],
    ],
    ['Write', { file_path: '/r/a.ts', content: BODY }, 'write', ['/r/a.ts'], ['content']],
    [
      'Edit',
      { file_path: '/r/a.ts', old_string: BODY, new_string: 'x', replace_all: false },
      'edit',
      ['/r/a.ts'],
      ['old_string'],
    ],
    [
      'MultiEdit',
      {
        file_path: '/r/a.ts',
        edits: [
          { old_string: BODY, new_string: 'y' },
          { old_string: 'a', new_string: 'b' },
        ],
      },
      'edit',
      ['/r/a.ts'],
      ['edits'],
    ],
    [
      'apply_patch',
      { input: `*** Begin Patch\n*** Add File: docs/x.md\n+${BODY}\n*** End Patch` },
      'edit',
      ['docs/x.md'],
      ['input'],
    ],
    [
      'str_replace_editor',
      { command: 'create', path: '/t/new.py', file_text: BODY },
      'write',
      ['/t/new.py'],
      ['file_text'],
    ],
    [
      'str_replace_editor',
      { command: 'str_replace', path: '/t/new.py', old_str: BODY, new_str: 'z' },
      'edit',
      ['/t/new.py'],
      ['old_str'],
    ],
    ['edit', { command: `edit 4:9\n${BODY}\nend_of_edit` }, 'edit', [], ['command']],
    ['insert', { text: BODY }, 'edit', [], ['text']],
    [
      'replace',
      { file_path: 'a.go', old_string: BODY, new_string: BODY },
      'edit',
      ['a.go'],
      ['old_string', 'new_string'],
    ],
  ])('%s: kind, paths and bulk', (tool, args, kind, paths, bulk) => {
    const input = fileInputOf(tool, args);
    expect(input?.kind).toBe(kind);
    expect(input?.paths).toEqual(paths);
    expect(input?.bulk.map((b) => b.key)).toEqual(bulk);
  });

  it('gives each bulky argument its lines and characters (a list: its items)', () => {
    const input = fileInputOf('MultiEdit', {
      file_path: 'a',
      edits: [
        { old_string: BODY, new_string: 'y' },
        { old_string: 'a', new_string: 'b' },
      ],
    });
    expect(input?.bulk[0]).toMatchObject({ key: 'edits', items: 2 });
    expect(fileInputOf('Write', { file_path: 'a', content: BODY })?.bulk[0]).toEqual({
      key: 'content',
      lines: 12,
      chars: BODY.length,
    });
  });

  it("keeps the header and end of SWE-agent's edit command as its outline", () => {
    expect(fileInputOf('edit', { command: `edit 4:9\n${BODY}\nend_of_edit` })?.outline).toBe(
      'edit 4:9\n…\nend_of_edit',
    );
  });

  it.each([
    [
      'terminal',
      { command: `cd /w && cat > t.py << 'EOF'\n${BODY}\nEOF\npython t.py` },
      "cd /w && cat > t.py << 'EOF'\n…\nEOF\npython t.py",
    ],
    ['bash', { command: `cat > t.py << 'EOF'\n${BODY}\nEOF` }, "cat > t.py << 'EOF'\n…\nEOF"],
    ['shell', { command: ['bash', '-lc', `cat > t.py <<'EOF'\n${BODY}\nEOF`] }, "cat > t.py <<'EOF'\n…\nEOF"],
    ['shell', { command: `bash -lc 'cat > t.py <<"EOF"\n${BODY}\nEOF'` }, 'cat > t.py <<"EOF"\n…\nEOF'],
  ])('%s: a here-document writing a file is a shell write, its outline without the body', (tool, args, outline) => {
    const input = fileInputOf(tool, args);
    expect(input?.kind).toBe('shell');
    expect(input?.paths).toEqual(['t.py']);
    expect(input?.bulk.map((b) => b.key)).toEqual(['command']);
    expect(input?.outline).toBe(outline);
    expect(input?.writes).toEqual([{ path: 't.py', lines: 12, chars: BODY.length + 1 }]);
  });

  it.each([
    ['Read', { file_path: 'a.ts' }],
    ['Bash', { command: 'npm test' }],
    ['Bash', { command: `python - <<'EOF'\n${BODY}\nEOF` }],
    ['Bash', { command: `python -c "${BODY}"` }],
    ['str_replace_editor', { command: 'view', path: '/t/a.py' }],
    ['Write', { file_path: 'a.ts', content: 'short' }],
    ['create', { command: 'create reproduce.py' }],
    ['apply_patch', { changes: [{ path: '/r/a.md', kind: 'add' }] }],
    ['TodoWrite', { todos: [{ content: BODY, status: 'pending' }] }],
  ])('%s %j writes no file by its arguments (or carries no bulk)', (tool, args) => {
    expect(fileInputOf(tool, args)).toBeNull();
  });
});

describe('bulkInputOf (issue 25: every answered call with bulky arguments)', () => {
  const script = `python3 -c "\nimport json\n${BODY}\nprint(json.dumps(rows))\n" | head -20`;
  it.each([
    ['Bash', { command: script, description: 'count rows' }, 'command', ['command'], 'python3 -c "…'],
    [
      'terminal',
      { command: `psql -c "${'SELECT id, name FROM users WHERE active; '.repeat(6)}"` },
      'command',
      ['command'],
      `psql -c "${'SELECT id, name FROM users WHERE active; '.repeat(6)}"`.slice(0, 160) + '…',
    ],
    [
      'Task',
      { description: 'explore', prompt: `Find every caller of load().\n${BODY}`, subagent_type: 'general-purpose' },
      'agent',
      ['prompt'],
      'Find every caller of load().…',
    ],
    ['delegate_task', { goal: `Write the migration.\n${BODY}` }, 'agent', ['goal'], 'Write the migration.…'],
    ['TodoWrite', { todos: [{ content: BODY, status: 'pending' }] }, 'other', ['todos'], undefined],
    ['mcp__db__query', { sql: `SELECT *\n${BODY}`, limit: 5 }, 'other', ['sql'], 'SELECT *…'],
  ])('%s: kind, bulk and outline', (tool, args, kind, bulk, outline) => {
    const input = bulkInputOf(tool, args);
    expect(input?.kind).toBe(kind);
    expect(input?.paths).toEqual([]);
    expect(input?.bulk.map((b) => b.key)).toEqual(bulk);
    expect(input?.outline).toBe(outline);
  });

  it('is fileInputOf for a call that writes a file', () => {
    const args = { command: `cat > t.py << 'EOF'\n${BODY}\nEOF` };
    expect(bulkInputOf('Bash', args)).toEqual(fileInputOf('Bash', args));
  });

  it.each([
    ['Read', { file_path: `/r/${'deep/'.repeat(20)}a.ts` }],
    ['Grep', { pattern: 'x'.repeat(100), path: 'src' }],
    ['hmc_control', { action: 'recall', id: 'r0123456789', query: 'q'.repeat(100) }],
    ['Bash', { command: 'npm test', description: 'run the tests' }],
    ['Edit', { file_path: 'a', old_string: 'x', new_string: 'y' }],
  ])("%s: never (reads, searches, HMC's own tool, small arguments, edits without bulk)", (tool, args) => {
    expect(bulkInputOf(tool, args)).toBeNull();
  });
});
