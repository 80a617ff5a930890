/**
 * Input clearing through the hooks (issue 15): the bulky arguments of answered file writes, edits
 * and shell here-documents go out short in `pre_model_call`'s view, for a host that applies
 * `tool_calls` edits, and only there; never a failed call, the current step, a protected tool;
 * recall gives the exact arguments back; a new process sends the same bytes without a break.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HmcConfig } from '../../src/config/keys.js';
import type { ModelCallEdit } from '../../src/core/host-api.js';
import type { Message, ToolCall } from '../../src/core/message.js';
import { toolCallsEditProblem } from '../../src/core/tool-calls.js';
import { checkView } from '../../src/engine/turn/invariants.js';
import { Engine } from '../../src/engine/engine.js';
import { NULL_SINK } from '../../src/events/types.js';
import { config, user } from '../helpers/conversation.js';

const BODY = (n: number): string =>
  Array.from({ length: 40 }, (_, i) => `export const value_${n}_${i} = ${i}; // line ${i}`).join('\n');
const dirs: string[] = [];
afterEach(() => {
  // Retries: an engine's recall copies are written in the background, and a write landing while the
  // folder is removed made rmSync fail with ENOTEMPTY on a busy machine.
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

/** Passes are allowed at once and often, so the rule itself is what the tests see. */
function eager(patch: (c: HmcConfig) => void = () => {}): HmcConfig {
  return config((c) => {
    c.cache.first_break_after = 0;
    c.cache.max_breaks_per_100_calls = 100;
    c.cache.min_batch_tokens = 0;
    c.strategies.input_clearing.keep_calls = 2;
    patch(c);
  });
}

function newEngine(
  c: HmcConfig,
  hello: Parameters<Engine['hello']>[0] = { host: 'replay-bench', protocol: 1 },
  stateDir: string | null = null,
): Engine {
  const e = new Engine({
    config: () => c,
    stateDir,
    sink: NULL_SINK,
    recorder: null,
    log: () => {},
    autoSettle: false,
  });
  e.hello(hello);
  return e;
}

function call(id: string, name: string, args: Record<string, unknown>): ToolCall {
  return { id, type: 'function', function: { name, arguments: JSON.stringify(args) } };
}

function write(i: number): ToolCall {
  return call(`w${i}`, 'Write', { file_path: `/repo/src/f${i}.ts`, content: BODY(i) });
}

