/**
 * Edit echoes through the hooks (issue 25): an answered edit's output goes out without the snippet
 * of the file it echoes once the file was touched again or the call is old; never a failed edit,
 * never the current step, never a protected tool; recall gives the exact output back; a new
 * process sends the same bytes without a break; the same input gives the same views.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HmcConfig } from '../../src/config/keys.js';
import type { ModelCallEdit } from '../../src/core/host-api.js';
import type { Message, ToolCall } from '../../src/core/message.js';
import { checkView } from '../../src/engine/turn/invariants.js';
import { Engine } from '../../src/engine/engine.js';
import { NULL_SINK } from '../../src/events/types.js';
import { config, user } from '../helpers/conversation.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

/** Passes at once and often, clearing off, so the rule itself is what the tests see. */
function eager(patch: (c: HmcConfig) => void = () => {}): HmcConfig {
  return config((c) => {
    c.cache.first_break_after = 0;
    c.cache.max_breaks_per_100_calls = 100;
    c.cache.min_batch_tokens = 0;
    c.strategies.clearing.enabled = false;
    c.strategies.edit_echo.keep_calls = 2;
    patch(c);
  });
}

function newEngine(c: HmcConfig, stateDir: string | null = null): Engine {
  const e = new Engine({
    config: () => c,
    stateDir,
    sink: NULL_SINK,
    recorder: null,
    log: () => {},
    autoSettle: false,
  });
  e.hello({ host: 'replay-bench', protocol: 1 });
  return e;
}

const head = (path: string): string =>
  `The file ${path} has been updated. Here's the result of running \`cat -n\` on a snippet of the edited file:`;
/** Claude Code's answer to an Edit: the success line, then 60 numbered lines of the file (enough that a pass pays). */
function echo(path: string, n: number, lines = 60): string {
  return [
    head(path),
    ...Array.from(
      { length: lines },
      (_, i) => `${String(40 + i).padStart(6)}→  const value_${n}_${i} = compute(${i}); // step ${n}`,
    ),
  ].join('\n');
}

function edit(id: string, path: string): ToolCall {
  return {
    id,
    type: 'function',
    function: {
      name: 'Edit',
      arguments: JSON.stringify({ file_path: path, old_string: `old ${id}`, new_string: `new ${id}` }),
    },
  };
}

interface Step {
  calls: ToolCall[];
  results?: string[];
  errors?: boolean[];
}

/** Runs the steps through the hooks; returns the history and the view of every model call. */
function run(e: Engine, steps: readonly Step[], session = 'S'): { history: Message[]; views: ModelCallEdit[][] } {
  const history: Message[] = [{ role: 'system', content: 'agent' }, user('edit it')];
  const views: ModelCallEdit[][] = [];
  steps.forEach((step, s) => {
    views.push(e.preModelCall({ session_id: session, messages: history }).edits);
    history.push({ role: 'assistant', content: '', tool_calls: step.calls });
    step.calls.forEach((c, k) => {
      const args = JSON.parse(c.function?.arguments ?? '{}') as { file_path: string };
      const result = step.results?.[k] ?? echo(args.file_path, s);
      const isError = step.errors?.[k] === true;
      e.preToolCall({
        session_id: session,
        tool_name: c.function?.name ?? '',
        args: c.function?.arguments,
        tool_call_id: c.id,
      });
      e.postToolCall({
        session_id: session,
        tool_name: c.function?.name ?? '',
        args: c.function?.arguments,
        result,
        tool_call_id: c.id,
        is_error: isError,
      });
      history.push({
        role: 'tool',
        tool_call_id: c.id,
        name: c.function?.name,
        content: result,
        ...(isError ? { is_error: true } : {}),
      });
    });
  });
  views.push(e.preModelCall({ session_id: session, messages: history }).edits);
  return { history, views };
}

/** The tool_call_ids whose output a view sends without its snippet. */
function echoed(history: readonly Message[], edits: readonly ModelCallEdit[]): string[] {
  return edits
    .filter((x) => x.content?.includes('Snippet of the edited file'))
    .map((x) => history[x.index]?.tool_call_id ?? '');
}

const last = <T>(xs: readonly T[]): T => xs[xs.length - 1] as T;
/** Edits of six files, one each. */
const SIX: Step[] = Array.from({ length: 6 }, (_, i) => ({ calls: [edit(`e${i}`, `/repo/src/f${i}.ts`)] }));

