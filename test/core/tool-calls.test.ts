/**
 * The wire rule of a `tool_calls` edit (DESIGN §3): the same calls, ids, types, names and order,
 * each `arguments` a JSON object string. The same rule replay.py applies.
 */
import { describe, expect, it } from 'vitest';
import type { ToolCall } from '../../src/core/message.js';
import { toolCallsEditProblem } from '../../src/core/tool-calls.js';

const raw: ToolCall[] = [
  { id: 'a', type: 'function', function: { name: 'Write', arguments: '{"file_path":"x","content":"long"}' } },
  { id: 'b', type: 'function', function: { name: 'Read', arguments: '{"file_path":"y"}' } },
];

function with_(k: number, change: (c: ToolCall) => ToolCall): ToolCall[] {
  return raw.map((c, i) => (i === k ? change(c) : c));
}

describe('toolCallsEditProblem', () => {
  it('accepts the same calls with shorter object arguments', () => {
    expect(
      toolCallsEditProblem(
        raw,
        with_(0, (c) => ({ ...c, function: { name: 'Write', arguments: '{"file_path":"x"}' } })),
      ),
    ).toBeNull();
  });

  it.each([
    ['a list of another length', raw.slice(0, 1)],
    ['calls in another order', [raw[1], raw[0]]],
    ['another id', with_(0, (c) => ({ ...c, id: 'z' }))],
    ['another type', with_(0, (c) => ({ ...c, type: 'custom' }))],
    ['another name', with_(0, (c) => ({ ...c, function: { name: 'Edit', arguments: '{}' } }))],
    ['arguments that are not JSON', with_(0, (c) => ({ ...c, function: { name: 'Write', arguments: '{oops' } }))],
    ['arguments that are a JSON list', with_(0, (c) => ({ ...c, function: { name: 'Write', arguments: '[1]' } }))],
    [
      'arguments that are not a string',
      with_(0, (c) => ({ ...c, function: { name: 'Write', arguments: {} as unknown as string } })),
    ],
    ['a call that is not an object', [raw[0], 'b']],
    ['not a list', { 0: raw[0] }],
  ])('refuses %s', (_what, edited) => {
    expect(toolCallsEditProblem(raw, edited)).toEqual(expect.any(String));
  });
});
