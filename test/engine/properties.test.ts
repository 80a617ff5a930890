/**
 * Properties of the engine on random conversations and random outputs (DESIGN §4): restore is
 * exact, every view passes the invariant checker, no failure word is lost, protected tools are
 * untouched, a replacement is never longer than what it replaced.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compressOutput } from '../../src/engine/turn/compress.js';
import { protectionFor } from '../../src/engine/session/protection.js';
import { replaySession } from '../../src/app/replay.js';
import type { Message } from '../../src/core/message.js';
import { reportsFailure } from '../../src/strategies/shared/signals.js';
import { config, longLog, pythonSource, readFile, terminal } from '../helpers/conversation.js';

const TOOLS = ['terminal', 'read_file', 'search_files', 'write_file', 'patch', 'web_search', 'bash', 'open'];

const line = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.constantFrom(
    'error: boom',
    'FAILED tests/test_x.py::test_y',
    'Traceback (most recent call last):',
    '5 passed in 0.1s',
    'ok',
    '    return x',
    'def f(a):',
    '}',
    '{',
    'Permission denied',
    '日本語のログ 🎉',
    'src/a.ts:12:3 warning',
  ),
);
const text = fc
  .tuple(fc.array(line, { maxLength: 120 }), fc.constantFrom('\n', '\r\n'))
  .map(([ls, eol]) => ls.join(eol));

const output = fc.oneof(
  text,
  text.map((t) => terminal(t)),
  fc.tuple(text, fc.integer({ min: 0, max: 2 })).map(([t, code]) => terminal(t, code)),
  fc.constant(terminal(longLog())),
  fc.constant(readFile(pythonSource())),
  fc.constant(terminal('===== 12 passed in 0.52s =====')),
  fc.constant(terminal('Error: file already exists')),
);

const content = fc.oneof(
  { weight: 8, arbitrary: output },
  { weight: 1, arbitrary: fc.constant([{ type: 'text', text: 'multimodal part' }] as unknown) },
  { weight: 1, arbitrary: fc.constant(null as unknown) },
);

/** A conversation: turns of a user message, then tool calls with results, then a reply. */
const conversation = fc
  .array(
    fc.record({
      userText: fc.string({ maxLength: 40 }),
      calls: fc.array(
        fc.record({
          tool: fc.constantFrom(...TOOLS),
          arg: fc.constantFrom('a', 'b', 'src/app.py'),
          content,
          withId: fc.boolean(),
        }),
        { maxLength: 4 },
      ),
    }),
    { minLength: 1, maxLength: 8 },
  )
  .map((turns) => {
    const messages: Message[] = [{ role: 'system', content: 'system prompt' }];
    let n = 0;
    for (const turn of turns) {
      messages.push({ role: 'user', content: turn.userText });
      for (const call of turn.calls) {
        const id = `call_${n++}`;
        messages.push({
          role: 'assistant',
          content: '',
          tool_calls: [
            {
              id,
              type: 'function',
              function: { name: call.tool, arguments: JSON.stringify({ path: call.arg, command: call.arg }) },
            },
          ],
        });
        messages.push(
          call.withId
            ? { role: 'tool', tool_call_id: id, name: call.tool, content: call.content }
            : { role: 'tool', content: call.content },
        );
      }
      messages.push({ role: 'assistant', content: 'done' });
    }
    return messages;
  });

describe('engine properties', () => {
  it('restores every conversation exactly and keeps every invariant, whatever the config', () => {
    fc.assert(
      fc.property(
        conversation,
        fc.integer({ min: 1, max: 4 }),
        fc.boolean(),
        fc.boolean(),
        (messages, batch, normalize, docstrings) => {
          const c = config((x) => {
            x.cache.batch_turns = batch;
            x.strategies.deduplication.normalize = normalize;
            x.code_filter.preserve_docstrings = docstrings;
            x.strategies.purge_errors.turns = 1;
          });
          const report = replaySession(messages, { config: c });
          expect(report.invariant_violations).toEqual([]);
          expect(report.restore_exact).toBe(true);
          expect(report.input_tokens.hmc).toBeLessThanOrEqual(report.input_tokens.raw);
          const saved = Object.values(report.saved_by_strategy).reduce((a, b) => a + b, 0);
          expect(saved).toBeLessThanOrEqual(report.input_tokens.raw);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('never makes an output longer, never loses a failure, never touches a protected tool', () => {
    const c = config();
    const ctx = { config: c, protection: protectionFor(c), manual: false, log: () => {} };
    fc.assert(
      fc.property(output, fc.constantFrom(...TOOLS), fc.boolean(), (raw, tool, hostError) => {
        const result = compressOutput(raw, { tool, args: { path: 'src/app.py' }, hostError }, ctx);
        expect(result.content.length).toBeLessThanOrEqual(raw.length);
        if (result.content !== raw) expect(result.content.trim().length).toBeGreaterThan(0);
        if (reportsFailure(raw)) expect(reportsFailure(result.content)).toBe(true);
        if (tool === 'write_file' || tool === 'patch') expect(result.content).toBe(raw);
        let previous = raw.length;
        for (const step of result.steps) {
          expect(step.content.length).toBeLessThan(previous);
          previous = step.content.length;
        }
      }),
      { numRuns: 400 },
    );
  });
});
