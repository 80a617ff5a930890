/**
 * Background work in slices (issue 19: a hook must not wait behind background work): the
 * accounting of a huge tool output is counted ahead in stretches, so one slice of background work
 * ends about one stretch (a few ms) after its deadline instead of counting the whole output at once.
 */
import { describe, expect, it } from 'vitest';
import { STRETCH } from '../../src/core/token-bounds.js';
import { Engine } from '../../src/engine/engine.js';
import type { Message } from '../../src/core/message.js';
import { NULL_SINK } from '../../src/events/types.js';
import { config } from '../helpers/conversation.js';
import { PATHOLOGICAL } from '../helpers/pathological.js';

const make = (name: string, size: number): string =>
  (PATHOLOGICAL.find((p) => p.name === name) as { make: (n: number) => string }).make(size);

describe('background work in slices', () => {
  it('works off the accounting of a 2 MB output one stretch at a time, not in one job', () => {
    const c = config();
    const engine = new Engine({
      config: () => c,
      stateDir: null,
      sink: NULL_SINK,
      recorder: null,
      log: () => {},
      autoSettle: false,
    });
    const output = make('one letter', 2 * 1024 * 1024);
    const messages: Message[] = [
      { role: 'user', content: 'fetch it' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'web_extract', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: output },
    ];
    engine.postToolCall({ session_id: 's', tool_name: 'web_extract', args: {}, result: output, tool_call_id: 'c1' });
    engine.preLlmCall({ session_id: 's', messages });
    // A deadline already past: each settle does the least work it can. Before, the whole output
    // was counted in one job, so a slice lasted as long as counting all 2 MB (1 to 1,200 ms by kind).
    let slices = 0;
    while (!engine.settle(0)) slices++;
    expect(slices).toBeGreaterThan((2 * 1024 * 1024) / STRETCH / 2);
    expect(engine.settle()).toBe(true);
  });
});