describe('edit echoes through the hooks', () => {
  it('sends answered edits older than the last keep_calls without their snippet, keeping the success line and path', () => {
    const c = eager();
    const { history, views } = run(newEngine(c), SIX);
    expect(echoed(history, last(views))).toEqual(['e0', 'e1', 'e2', 'e3']);
    expect(checkView(history, last(views), c)).toEqual([]);
    const sent = last(views).find((x) => history[x.index]?.tool_call_id === 'e0')?.content as string;
    expect(sent.split('\n')).toEqual([
      head('/repo/src/f0.ts'),
      expect.stringMatching(
        /^\[Snippet of the edited file \(lines 40-99\) left out to save context; read the file for its current text \(recall id=r[0-9a-f]{10}\)\]$/,
      ),
    ]);
  });

  it('a later edit of the same file supersedes an earlier one within the calls kept whole', () => {
    const c = eager((x) => (x.strategies.edit_echo.keep_calls = 50));
    // The first output is big, the later ones small: the pass pays for its break at once.
    const big = [echo('/repo/x.ts', 0, 400)];
    const small = (path: string): string[] => [echo(path, 1, 4)];
    const steps = [
      { calls: [edit('a', '/repo/x.ts')], results: big },
      { calls: [edit('b', '/repo/y.ts')], results: small('/repo/y.ts') },
      { calls: [edit('c', '/repo/x.ts')], results: small('/repo/x.ts') },
      { calls: [edit('d', '/repo/z.ts')], results: small('/repo/z.ts') },
    ];
    const { history, views } = run(newEngine(c), steps);
    expect(echoed(history, last(views))).toEqual(['a']);
  });

  it('never takes a failed edit, whether the host or its output says so', () => {
    const c = eager();
    const failedWords = `Error: the edit was rejected\n${echo('/repo/src/f1.ts', 1)}`;
    const steps = SIX.map((s, i) =>
      i === 0 ? { ...s, errors: [true] } : i === 1 ? { ...s, results: [failedWords] } : s,
    );
    const { history, views } = run(newEngine(c), steps);
    expect(echoed(history, last(views))).toEqual(['e2', 'e3']);
    expect(checkView(history, last(views), c)).toEqual([]);
  });

  it("never takes SWE-agent's failed edit (its windows echo the file, its words say the edit was not applied)", () => {
    const c = eager();
    const window = (from: number): string[] => [
      '[File: /repo/t.py (80 lines total)]',
      ...Array.from({ length: 40 }, (_, i) => `${from + i}:    value_${i} = compute(${i})`),
    ];
    const rejected = [
      'Your proposed edit has introduced new syntax error(s). Please read this error message carefully and then retry editing the file.',
      'ERRORS:',
      '- E999 IndentationError: unexpected indent',
      'This is how your edit would have looked if applied',
      '-------------------------------------------------',
      ...window(1),
      '-------------------------------------------------',
      'Your changes have NOT been applied. Please fix your edit command and try again.',
    ].join('\n');
    const applied = [
      'Replaced 1 occurrences. Please review the changes and make sure they are correct',
      ...window(1),
      '(Open file: /repo/t.py)',
      'bash-$',
    ].join('\n');
    const swe = (id: string): ToolCall => ({
      id,
      type: 'function',
      function: { name: 'edit', arguments: JSON.stringify({ command: `edit 3:4 ${id}` }) },
    });
    const steps = Array.from({ length: 6 }, (_, i) => ({
      calls: [swe(`s${i}`)],
      results: [i % 2 === 0 ? rejected : applied.replace('compute', `compute_${i}`)],
    }));
    const { history, views } = run(newEngine(c), steps);
    expect(echoed(history, last(views))).toEqual(['s1', 's3']);
    expect(checkView(history, last(views), c)).toEqual([]);
  });

  it("takes an edit whose snippet mentions errors: the file's text is no report of the edit's", () => {
    // Failed before: any failure word in the output kept it whole (138 of 252 of the development corpus' echoing Claude Code edits).
    const c = eager();
    const code = (path: string): string =>
      `${echo(path, 0)}\n   100→  if (!ok) throw new Error('parse failed: ' + path);\n   101→  return ok;`;
    const steps = SIX.map((s, i) => ({ ...s, results: [code(`/repo/src/f${i}.ts`)] }));
    const { history, views } = run(newEngine(c), steps);
    expect(echoed(history, last(views))).toEqual(['e0', 'e1', 'e2', 'e3']);
    expect(checkView(history, last(views), c)).toEqual([]);
  });

  it('never takes the current step, even when a later call of it edited the same file', () => {
    const c = eager((x) => (x.strategies.edit_echo.keep_calls = 0));
    const steps = [
      { calls: [edit('a', '/repo/x.ts')], results: [echo('/repo/x.ts', 0, 400)] },
      {
        calls: [edit('b', '/repo/x.ts'), edit('c', '/repo/x.ts')],
        results: [echo('/repo/x.ts', 1, 4), echo('/repo/x.ts', 2, 4)],
      },
    ];
    const { history, views } = run(newEngine(c), steps);
    expect(echoed(history, last(views))).toEqual(['a']);
  });

  it('never takes a protected tool: one the user named, or an always-protected edit tool', () => {
    const mine = eager((x) => (x.compress.protected_tools = ['write_file', 'patch', 'Edit']));
    const a = run(newEngine(mine), SIX);
    expect(echoed(a.history, last(a.views))).toEqual([]);
    const multi = SIX.map((s) => ({
      calls: s.calls.map((call) => ({
        ...call,
        function: { name: 'MultiEdit', arguments: call.function?.arguments ?? '' },
      })),
    }));
    const b = run(newEngine(eager()), multi);
    expect(last(b.views)).toEqual([]);
  });

  it("never takes a shell command's output, even one that wrote a file: its numbered lines may be its program's own", () => {
    // Failed before: `cat > f.py << EOF … EOF && python f.py` is a write, and its program's numbered output was called the file's.
    const c = eager();
    const program = Array.from(
      { length: 300 },
      (_, i) => `${i + 1}: result ${i * i} of the simulation, converged`,
    ).join('\n');
    const bash = (id: string): ToolCall => ({
      id,
      type: 'function',
      function: {
        name: 'bash',
        arguments: JSON.stringify({ command: `cat > /repo/${id}.py << 'EOF'\nprint(1)\nEOF\npython /repo/${id}.py` }),
      },
    });
    const steps = Array.from({ length: 6 }, (_, i) => ({ calls: [bash(`b${i}`)], results: [`${program}\nrun ${i}`] }));
    const { history, views } = run(newEngine(c), steps);
    expect(echoed(history, last(views))).toEqual([]);
  });

  it('with edit_echo off, or when it would not be shorter, the output stays whole', () => {
    const off = run(newEngine(eager((x) => (x.strategies.edit_echo.enabled = false))), SIX);
    expect(echoed(off.history, last(off.views))).toEqual([]);
    const tiny = SIX.map((s) => ({
      ...s,
      results: [[head('/repo/a.ts'), '     1→a', '     2→b', '     3→c'].join('\n')],
    }));
    const small = run(newEngine(eager()), tiny);
    expect(echoed(small.history, last(small.views))).toEqual([]);
  });

  it('recall gives back the exact output', async () => {
    const e = newEngine(eager());
    const { history, views } = run(e, SIX);
    for (const x of last(views)) {
      const id = /recall id=(r[0-9a-f]{10})/.exec(x.content ?? '')?.[1];
      const answer = await e.control({ session_id: 'S', args: { action: 'recall', id } });
      expect(answer.content).toBe(history[x.index]?.content);
    }
  });

  it('recall gives back an edit output clearing took whole (its marker names a recall id)', async () => {
    // Failed before: an edit's output is numbered like a read, so no copy was kept for the id clearing printed.
    const c = eager((x) => {
      x.strategies.edit_echo.enabled = false;
      x.strategies.clearing.enabled = true;
      x.strategies.clearing.trigger_percent = 0.001;
      x.strategies.clearing.target_percent = 0.0001;
      x.strategies.clearing.keep = 1;
    });
    const e = newEngine(c);
    const { history, views } = run(e, SIX);
    const cleared = last(views).filter((x) => x.content?.includes('cleared to save context'));
    expect(cleared.length).toBeGreaterThan(0);
    for (const x of cleared) {
      const id = /recall id=(r[0-9a-f]{10})/.exec(x.content ?? '')?.[1];
      const answer = await e.control({ session_id: 'S', args: { action: 'recall', id } });
      expect(answer.content).toBe(history[x.index]?.content);
    }
  });

  it('the same conversation gives the same views, call after call', () => {
    const steps = [
      ...SIX,
      { calls: [edit('x', '/repo/src/f2.ts')] },
      ...SIX.map((s) => ({ calls: s.calls.map((call) => ({ ...call, id: `${call.id}b` })) })),
    ];
    const a = run(newEngine(eager()), steps);
    const b = run(newEngine(eager()), steps);
    expect(a.views).toEqual(b.views);
    expect(echoed(a.history, last(a.views)).length).toBeGreaterThan(0);
  });

  it('a new process sends the same bytes, and putting them back breaks no cache', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hmc-echo-'));
    dirs.push(dir);
    const c = eager();
    const first = newEngine(c, dir);
    const a = run(first, SIX);
    first.onSessionEnd({ session_id: 'S' });
    first.settle();
    await first.flushSaves();
    const second = newEngine(c, dir);
    const view = second.preModelCall({ session_id: 'S', messages: a.history }).edits;
    expect(view).toEqual(last(a.views));
    expect(second.sessions.get('S')?.counts.cacheBreaks).toBe(first.sessions.get('S')?.counts.cacheBreaks ?? -1);
  });
});
