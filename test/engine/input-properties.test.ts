/**
 * Properties of input clearing on random tool loops (issue 15; issue 25 added long commands,
 * subagent prompts and other tools' bulky arguments): every `tool_calls` edit keeps each
 * call's id, type, name and place with JSON object arguments, and passes the invariant checker
 * (answered, not failed, not the current step, not protected, shorter, paths kept); the recall id
 * of every cleared call gives back its exact arguments; restore stays exact; no rewrite of a
 * message already sent goes beyond the cache-break budget the price rule keeps.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { replaySession } from '../../src/app/replay.js';
import type { Message, ToolCall } from '../../src/core/message.js';
import { toolCallsEditProblem } from '../../src/core/tool-calls.js';
import { Engine } from '../../src/engine/engine.js';
import { breakBudget } from '../../src/engine/ledger/pass.js';
import { NULL_SINK } from '../../src/events/types.js';
import { config, recordViews } from '../helpers/conversation.js';

const PATHS = ['src/app.ts', 'src/util.ts', 'test/app.test.ts', 'notes.md'];

const text = fc
  .integer({ min: 0, max: 90 })
  .chain((lines) =>
    fc
      .array(
        fc.oneof(
          fc.constantFrom('const x = 1;', '  return y;', "print('EOF')", '"quoted" \\ back', 'ünïcode ✓'),
          fc.string({ maxLength: 50 }),
        ),
        { minLength: lines, maxLength: lines },
      )
      .map((ls) => ls.join('\n')),
  );

/** One call and how its result comes back. */
const callStep = fc.record({
  kind: fc.constantFrom('write', 'edit', 'heredoc', 'read', 'run', 'multiedit', 'script', 'agent', 'other'),
  path: fc.constantFrom(...PATHS),
  body: text,
  outcome: fc.constantFrom('ok', 'ok', 'ok', 'error-flag', 'error-text'),
});

type CallStep = typeof callStep extends fc.Arbitrary<infer T> ? T : never;

function toolCall(id: string, s: CallStep): { call: ToolCall; result: string } {
  const fail = s.outcome === 'error-text';
  const fn = (name: string, args: Record<string, unknown>): ToolCall => ({
    id,
    type: 'function',
    function: { name, arguments: JSON.stringify(args) },
  });
  switch (s.kind) {
    case 'write':
      return {
        call: fn('Write', { file_path: s.path, content: s.body }),
        result: fail ? 'Error: EACCES: permission denied' : `File created successfully at: ${s.path}`,
      };
    case 'edit':
      return {
        call: fn('Edit', {
          file_path: s.path,
          old_string: s.body,
          new_string: `${s.body}\n// changed`,
          replace_all: false,
        }),
        result: fail ? 'Error: String to replace not found in file.' : `The file ${s.path} has been updated.`,
      };
    case 'multiedit':
      return {
        call: fn('MultiEdit', {
          file_path: s.path,
          edits: [
            { old_string: s.body, new_string: 'x' },
            { old_string: 'a', new_string: 'b' },
          ],
        }),
        result: fail ? 'Error: edit failed' : `Applied 2 edits to ${s.path}`,
      };
    case 'heredoc':
      return {
        call: fn('Bash', {
          command: `cd /w && cat > ${s.path} << 'EOF'\n${s.body.replace(/^EOF$/gm, 'E0F')}\nEOF\nwc -l ${s.path}`,
          description: 'write it',
        }),
        result: fail ? 'bash: line 1: syntax error\nexit code 2' : `3 ${s.path}`,
      };
    // Issue 25: a long inline script, a subagent's prompt, another tool's bulky arguments.
    case 'script':
      return {
        call: fn('Bash', {
          command: `python3 -c "\n${s.body.replace(/"/g, "'")}\n" | tee /tmp/out.txt | head -50`,
          description: 'run a script',
        }),
        result: fail ? 'Traceback (most recent call last):\nNameError: x' : 'ok: 3 rows',
      };
    case 'agent':
      return {
        call: fn('Task', {
          description: 'explore',
          prompt: `Find where ${s.path} is used.\n${s.body}`,
          subagent_type: 'general-purpose',
        }),
        result: fail ? 'Error: the subagent failed' : `Found 3 uses of ${s.path}.`,
      };
    case 'other':
      return {
        call: fn('mcp__db__query', { sql: `SELECT *\nFROM t\nWHERE body = '${s.body.replace(/'/g, '"')}'`, limit: 10 }),
        result: fail ? 'ERROR: syntax error at or near' : '(2 rows)',
      };
    case 'read':
      return {
        call: fn('Read', { file_path: s.path }),
        result: s.body
          .split('\n')
          .map((l, i) => `${String(i + 1).padStart(6)}→${l}`)
          .join('\n'),
      };
    default:
      return {
        call: fn('Bash', { command: 'npm test' }),
        result: fail ? 'FAIL test/app.test.ts\nError: expected 1' : 'Tests: 4 passed',
      };
  }
}

