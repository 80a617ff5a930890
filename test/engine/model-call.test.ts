import { describe, expect, it } from 'vitest';
import { InProcessHost } from '../../src/hosts/in-process.js';
import { safeJson } from '../../src/engine/session/hashing.js';
import type { Message } from '../../src/core/message.js';
import { assistantCall, engine, longLog, terminal, toolResult, user } from '../helpers/conversation.js';

const S = 'loop';

/** One user turn with `n` terminal calls, as a long tool loop builds it. */
function loop(n: number): Message[] {
  const out: Message[] = [{ role: 'system', content: 'You are a coding agent.' }, user('fix the build')];
  for (let i = 0; i < n; i++)
    out.push(
      assistantCall(`c${i}`, 'terminal', { command: `make step${i}` }),
      toolResult(`c${i}`, 'terminal', terminal(longLog(200, 100 + i))),
    );
  return out;
}

describe('pre_model_call', () => {
  it('is offered in hello, so hosts call it before every model call', () => {
    expect(engine().hello({ host: 't', protocol: 1 }).capabilities).toContain('model_call');
  });

  it('answers the same complete view as pre_llm_call, without the context hint', () => {
    const messages = loop(3);
    const a = engine();
    const b = engine();
    const llm = a.preLlmCall({ session_id: S, messages });
    const model = b.preModelCall({ session_id: S, messages });
    expect(model.edits).toEqual(llm.edits);
    expect(llm.edits.length).toBe(3);
    expect('context' in model).toBe(false);
  });

  it('shares the held conversation with pre_llm_call: base counts messages from either method', () => {
    const messages = loop(4);
    const e = engine();
    e.preLlmCall({ session_id: S, messages: messages.slice(0, 2) });
    const inc = e.preModelCall({ session_id: S, base: 2, append: messages.slice(2) });
    expect(inc.edits).toEqual(engine().preModelCall({ session_id: S, messages }).edits);
  });

  it('acts inside one user turn: a sweep lands at the next model call, not the next user turn', async () => {
    const messages = loop(3);
    const e = engine();
    const host = new InProcessHost(e);
    const live = messages.slice(0, 2);
    host.preLlmCall(S, live);
    live.push(...messages.slice(2, 6));
    host.preModelCall(S, live);
    await e.control({ session_id: S, args: { action: 'sweep', count: 1 } });
    live.push(...messages.slice(6));
    host.restore(S);
    const raw = live.map((m) => safeJson(m));
    host.preModelCall(S, live);
    expect(String(live[5]?.content)).toContain('Output removed');
    expect(String(live[3]?.content)).not.toContain('Output removed');
    host.restore(S);
    expect(live.map((m) => safeJson(m))).toEqual(raw);
  });

  it('counts a cache break only when a message the previous call had sent is rewritten', async () => {
    const messages = loop(4);
    const e = engine();
    e.preModelCall({ session_id: S, messages: messages.slice(0, 6) });
    e.preModelCall({ session_id: S, messages: messages.slice(0, 8) });
    expect(e.sessions.get(S)?.counts.cacheBreaks).toBe(0);
    await e.control({ session_id: S, args: { action: 'sweep', count: 2 } });
    e.preModelCall({ session_id: S, messages: messages.slice(0, 10) });
    expect(e.sessions.get(S)?.counts.cacheBreaks).toBe(1);
  });
});
