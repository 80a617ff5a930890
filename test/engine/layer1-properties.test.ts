/**
 * Layer 1 on random conversations (issue 10): after every pass the wire stays valid (every view
 * passes the invariant checker: no latest user message, system prompt or protected output
 * summarised, ranges shorter than what they replace), the restore is exact, and every phase's
 * recall id gives back exactly the messages it stands for.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.js';
import { InProcessHost } from '../../src/hosts/in-process.js';
import { checkView } from '../../src/engine/turn/invariants.js';
import { safeJson } from '../../src/engine/session/hashing.js';
import type { Message } from '../../src/core/message.js';
import { NULL_SINK } from '../../src/events/types.js';
import type { Summariser, SummaryRequest, SummaryResult } from '../../src/summarise/types.js';
import { config, terminal } from '../helpers/conversation.js';
import { recallAll } from '../helpers/recall.js';

class Echo implements Summariser {
  count = 0;
  constructor(private readonly failEvery: number) {}
  async summarise(r: SummaryRequest): Promise<SummaryResult> {
    this.count++;
    if (this.failEvery > 0 && this.count % this.failEvery === 0)
      return { ok: false, reason: 'HTTP 500', retryable: true, tokensIn: 10 };
    return {
      ok: true,
      text: `## Goal\nwork of ${r.messages.length} messages`,
      topic: 'work',
      model: 'echo',
      tokensIn: 100,
      tokensOut: 10,
      redactions: 0,
    };
  }
}

const turn = fc.record({
  user: fc.string({ maxLength: 30 }),
  calls: fc.array(
    fc.record({
      tool: fc.constantFrom('terminal', 'read_file', 'write_file', 'search_files'),
      lines: fc.integer({ min: 1, max: 80 }),
      reply: fc.option(fc.string({ maxLength: 200 }), { nil: undefined }),
    }),
    { maxLength: 25 },
  ),
});

function conversation(
  turns: readonly { user: string; calls: readonly { tool: string; lines: number; reply: string | undefined }[] }[],
): Message[] {
  const out: Message[] = [{ role: 'system', content: 'agent' }];
  let n = 0;
  for (const t of turns) {
    out.push({ role: 'user', content: t.user });
    for (const c of t.calls) {
      const id = `c${n++}`;
      out.push({
        role: 'assistant',
        content: c.reply ?? '',
        tool_calls: [
          {
            id,
            type: 'function',
            function: { name: c.tool, arguments: JSON.stringify({ command: `x ${n}`, path: `f${n % 3}.py` }) },
          },
        ],
      });
      out.push({
        role: 'tool',
        tool_call_id: id,
        name: c.tool,
        content: terminal(Array.from({ length: c.lines }, (_, k) => `${n}:${k} ${'word '.repeat(10)}`).join('\n')),
      });
    }
    out.push({ role: 'assistant', content: 'done' });
  }
  return out;
}

describe('layer 1 on random conversations', () => {
  it('keeps the wire valid, the restore exact and every phase recallable, whatever the window and the failures', async () => {
    let phases = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(turn, { minLength: 1, maxLength: 5 }),
        fc.record({
          window: fc.integer({ min: 8_000, max: 80_000 }),
          turns: fc.integer({ min: 1, max: 3 }),
          calls: fc.integer({ min: 2, max: 10 }),
          failEvery: fc.constantFrom(0, 2, 3),
        }),
        async (turns, k) => {
          const c = config((x) => {
            x.cache.first_break_after = 0;
            x.cache.max_breaks_per_100_calls = 100;
            x.cache.min_batch_tokens = 0;
            x.background_compression.protect_recent_turns = k.turns;
            x.background_compression.protect_recent_calls = k.calls;
            x.background_compression.cooldown_calls = 1;
            x.background_compression.min_return = 0;
            // The echo's notes are short: a short limit lets the price rule expect short ones too, and
            // a low share lets small ranges through (this is about the mechanics, whatever pays).
            x.background_compression.max_summary_tokens = 200;
            x.background_compression.min_savings = 0.1;
          });
          const e = new Engine({
            config: () => c,
            stateDir: null,
            sink: NULL_SINK,
            recorder: null,
            log: () => {},
            autoSettle: false,
            summariser: () => new Echo(k.failEvery),
          });
          const host = new InProcessHost(e);
          const messages = conversation(turns);
          const before = messages.map((m) => safeJson(m));
          const live: Message[] = [];
          for (const m of messages) {
            if (m.role === 'assistant' || m.role === 'user') {
              host.restore('P');
              const view =
                m.role === 'user'
                  ? e.preLlmCall({ session_id: 'P', messages: [...live, m], context_length: k.window })
                  : e.preModelCall({ session_id: 'P', messages: live, context_length: k.window });
              expect(checkView(m.role === 'user' ? [...live, m] : live, view.edits, c)).toEqual([]);
              host.apply('P', m.role === 'user' ? [...live, m] : live, view.edits);
              await new Promise((resolve) => setImmediate(resolve));
            }
            host.restore('P');
            live.push(m);
          }
          host.restore('P');
          expect(live.map((m) => safeJson(m))).toEqual(before);
          const s = e.sessions.get('P');
          for (const p of s?.layer1.phases ?? []) {
            phases++;
            expect(safeJson(await recallAll(e, 'P', p.recallId))).toBe(safeJson(messages.slice(p.from, p.to + 1)));
          }
        },
      ),
      { numRuns: 60 },
    );
    expect(phases).toBeGreaterThan(0);
  });
});
