/**
 * One meaning per number, turn by turn (issue 17, finding 3): the context the live turn event
 * shows is the context stored for that turn (turn 1 was stored as the user's 49-token message while
 * the live chart showed 7 %), and a turn that only asked `hmc_control` shows no new context saved,
 * its input saved named with the model calls it was summed over.
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import type { ModelCallEdit } from '../../src/core/host-api.js';
import { requestTokens } from '../../src/core/tokens.js';
import type { TurnEvent } from '../../src/events/types.js';
import {
  assistantCall,
  engine,
  config,
  longLog,
  RecordingSink,
  reply,
  terminal,
  toolResult,
  user,
} from '../helpers/conversation.js';
import { sessionRecord } from '../../src/engine/turn/events.js';

const SYSTEM = 'You are Hermes, a coding agent. Use the tools to read files and run commands. '.repeat(20);
const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'terminal',
      description: 'Run a shell command.',
      parameters: { type: 'object', properties: { command: { type: 'string' } } },
    },
  },
];

/** Runs turns the way Hermes does with HMC; each turn's steps are tool calls (a log, or hmc_control). */
/** A request as the host sends it: the system prompt, then the messages with the view applied. */
function request(
  messages: readonly Message[],
  edits: readonly ModelCallEdit[],
): { messages: Message[]; tools: unknown[] } {
  const view = messages.map((m) => ({ ...m }));
  for (const e of edits) if (e.content !== undefined) (view[e.index] as Message).content = e.content;
  return { messages: [{ role: 'system', content: SYSTEM }, ...view], tools: TOOLS };
}

interface Played {
  events: TurnEvent[];
  timeline: ReturnType<typeof sessionRecord>['timeline'];
  /** Per turn, the tokens of its last request as sent. */
  lastRequest: number[];
}

function play(turns: ('log' | 'control')[][]): Played {
  const sink = new RecordingSink();
  const e = engine(config(), sink);
  const history: Message[] = [];
  let call = 0;
  const lastRequest: number[] = [];
  turns.forEach((steps, t) => {
    history.push(user(`turn ${t + 1}: go on`));
    e.preLlmCall({ session_id: 'S', messages: history, context_length: 32_000 });
    const send = (): void => {
      const { edits } = e.preModelCall({
        session_id: 'S',
        messages: history,
        system: SYSTEM,
        tools: TOOLS,
        call_id: `c${call++}`,
      });
      lastRequest[t] = requestTokens(request(history, edits));
    };
    steps.forEach((step, k) => {
      send();
      const id = `t${t}_${k}`;
      const [name, args, output] =
        step === 'log'
          ? ['terminal', { command: `make step${t}` }, terminal(longLog(400, 200), 1)]
          : [
              'hmc_control',
              { action: 'status' },
              JSON.stringify({ status: 'HMC [auto] | ctx: 9% | input saved: 1.2K tokens' }),
            ];
      history.push(assistantCall(id, name, args));
      e.preToolCall({ session_id: 'S', tool_name: name, args, tool_call_id: id });
      e.postToolCall({ session_id: 'S', tool_name: name, args, result: output, tool_call_id: id, status: 'ok' });
      history.push(toolResult(id, name, output));
    });
    send();
    history.push(reply(`turn ${t + 1} done`));
    e.onSessionEnd({ session_id: 'S' });
    e.settle();
  });
  const events = sink.events.filter((x): x is TurnEvent => x.type === 'turn');
  const s = e.sessions.get('S');
  if (!s) throw new Error('no session');
  return { events, timeline: sessionRecord(s).timeline, lastRequest };
}

describe('the context of a turn', () => {
  it('is the context its last model call sent, live and stored alike, turn 1 included (stored as the user message alone before)', () => {
    const { events, timeline, lastRequest } = play([[], ['log'], ['log', 'log'], []]);
    expect(events.map((x) => x.turn)).toEqual([1, 2, 3, 4]);
    for (const ev of events) {
      const point = timeline.find((p) => p.turn === ev.turn);
      expect(ev.context_tokens).toBe(lastRequest[ev.turn - 1]);
      expect(point?.context_tokens).toBe(ev.context_tokens);
      expect(point?.context_percent).toBe(ev.context_percent);
      expect(point?.context_raw_tokens).toBe(ev.context_raw_tokens);
    }
  });
});

describe('a turn that only called hmc_control', () => {
  it('shows no more context saved than the turn before, and its input saved is named with its model calls', () => {
    const { events, timeline } = play([
      ['log', 'log'],
      ['control', 'control', 'control', 'control', 'control'],
    ]);
    const [first, second] = events;
    expect(first?.context_saved).toBeGreaterThan(0);
    // HMC's own outputs are sent as made: nothing new is saved in the context.
    expect(second?.context_saved).toBe(first?.context_saved);
    // Input saved adds up over the turn's 6 model calls: the bigger figure, named as such.
    expect(second?.turn_model_calls).toBe(6);
    expect(second?.turn_input_saved).toBeGreaterThan(first!.turn_input_saved!);
    expect(timeline[1]?.model_calls).toBe(6);
    expect(timeline[1]!.input_raw - timeline[1]!.input_hmc).toBe(second?.turn_input_saved);
    expect(timeline[1]!.context_raw_tokens! - timeline[1]!.context_tokens).toBe(second?.context_saved);
  });
});
