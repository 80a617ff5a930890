/**
 * Issue 11, item 6: the live tool-call count ran one ahead of the store's, so the dashboard showed
 * two different counts for one session. The turn event read the count when its deferred job ran,
 * after tool calls that came later, which their own tool events counted again.
 */
import { describe, expect, it } from 'vitest';
import { LiveState } from '../../src/server/live-state.js';
import type { HmcEvent } from '../../src/events/types.js';
import { assistantCall, engine, RecordingSink, reply, terminal, toolResult, user } from '../helpers/conversation.js';
import { sessionRecord } from '../../src/engine/turn/events.js';

describe('the live tool-call count', () => {
  it('equals the count recorded for the session when hooks arrive before the accounting runs (regression: one ahead)', () => {
    const sink = new RecordingSink();
    const e = engine(undefined, sink);
    const messages = [user('build it')];
    // A turn starts, and a tool call lands before the deferred accounting ran (one stdin chunk).
    e.preLlmCall({ session_id: 'S', messages });
    e.postToolCall({
      session_id: 'S',
      tool_name: 'terminal',
      tool_call_id: 'c1',
      args: { command: 'make' },
      result: terminal('built'),
    });
    e.settle();
    messages.push(
      assistantCall('c1', 'terminal', { command: 'make' }),
      toolResult('c1', 'terminal', terminal('built')),
      reply('done'),
      user('again'),
    );
    e.preLlmCall({ session_id: 'S', messages });
    e.postToolCall({
      session_id: 'S',
      tool_name: 'terminal',
      tool_call_id: 'c2',
      args: { command: 'make test' },
      result: terminal('ok'),
    });
    e.settle();
    const live = new LiveState();
    sink.events.forEach((payload, i) => {
      live.apply({ ...payload, id: `p:${i}`, source: 'p', time: 1000 + i } as HmcEvent);
    });
    const s = e.sessions.get('S');
    expect(s ? sessionRecord(s).tool_calls : -1).toBe(2);
    expect(live.get('S')?.tool_calls).toBe(2);
  });
});
