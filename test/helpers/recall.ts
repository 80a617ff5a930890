/** Test helper: a summarised phase recalled whole, the way an agent pages through it. */
import { expect } from 'vitest';
import type { Engine } from '../../src/engine/engine.js';

/**
 * A phase's messages as an agent gets them back: page after page (`messages=A-B`), a message too
 * big for a page line range after line range (`message=N lines=A-B`); every answer small.
 */
export async function recallAll(e: Engine, session: string, id: string): Promise<unknown[]> {
  const got: unknown[] = [];
  let args: Record<string, unknown> | null = {};
  let text = '';
  for (let guard = 0; args && guard < 500; guard++) {
    const answer = await e.control({ session_id: session, args: { action: 'recall', id, ...args } });
    expect(answer.error).toBeUndefined();
    expect(JSON.stringify(answer).length).toBeLessThan(30_000);
    const next =
      typeof answer.next === 'string'
        ? Object.fromEntries(
            [...answer.next.matchAll(/(\w+)=(\S+)/g)].filter(([, k]) => k !== 'id').map(([, k, v]) => [k, v]),
          )
        : null;
    if (answer.message !== undefined) {
      text += (text ? '\n' : '') + String(answer.content);
      if (next) args = next;
      else {
        const {
          id: _id,
          phase: _phase,
          total_messages: _total,
          message,
          lines: _lines,
          total_lines: _totalLines,
          content: _content,
          ...fields
        } = answer;
        got.push({ ...fields, content: text });
        text = '';
        const after = Number(message) + 1;
        args =
          after <= Number(answer.total_messages) ? { messages: `${after}-${String(answer.total_messages)}` } : null;
      }
    } else {
      got.push(...(answer.messages as unknown[]));
      args = next;
    }
  }
  return got;
}
