/**
 * The tool vocabulary (src/hosts/tools.ts) against what the code does with each name: a shell
 * tool's output is read as a log, a search tool's as a listing, a read's as the file, a write or
 * an edit is a file operation, a web tool or a subagent writes a document, and the tools that
 * report what changed are never rewritten.
 */
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/keys.js';
import { protectionFor } from '../../src/engine/session/protection.js';
import type { AgentHost } from '../../src/hosts/host.js';
import { HOSTS, VOCABULARY, toolKind } from '../../src/hosts/index.js';
import { parseEnvelope } from '../../src/hosts/outputs/envelope.js';
import { TOOLS, type ToolKind } from '../../src/hosts/tools.js';
import { isDocument } from '../../src/strategies/shared/documents.js';
import { fileOpOf } from '../../src/strategies/shared/file-ops.js';

const rows = (kind: ToolKind) => VOCABULARY.filter((w) => w.kind === kind);

describe('the tool vocabulary', () => {
  it('has one lower-case row per name, and no host re-kinds a shared name', () => {
    const names = VOCABULARY.map((w) => w.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toBe(name.toLowerCase());
    const shared = new Set(TOOLS.map((w) => w.name));
    for (const host of HOSTS as readonly AgentHost[])
      for (const w of host.tools ?? []) expect(shared.has(w.name), `${host.name}: ${w.name}`).toBe(false);
  });

  it('looks names up in any case (Claude Code writes Bash, Read, Edit)', () => {
    expect(toolKind('Bash')).toBe('shell');
    expect(toolKind('MultiEdit')).toBe('edit');
    expect(toolKind('mcp_unknown_tool')).toBeUndefined();
  });

  it('reads a shell tool’s output as a log and a search tool’s as a listing', () => {
    for (const { name } of rows('shell'))
      expect(parseEnvelope('step 1\nstep 2', { tool: name, args: {} }).output.kind, name).toBe('log');
    for (const { name } of rows('search'))
      expect(parseEnvelope('src/a.ts:1: x\nsrc/b.ts:2: y', { tool: name, args: {} }).output.kind, name).toBe('search');
  });

  it('reads a read tool’s output as the file it names', () => {
    for (const { name } of rows('read')) {
      const output = parseEnvelope('import os\nprint(os.name)', { tool: name, args: { path: 'src/app.py' } }).output;
      expect(output.kind, name).toBe('file');
      expect(output.path, name).toBe('src/app.py');
    }
  });

  it('takes a write for a whole-file write, an edit for a patch, an editor by its command', () => {
    const op = (tool: string, args: Record<string, unknown>) =>
      fileOpOf({ tool, args, text: 'ok', lines: ['ok'], kind: 'text', isError: false });
    for (const { name } of rows('write')) expect(op(name, { path: 'a.py' })?.op, name).toBe('write');
    for (const { name } of rows('edit')) expect(op(name, { path: 'a.py' })?.op, name).toBe('patch');
    for (const { name } of rows('editor'))
      expect(op(name, { path: 'a.py', command: 'create' })?.op, name).toBe('write');
  });

  it('takes a web tool’s or a subagent’s text for a document', () => {
    for (const { name } of [...rows('web'), ...rows('agent')]) {
      expect(
        isDocument({ tool: name, args: {}, text: 'A page.', lines: ['A page.'], kind: 'text', isError: false }),
        name,
      ).toBe(true);
    }
  });

  it('never lets a strategy touch the tools marked protected', () => {
    const protection = protectionFor(defaultConfig());
    const marked = VOCABULARY.filter((w) => w.protected === true);
    expect(marked.length).toBeGreaterThan(0);
    for (const { name } of marked) expect(protection.tool(name), name).toBe(true);
  });
});