/** Runs `steps` (each an assistant message's calls and their results) through the hooks; returns every view. */
function run(
  e: Engine,
  steps: { calls: ToolCall[]; results?: string[]; errors?: boolean[] }[],
  session = 'S',
): { history: Message[]; views: ModelCallEdit[][]; turn: ModelCallEdit[][] } {
  const history: Message[] = [{ role: 'system', content: 'agent' }, user('build it')];
  const views: ModelCallEdit[][] = [];
  const turn = [e.preLlmCall({ session_id: session, messages: history }).edits];
  for (const step of steps) {
    views.push(e.preModelCall({ session_id: session, messages: history }).edits);
    history.push({ role: 'assistant', content: '', tool_calls: step.calls });
    step.calls.forEach((c, k) => {
      const result = step.results?.[k] ?? `File created successfully at: ${c.id}`;
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
  }
  views.push(e.preModelCall({ session_id: session, messages: history }).edits);
  turn.push(e.preLlmCall({ session_id: session, messages: [...history, user('next')] }).edits);
  return { history, views, turn };
}

/** The cleared call ids of a view. */
function cleared(history: readonly Message[], edits: readonly ModelCallEdit[]): string[] {
  const out: string[] = [];
  for (const edit of edits) {
    edit.tool_calls?.forEach((c, k) => {
      if (c.function?.arguments !== history[edit.index]?.tool_calls?.[k]?.function?.arguments) out.push(c.id ?? '');
    });
  }
  return out;
}

const STEPS = Array.from({ length: 8 }, (_, i) => ({ calls: [write(i)] }));

describe('input clearing through the hooks', () => {
  it('sends answered writes older than the last keep_calls with short arguments, in pre_model_call only', () => {
    const e = newEngine(eager());
    const { history, views, turn } = run(e, STEPS);
    const last = views[views.length - 1] as ModelCallEdit[];
    expect(cleared(history, last)).toEqual(['w0', 'w1', 'w2', 'w3', 'w4', 'w5']);
    expect(checkView(history, last, eager())).toEqual([]);
    // pre_llm_call's edits are applied in place on the stored history: never a call's arguments.
    for (const edits of turn) for (const edit of edits) expect(edit).not.toHaveProperty('tool_calls');
    const short = JSON.parse(last.find((x) => x.tool_calls)?.tool_calls?.[0]?.function?.arguments ?? '{}') as Record<
      string,
      unknown
    >;
    expect(short).toMatchObject({
      file_path: '/repo/src/f0.ts',
      cleared: { content: `40 lines, ${BODY(0).length} characters` },
    });
  });

  it('keeps every call of a multi-call message in its place, with its id, type and name', () => {
    const e = newEngine(eager());
    const steps = [
      { calls: [write(0), call('r0', 'Read', { file_path: '/repo/x.ts' }), write(1)], results: ['ok', '1→x', 'ok'] },
      ...STEPS.slice(2),
    ];
    const { history, views } = run(e, steps);
    const last = views[views.length - 1] as ModelCallEdit[];
    const edit = last.find((x) => x.index === 2) as ModelCallEdit;
    expect(toolCallsEditProblem(history[2]?.tool_calls, edit.tool_calls)).toBeNull();
    expect(edit.tool_calls?.[1]).toBe(history[2]?.tool_calls?.[1]);
    expect(cleared(history, [edit])).toEqual(['w0', 'w1']);
  });

  it('never clears a failed call, whether the host or its output says so', () => {
    const e = newEngine(eager());
    const steps = STEPS.map((s, i) =>
      i === 0 ? { ...s, errors: [true] } : i === 1 ? { ...s, results: ['Error: EACCES: permission denied'] } : s,
    );
    const { history, views } = run(e, steps);
    const ids = cleared(history, views[views.length - 1] as ModelCallEdit[]);
    expect(ids).not.toContain('w0');
    expect(ids).not.toContain('w1');
    expect(ids).toContain('w2');
  });

  it('never clears the current step, even when a later call of it superseded an earlier one', () => {
    const e = newEngine(eager((c) => (c.strategies.input_clearing.keep_calls = 0)));
    const { history, views } = run(e, [
      { calls: [write(0)] },
      { calls: [write(1), call('w1b', 'Write', { file_path: '/repo/src/f1.ts', content: BODY(9) })] },
    ]);
    const ids = cleared(history, views[views.length - 1] as ModelCallEdit[]);
    expect(ids).toEqual(['w0']);
  });

  it('clears a superseded write within the calls kept whole', () => {
    const e = newEngine(eager((c) => (c.strategies.input_clearing.keep_calls = 50)));
    const again = call('w0b', 'Write', { file_path: '/repo/src/f0.ts', content: BODY(7) });
    const { history, views } = run(e, [{ calls: [write(0)] }, { calls: [again] }, { calls: [write(3)] }]);
    const last = views[views.length - 1] as ModelCallEdit[];
    expect(cleared(history, last)).toEqual(['w0']);
    const short = JSON.parse(last.find((x) => x.tool_calls)?.tool_calls?.[0]?.function?.arguments ?? '{}') as Record<
      string,
      unknown
    >;
    expect(short.superseded_by).toBe('w0b');
  });

  it('never clears a tool the user protected; the default list (write_file, patch) protects their outputs only', () => {
    const mine = newEngine(eager((c) => (c.compress.protected_tools = ['write_file', 'patch', 'Write'])));
    const a = run(mine, STEPS);
    expect(cleared(a.history, a.views[a.views.length - 1] as ModelCallEdit[])).toEqual([]);
    const hermes = newEngine(eager());
    const steps = Array.from({ length: 6 }, (_, i) => ({
      calls: [call(`h${i}`, 'write_file', { path: `f${i}.py`, content: BODY(i) })],
      results: ['{"bytes_written": 900}'],
    }));
    const b = run(hermes, steps);
    expect(cleared(b.history, b.views[b.views.length - 1] as ModelCallEdit[])).toEqual(['h0', 'h1', 'h2', 'h3']);
  });

  it('clears the here-document of a shell write, keeping its outline', () => {
    const e = newEngine(eager());
    const steps = Array.from({ length: 5 }, (_, i) => ({
      calls: [call(`b${i}`, 'bash', { command: `cd /t && cat > t${i}.py << 'EOF'\n${BODY(i)}\nEOF\npython t${i}.py` })],
      results: ['<returncode>0</returncode>\n<output>ok</output>'],
    }));
    const { history, views } = run(e, steps);
    const last = views[views.length - 1] as ModelCallEdit[];
    // The newest calls whose clearing would not pay for its cache break wait (the price rule).
    expect(cleared(history, last).slice(0, 2)).toEqual(['b0', 'b1']);
    const short = JSON.parse(last.find((x) => x.tool_calls)?.tool_calls?.[0]?.function?.arguments ?? '{}') as Record<
      string,
      unknown
    >;
    expect(short).toMatchObject({
      outline: "cd /t && cat > t0.py << 'EOF'\n…\nEOF\npython t0.py",
      writes: { 't0.py': `40 lines, ${BODY(0).length + 1} characters` },
    });
  });

  it.each([
    [{ host: 'hermes', protocol: 1, capabilities: ['append', 'model_call'] }, false],
    [{ host: 'hermes', protocol: 1, capabilities: ['append', 'model_call', 'tool_calls'] }, true],
    [{ host: 'replay-bench', protocol: 1 }, true],
    [{ host: 'replay-bench', protocol: 1, capabilities: [] }, false],
    [{ host: 'someone', protocol: 1 }, false],
  ])('hello %j: tool_calls edits %s', (hello, expected) => {
    const e = newEngine(eager(), hello);
    const { views } = run(e, STEPS);
    expect(views.some((v) => v.some((x) => x.tool_calls !== undefined))).toBe(expected);
  });

  it('recall gives back the exact arguments of a cleared call', async () => {
    const e = newEngine(eager());
    const { history, views } = run(e, STEPS);
    const edit = (views[views.length - 1] as ModelCallEdit[]).find((x) => x.tool_calls) as ModelCallEdit;
    const short = JSON.parse(edit.tool_calls?.[0]?.function?.arguments ?? '{}') as { original: string };
    const id = /id=(r[0-9a-f]{10})/.exec(short.original)?.[1];
    const answer = await e.control({ session_id: 'S', args: { action: 'recall', id } });
    expect(answer).toEqual({ id, tool: 'Write', arguments: history[edit.index]?.tool_calls?.[0]?.function?.arguments });
  });

  it('a new process sends the same short arguments, and putting them back breaks no cache', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hmc-inputs-'));
    dirs.push(dir);
    const c = eager();
    const first = newEngine(c, { host: 'replay-bench', protocol: 1 }, dir);
    const a = run(first, STEPS);
    first.onSessionEnd({ session_id: 'S' });
    first.settle();
    await first.flushSaves();
    const second = newEngine(c, { host: 'replay-bench', protocol: 1 }, dir);
    const view = second.preModelCall({ session_id: 'S', messages: a.history }).edits;
    const before = a.views[a.views.length - 1] as ModelCallEdit[];
    expect(view.filter((x) => x.tool_calls)).toEqual(before.filter((x) => x.tool_calls));
    expect(second.sessions.get('S')?.counts.cacheBreaks).toBe(first.sessions.get('S')?.counts.cacheBreaks ?? -1);
    second.settle();
    await second.flushSaves();
  });

  it('answers a delta view whose tool_calls entries rebuild the complete view', () => {
    const e = newEngine(eager());
    const twin = newEngine(eager());
    const history: Message[] = [{ role: 'system', content: 'agent' }, user('go')];
    const held = new Map<number, ModelCallEdit>();
    let view = 0;
    for (const step of STEPS) {
      const answer = e.preModelCall({ session_id: 'S', messages: history, view });
      if (answer.since === undefined) held.clear();
      for (const i of answer.removed ?? []) held.delete(i);
      for (const edit of answer.edits) held.set(edit.index, edit);
      view = answer.view ?? 0;
      const complete = twin.preModelCall({ session_id: 'S', messages: history }).edits;
      expect([...held.values()].sort((x, y) => x.index - y.index)).toEqual(complete);
      history.push({ role: 'assistant', content: '', tool_calls: step.calls });
      for (const x of [e, twin])
        x.postToolCall({
          session_id: 'S',
          tool_name: 'Write',
          args: step.calls[0]?.function?.arguments,
          result: 'ok',
          tool_call_id: step.calls[0]?.id,
        });
      history.push({ role: 'tool', tool_call_id: step.calls[0]?.id, content: 'ok' });
    }
    expect([...held.values()].some((x) => x.tool_calls)).toBe(true);
  });
});
