/**
 * One tool output's envelope is parsed once at post_tool_call (issue 23): its compression
 * (turn/compress.ts) and its work tally (session/work.ts) share one parse (turn/tool-result.ts).
 */
import { describe, expect, it, vi } from 'vitest';

const parses = vi.hoisted(() => ({ n: 0 }));
vi.mock('../../src/hosts/outputs/envelope.js', async (original) => {
  const real = await original<typeof import('../../src/hosts/outputs/envelope.js')>();
  return {
    ...real,
    parseEnvelope: (...a: Parameters<typeof real.parseEnvelope>) => {
      parses.n++;
      return real.parseEnvelope(...a);
    },
  };
});

const { engine, readFile } = await import('../helpers/conversation.js');

const S = 'once';
const SOURCE = readFile(
  Array.from({ length: 240 }, (_, i) =>
    i % 12 === 0 ? `def handler_${i}(request):` : `    value_${i} = request.get("field_${i}") or ${i}`,
  ),
);

describe("an output's envelope", () => {
  it('is parsed once at post_tool_call, for its compression and its work tally', () => {
    const e = engine();
    e.preLlmCall({ session_id: S, messages: [{ role: 'user', content: 'look at the handlers' }] });
    e.settle();
    parses.n = 0;
    const args = { path: 'src/app.py' };
    e.preToolCall({ session_id: S, tool_name: 'read_file', args, tool_call_id: 'c1' });
    const answer = e.postToolCall({
      session_id: S,
      tool_name: 'read_file',
      args,
      result: SOURCE,
      tool_call_id: 'c1',
      status: 'ok',
    });
    e.settle();
    expect(answer.replace).toBeDefined();
    expect(e.sessions.get(S)?.work.figures(1).outputs.length).toBeGreaterThan(0);
    expect(parses.n).toBe(1);
  });
});
