/**
 * The in-process host applies a view in place and restores the very values it replaced: content,
 * and an assistant message's list of calls (input clearing); an edit that would change a call's
 * id, type, name or order is refused, and nothing else is touched.
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import { InProcessHost } from '../../src/hosts/in-process.js';
import { engine } from '../helpers/conversation.js';

function conversation(): Message[] {
  return [
    { role: 'user', content: 'go' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'a',
          type: 'function',
          function: { name: 'Write', arguments: '{"file_path":"x","content":"long text"}' },
        },
      ],
    },
    { role: 'tool', tool_call_id: 'a', content: 'File created' },
  ];
}

describe('InProcessHost', () => {
  it('applies a tool_calls edit for one view and puts the very list back', () => {
    const host = new InProcessHost(engine());
    const messages = conversation();
    const list = messages[1]?.tool_calls;
    const short = [{ id: 'a', type: 'function', function: { name: 'Write', arguments: '{"file_path":"x"}' } }];
    host.apply('S', messages, [
      { index: 1, tool_calls: short },
      { index: 2, content: 'ok' },
    ]);
    expect(messages[1]?.tool_calls).toBe(short);
    expect(messages[1]?.content).toBeNull();
    expect(messages[2]?.content).toBe('ok');
    host.restore('S');
    expect(messages[1]?.tool_calls).toBe(list);
    expect(messages).toEqual(conversation());
    expect(Object.keys(messages[1] as object)).toEqual(['role', 'content', 'tool_calls']);
  });

  it('refuses a tool_calls edit that changes a call, and leaves the message as it was', () => {
    const host = new InProcessHost(engine());
    const messages = conversation();
    const list = messages[1]?.tool_calls;
    host.apply('S', messages, [
      { index: 1, tool_calls: [{ id: 'b', type: 'function', function: { name: 'Write', arguments: '{}' } }] },
    ]);
    expect(messages[1]?.tool_calls).toBe(list);
    host.restore('S');
    expect(messages).toEqual(conversation());
  });
});
