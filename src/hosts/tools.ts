/**
 * The tool vocabulary: what each tool name the agent hosts use stands for, one row per name
 * (lower case): Hermes, Claude Code, Codex, OpenCode, Gemini CLI, SWE-agent and mini-swe-agent,
 * and names many agents and MCP servers share. The envelope reader (shell and search outputs),
 * the file operations of stale reads (writes, edits, editor commands) and the protection rules
 * (tools whose output is never rewritten) read their names from here.
 *
 * A name missing here is still read by its words and arguments (file-reads.ts: `read_text_file`
 * is a read; shell-command.ts: a `command` argument that greps is a search): the table holds the
 * names a rule must not guess. `read`, `web` and `agent` rows are those the word rules already
 * recognise (test/hosts/tools.test.ts holds them to it); a host registered in hosts/index.ts may
 * add rows for names of its own.
 *
 * Invariant: one kind per name; a row's kind decides how its output is read, so adding a row
 * changes what HMC does with that tool (the replay figures show it).
 */

/** What a tool does, as far as HMC cares. */
export type ToolKind =
  /** Reads a file: its output is the file's lines. */
  | 'read'
  /** Writes a whole file (its output reports what changed). */
  | 'write'
  /** Patches part of a file (its output reports what changed). */
  | 'edit'
  /** An editor tool whose `command` argument says what it does (view, create, str_replace, insert). */
  | 'editor'
  /** Runs a command: its output is a log. */
  | 'shell'
  /** Searches or lists files: its output is a listing of hits. */
  | 'search'
  /** Fetches or searches the web: its output is a document. */
  | 'web'
  /** A subagent: its output is its report, prose. */
  | 'agent';

/** Who calls a name (`generic`: many agents and MCP servers). */
export type ToolHost =
  | 'hermes'
  | 'claude-code'
  | 'codex'
  | 'opencode'
  | 'gemini-cli'
  | 'swe-agent'
  | 'mini-swe-agent'
  | 'generic';

export interface ToolWord {
  /** The tool's name, lower case (Claude Code's `Bash` is `bash`). */
  name: string;
  kind: ToolKind;
  hosts: readonly ToolHost[];
  /** Its output reports what changed (and lint errors): no strategy ever rewrites it. */
  protected?: boolean;
}

function tools(
  kind: ToolKind,
  rows: Record<string, readonly ToolHost[]>,
  protectedNames: readonly string[] = [],
): ToolWord[] {
  return Object.entries(rows).map(([name, hosts]) => ({
    name,
    kind,
    hosts,
    ...(protectedNames.includes(name) ? { protected: true } : {}),
  }));
}

export const TOOLS: readonly ToolWord[] = [
  ...tools('shell', {
    terminal: ['hermes'],
    process: ['hermes'],
    bash: ['claude-code', 'opencode', 'swe-agent', 'mini-swe-agent'],
    shell: ['codex'],
    run: ['generic'],
    execute: ['generic'],
    exec: ['generic'],
    command: ['generic'],
    run_command: ['generic'],
    run_terminal_cmd: ['generic'],
    execute_command: ['generic'],
    python: ['generic'],
    sh: ['generic'],
  }),
  ...tools('search', {
    search_files: ['hermes'],
    grep: ['claude-code', 'opencode'],
    glob: ['claude-code', 'opencode', 'gemini-cli'],
    ls: ['claude-code'],
    list: ['opencode'],
    search_file_content: ['gemini-cli'],
    list_directory: ['gemini-cli'],
    search_dir: ['swe-agent'],
    search_file: ['swe-agent'],
    find_file: ['swe-agent'],
    search: ['generic'],
    find: ['generic'],
    rg: ['generic'],
    ripgrep: ['generic'],
    codebase_search: ['generic'],
    file_search: ['generic'],
    list_dir: ['generic'],
  }),
  ...tools(
    'write',
    {
      write_file: ['hermes', 'gemini-cli'],
      write: ['claude-code', 'opencode'],
      create: ['swe-agent'],
      create_file: ['generic'],
      file_write: ['generic'],
      writefile: ['generic'],
      write_to_file: ['generic'],
    },
    ['write_file'],
  ),
  ...tools(
    'edit',
    {
      patch: ['hermes', 'opencode'],
      edit: ['claude-code', 'opencode', 'swe-agent'],
      multiedit: ['claude-code'],
      notebookedit: ['claude-code'],
      apply_patch: ['codex'],
      replace: ['gemini-cli'],
      edit_file: ['generic'],
      multi_edit: ['generic'],
      str_replace: ['generic'],
      apply_diff: ['generic'],
      replace_in_file: ['generic'],
      insert: ['generic'],
      search_replace: ['generic'],
      edit_block: ['generic'],
      notebook_edit: ['generic'],
    },
    ['patch', 'edit_file', 'apply_patch', 'str_replace', 'multiedit'],
  ),
  ...tools('editor', {
    str_replace_editor: ['swe-agent'],
    str_replace_based_edit_tool: ['generic'],
    text_editor: ['generic'],
    editor: ['generic'],
  }),
  ...tools('read', {
    read_file: ['hermes', 'gemini-cli'],
    read: ['claude-code', 'opencode'],
    read_many_files: ['gemini-cli'],
    open: ['swe-agent'],
    view: ['generic'],
  }),
  ...tools('web', {
    web_search: ['hermes'],
    web_extract: ['hermes'],
    browser_navigate: ['hermes'],
    browser_snapshot: ['hermes'],
    webfetch: ['claude-code', 'opencode'],
    websearch: ['claude-code'],
    web_fetch: ['gemini-cli'],
    google_web_search: ['gemini-cli'],
  }),
  ...tools('agent', { delegate_task: ['hermes'], task: ['claude-code', 'opencode'] }),
];