/** A one-turn tool loop: each step is an assistant message with one to three calls, then their results. */
function loop(steps: readonly CallStep[][]): Message[] {
  const messages: Message[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'build it' },
  ];
  let n = 0;
  for (const step of steps) {
    const made = step.map((s) => ({ ...toolCall(`c${n++}`, s), error: s.outcome === 'error-flag' }));
    messages.push({ role: 'assistant', content: null, tool_calls: made.map((m) => m.call) });
    for (const m of made)
      messages.push({
        role: 'tool',
        tool_call_id: m.call.id,
        content: m.result,
        ...(m.error ? { is_error: true } : {}),
      });
  }
  messages.push({ role: 'assistant', content: 'done' });
  return messages;
}

const RECALL = /hmc_control action=recall id=(r[0-9a-f]{10})/;

describe('input clearing on random tool loops', () => {
  it('keeps the wire rule and every invariant, recalls exact arguments, restores exactly, within the break budget', async () => {
    const seen = { cleared: 0, recalled: 0, kinds: [] as string[] };
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(callStep, { minLength: 1, maxLength: 3 }), { minLength: 2, maxLength: 30 }),
        fc.record({
          keep: fc.integer({ min: 0, max: 6 }),
          firstAfter: fc.integer({ min: 0, max: 20 }),
          perHundred: fc.constantFrom(0, 1, 10, 50),
          minTokens: fc.constantFrom(0, 500),
          protect: fc.boolean(),
          minChars: fc.constantFrom(0, 400),
        }),
        async (steps, knobs) => {
          const c = config((x) => {
            x.strategies.input_clearing.keep_calls = knobs.keep;
            x.strategies.input_clearing.min_chars = knobs.minChars;
            x.cache.first_break_after = knobs.firstAfter;
            x.cache.max_breaks_per_100_calls = knobs.perHundred;
            x.cache.min_batch_tokens = knobs.minTokens;
            if (knobs.protect) x.compress.protected_tools = ['write_file', 'patch', 'Write'];
          });
          const engine = new Engine({
            config: () => c,
            stateDir: null,
            sink: NULL_SINK,
            recorder: null,
            log: () => {},
            autoSettle: false,
          });
          const messages = loop(steps);
          const views = recordViews(engine);
          const report = replaySession(messages, { engine, config: c, sessionId: 'P', contextLength: 400_000 });
          expect(report.invariant_violations).toEqual([]);
          expect(report.restore_exact).toBe(true);
          expect(report.cache_breaks).toBeLessThanOrEqual(
            breakBudget(report.model_calls, knobs.perHundred, knobs.firstAfter),
          );
          for (const view of views) {
            for (const edit of view) {
              if (edit.tool_calls === undefined) continue;
              const raw = messages[edit.index]?.tool_calls;
              expect(toolCallsEditProblem(raw, edit.tool_calls)).toBeNull();
              for (const [k, call] of edit.tool_calls.entries()) {
                const before = raw?.[k]?.function?.arguments;
                const after = call.function?.arguments ?? '';
                if (after === before) continue;
                seen.cleared++;
                if (!seen.kinds.includes(call.function?.name ?? '')) seen.kinds.push(call.function?.name ?? '');
                expect(typeof JSON.parse(after)).toBe('object');
                if (knobs.protect) expect(call.function?.name).not.toBe('Write');
                const id = RECALL.exec(after)?.[1];
                expect(id).toBeDefined();
                const answer = await engine.control({ session_id: 'P', args: { action: 'recall', id } });
                expect(answer.arguments).toBe(before);
                seen.recalled++;
              }
            }
          }
        },
      ),
      // Seeded: the kinds asserted below must be reached by the runs, and since a pass's break
      // point may leave a small change far back for a later pass (issue 25, pass.ts), 120 random
      // runs reached a subagent prompt's clearing in about 3 tries of 5 (the property held in all).
      { numRuns: 120, seed: 25 },
    );
    expect(seen.cleared, JSON.stringify(seen)).toBeGreaterThan(0);
    expect(seen.kinds.sort(), JSON.stringify(seen)).toEqual(expect.arrayContaining(['Bash', 'Task', 'mcp__db__query']));
    expect(seen.recalled).toBe(seen.cleared);
  });
});
