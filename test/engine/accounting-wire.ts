/**
 * The wire of accounting.test.ts: engines as one Hermes process builds them, the request as a host
 * sends it (system prompt and tool schemas included), and turns run through the hooks the way
 * Hermes runs them, returning every request raw and as sent.
 */
import fc from 'fast-check';
import { Engine } from '../../src/engine/engine.js';
import type { ModelCallEdit } from '../../src/core/host-api.js';
import { requestTokens } from '../../src/core/tokens.js';
import type { Message } from '../../src/core/message.js';
import type { TurnEvent } from '../../src/events/types.js';
import {
  assistantCall,
  config,
  longLog,
  readFile,
  RecordingSink,
  reply,
  terminal,
  toolResult,
  user,
} from '../helpers/conversation.js';

export const SYSTEM = 'You are Hermes, a coding agent. Use the tools to read files and run commands.';
export const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'terminal',
      description: 'Run a shell command.',
      parameters: { type: 'object', properties: { command: { type: 'string' } } },
    },
  },
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Read a file.',
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
    },
  },
];

export function newEngine(sink = new RecordingSink(), stateDir: string | null = null): Engine {
  const c = config((x) => (x.cache.batch_turns = 1));
  return new Engine({ config: () => c, stateDir, sink, recorder: null, log: () => {}, autoSettle: false });
}

/** A request as a host sends it: the system prompt, then the messages with the view applied. */
export function request(
  messages: readonly Message[],
  edits: readonly ModelCallEdit[],
): { messages: Message[]; tools: unknown[] } {
  const view = messages.map((m) => ({ ...m }));
  for (const e of edits) {
    if (e.content !== undefined) (view[e.index] as Message).content = e.content;
    if (e.tool_calls !== undefined) (view[e.index] as Message).tool_calls = e.tool_calls;
  }
  return { messages: [{ role: 'system', content: SYSTEM }, ...view], tools: TOOLS };
}

export type Step = { kind: 'read'; lines: number } | { kind: 'log'; lines: number; error: boolean };

/**
 * One host process running turns through the hooks the way Hermes does with HMC: pre_llm_call per
 * turn, pre_model_call before every model call (its edits applied to that request only), tools
 * around it, on_session_end after the turn. Returns the wire: every request, raw and as sent.
 */
export function runTurns(
  e: Engine,
  sid: string,
  history: Message[],
  turns: Step[][],
  first: number,
): { raw: number; sent: number; turn: number }[] {
  const wire: { raw: number; sent: number; turn: number }[] = [];
  turns.forEach((steps, t) => {
    const turn = first + t;
    history.push(user(`turn ${turn}: do it`));
    e.preLlmCall({ session_id: sid, messages: history });
    const call = (): void => {
      const { edits } = e.preModelCall({
        session_id: sid,
        messages: history,
        system: SYSTEM,
        tools: TOOLS,
        call_id: `${turn}:${wire.length}`,
      });
      wire.push({ raw: requestTokens(request(history, [])), sent: requestTokens(request(history, edits)), turn });
    };
    steps.forEach((step, k) => {
      call();
      const id = `c${turn}_${k}`;
      const name = step.kind === 'read' ? 'read_file' : 'terminal';
      const args = step.kind === 'read' ? { path: `src/mod${k}.py` } : { command: `make step${k}` };
      const output =
        step.kind === 'read'
          ? readFile(
              Array.from({ length: step.lines }, (_, i) =>
                i % 7 === 0 ? `def function_${i}(value):` : `    total = value * ${i}`,
              ),
            )
          : terminal(longLog(step.lines, step.error ? Math.floor(step.lines / 2) : -1), step.error ? 1 : 0);
      history.push(assistantCall(id, name, args));
      e.preToolCall({ session_id: sid, tool_name: name, args, tool_call_id: id });
      e.postToolCall({ session_id: sid, tool_name: name, args, result: output, tool_call_id: id, status: 'ok' });
      history.push(toolResult(id, name, output));
    });
    call();
    history.push(reply(`turn ${turn} done`));
    e.onSessionEnd({ session_id: sid });
  });
  return wire;
}

/**
 * A turn the host stretches with nudges of its own: after the final reply it appends a synthetic
 * user message and calls the model again (no pre_llm_call), twice, then drops both nudges from the
 * history at the turn end, as Hermes 0.19's verify-on-stop does (agent/conversation_loop.py).
 */
/** Three turns of session S, each in a new engine over the same state dir (Hermes `-q`): the turn events and the wire. */
export async function processPerTurn(
  dir: string,
  turnOf: (e: Engine, history: Message[], turn: number) => { raw: number; sent: number; turn: number }[],
): Promise<{
  events: Omit<TurnEvent, 'id' | 'source' | 'time'>[];
  wire: { raw: number; sent: number; turn: number }[];
}> {
  const history: Message[] = [];
  const events: Omit<TurnEvent, 'id' | 'source' | 'time'>[] = [];
  const wire: { raw: number; sent: number; turn: number }[] = [];
  for (let turn = 1; turn <= 3; turn++) {
    const sink = new RecordingSink();
    const e = newEngine(sink, dir);
    wire.push(...turnOf(e, history, turn));
    e.onSessionFinalize({ session_id: 'S', reason: 'shutdown' });
    await e.flushSaves();
    events.push(...sink.events.filter((x): x is Extract<typeof x, { type: 'turn' }> => x.type === 'turn'));
  }
  return { events, wire };
}

export function nudgedTurn(
  e: Engine,
  sid: string,
  history: Message[],
  turn: number,
): { raw: number; sent: number; turn: number }[] {
  const wire: { raw: number; sent: number; turn: number }[] = [];
  const live = [...history, user(`turn ${turn}: fix it`)];
  e.preLlmCall({ session_id: sid, messages: live });
  const call = (): void => {
    const { edits } = e.preModelCall({
      session_id: sid,
      messages: live,
      system: SYSTEM,
      tools: TOOLS,
      call_id: `${turn}:${wire.length}`,
    });
    wire.push({ raw: requestTokens(request(live, [])), sent: requestTokens(request(live, edits)), turn });
  };
  call();
  const id = `c${turn}_log`;
  const output = terminal(longLog(300, -1), 0);
  live.push(assistantCall(id, 'terminal', { command: 'make test' }));
  e.preToolCall({ session_id: sid, tool_name: 'terminal', args: { command: 'make test' }, tool_call_id: id });
  e.postToolCall({
    session_id: sid,
    tool_name: 'terminal',
    args: { command: 'make test' },
    result: output,
    tool_call_id: id,
    status: 'ok',
  });
  live.push(toolResult(id, 'terminal', output));
  call();
  live.push(reply('fixed'));
  for (let n = 0; n < 2; n++) {
    live.push(
      user(
        '[System: You edited code in this turn, but the workspace does not have fresh passing verification evidence yet.]',
      ),
    );
    call();
    live.push(reply('fixed, and the tests pass'));
  }
  e.onSessionEnd({ session_id: sid });
  history.push(
    ...live.filter((m) => !(m.role === 'user' && String(m.content).startsWith('[System:'))).slice(history.length),
  );
  return wire;
}

export const step = fc.oneof(
  fc.record({ kind: fc.constant('read' as const), lines: fc.integer({ min: 5, max: 400 }) }),
  fc.record({ kind: fc.constant('log' as const), lines: fc.integer({ min: 5, max: 500 }), error: fc.boolean() }),
);
