/**
 * A stub `HmcHostApi` for the protocol tests: compresses long tool results to a marker, keeps the
 * raw messages per session for `base` + `append`, and throws ResyncError on a base it does not hold.
 *
 * Invariant: it behaves like the contract in src/core/host-api.ts says, nothing more.
 */
import { ResyncError } from '../../src/core/host-api.js';
import type { HmcHostApi, PreLlmCallParams, PreLlmCallResult } from '../../src/core/host-api.js';
import type { Message } from '../../src/core/message.js';

export const LONG = 200;

export function stubApi(
  hostCall?: (method: string, params: Record<string, unknown>) => Promise<unknown>,
): HmcHostApi & { held: Map<string, Message[]>; calls: string[] } {
  const held = new Map<string, Message[]>();
  const calls: string[] = [];
  const view = (method: string, p: PreLlmCallParams): PreLlmCallResult => {
    calls.push(method);
    let list: Message[];
    if (p.messages) list = p.messages;
    else {
      const have = held.get(p.session_id);
      if (!have || have.length !== p.base)
        throw new ResyncError(`holding ${have?.length ?? 'nothing'}, asked for base ${p.base}`);
      list = [...have, ...(p.append ?? [])];
    }
    held.set(p.session_id, list);
    const edits = list.flatMap((m, index) =>
      m.role === 'tool' && typeof m.content === 'string' && m.content.length > LONG
        ? [{ index, content: `[compressed ${m.content.length}]` }]
        : [],
    );
    return { edits };
  };
  return {
    held,
    calls,
    hello: () => ({ version: 'stub', protocol: 1, capabilities: ['append'] }),
    preToolCall: () => {
      calls.push('pre_tool_call');
      return {};
    },
    postToolCall: (p) => {
      calls.push('post_tool_call');
      return typeof p.result === 'string' && p.result.length > LONG
        ? { replace: `[compressed ${p.result.length}]` }
        : {};
    },
    preLlmCall: (p) => view('pre_llm_call', p),
    preModelCall: (p) => view('pre_model_call', p),
    onSessionEnd: () => ({}),
    onSessionFinalize: () => ({}),
    control: async (p) => {
      if (p.args.action === 'boom') throw new Error('boom');
      if (p.args.action === 'ask' && hostCall)
        return {
          answer: await hostCall('llm.complete', { messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }),
        };
      return { ...p.args, session: p.session_id ?? '' };
    },
    command: async (p) => `ran: ${p.raw_args}`,
  };
}
