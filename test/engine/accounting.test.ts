/**
 * Accounting equal to the wire (DESIGN §7): a model call is counted when it is sent, its input is
 * the request's tokens (every message, the system prompt and the tool schemas, by `requestTokens`),
 * per turn and per process; sessions end when the host says so, even without an id.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import { assistantCall, longLog, RecordingSink, reply, terminal, toolResult, user } from '../helpers/conversation.js';
import { newEngine, nudgedTurn, processPerTurn, runTurns, step, SYSTEM, TOOLS } from './accounting-wire.js';

let dir = '';
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});

describe('model calls counted when sent', () => {
  it('equal the tokens of each request on the wire, per call and per turn, raw and as sent', () => {
    fc.assert(
      fc.property(fc.array(fc.array(step, { maxLength: 4 }), { minLength: 1, maxLength: 4 }), (turns) => {
        const e = newEngine();
        const wire = runTurns(e, 'S', [], turns, 1);
        e.settle();
        const ledger = e.sessions.get('S')?.ledger;
        expect(ledger?.calls.map((c) => ({ raw: c.raw, sent: c.hmc, turn: c.turn }))).toEqual(wire);
        for (const point of ledger?.timeline ?? []) {
          const calls = wire.filter((w) => w.turn === point.turn);
          expect([point.input_raw, point.input_hmc]).toEqual([
            calls.reduce((a, w) => a + w.raw, 0),
            calls.reduce((a, w) => a + w.sent, 0),
          ]);
        }
        expect(ledger?.modelCalls).toBe(wire.length);
      }),
      { numRuns: 25 },
    );
  });

  it('regression: the same system prompt and tool list sent again are not tokenized again (a whole view sends them with every call); a changed list is', () => {
    const e = newEngine();
    const messages = [user('go')];
    e.preLlmCall({ session_id: 'S', messages });
    const ledger = (): NonNullable<ReturnType<typeof e.sessions.get>>['ledger'] =>
      e.sessions.get('S')?.ledger as NonNullable<ReturnType<typeof e.sessions.get>>['ledger'];
    e.preModelCall({ session_id: 'S', messages, system: SYSTEM, tools: TOOLS, call_id: 'c1' });
    e.settle();
    const fixed = ledger().totals();
    // Only the call itself is queued: not the system prompt's and the tools' counts again (was 3 jobs).
    e.preModelCall({ session_id: 'S', messages, system: SYSTEM, tools: structuredClone(TOOLS), call_id: 'c2' });
    expect(ledger().pending).toBe(1);
    e.settle();
    const more = [
      ...TOOLS,
      {
        type: 'function',
        function: { name: 'write_file', description: 'Write a file.', parameters: { type: 'object', properties: {} } },
      },
    ];
    e.preModelCall({ session_id: 'S', messages, system: SYSTEM, tools: more, call_id: 'c3' });
    expect(ledger().pending).toBe(2);
    e.settle();
    const calls = ledger().calls;
    // The figures are those of a count every time: the same input for the same request, more with more tools.
    expect(calls[1]?.raw).toBe(calls[0]?.raw);
    expect(calls[2]?.raw).toBeGreaterThan(calls[1]?.raw ?? Infinity);
    expect(fixed.modelCalls).toBe(1);
  });

  it('counts a retry of the same request (same call id) once', () => {
    const e = newEngine();
    const messages = [user('go')];
    e.preLlmCall({ session_id: 'S', messages });
    e.preModelCall({ session_id: 'S', messages, call_id: 't1:api:1' });
    e.preModelCall({ session_id: 'S', messages, call_id: 't1:api:1' });
    e.preModelCall({ session_id: 'S', messages, call_id: 't1:api:2' });
    e.settle();
    expect(e.sessions.get('S')?.ledger.modelCalls).toBe(2);
  });

  it('regression: savings lag a turn — after the turn ends, all its calls are counted, the last one too', () => {
    const sink = new RecordingSink();
    const e = newEngine(sink);
    const wire = runTurns(
      e,
      'S',
      [],
      [
        [
          { kind: 'log', lines: 400, error: false },
          { kind: 'read', lines: 300 },
        ],
      ],
      1,
    );
    // No further hook: what the user reads after turn 1 must already hold turn 1's three calls.
    const stats = e.sessions.get('S')?.ledger.totals();
    expect(stats?.modelCalls).toBe(3);
    expect(stats && stats.inputRaw - stats.inputHmc).toBe(wire.reduce((a, w) => a + w.raw - w.sent, 0));
    const turns = sink.events.filter((x): x is Extract<typeof x, { type: 'turn' }> => x.type === 'turn');
    expect(turns.map((t) => [t.turn, t.delta_saved])).toEqual([[1, wire.reduce((a, w) => a + w.raw - w.sent, 0)]]);
    expect(turns[0]?.delta_saved).toBeGreaterThan(0);
  });

  it('regression: one process per turn (-q) — each turn event says what that turn saved, not the session total', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hmc-turns-'));
    const { events, wire } = await processPerTurn(dir, (e, history, turn) =>
      runTurns(
        e,
        'S',
        history,
        [
          [
            { kind: 'log', lines: 300, error: false },
            { kind: 'read', lines: 200 },
          ],
        ],
        turn,
      ),
    );
    const perTurn = [1, 2, 3].map((t) => wire.filter((w) => w.turn === t).reduce((a, w) => a + w.raw - w.sent, 0));
    expect(events.map((x) => x.turn)).toEqual([1, 2, 3]);
    expect(events.map((x) => x.delta_saved)).toEqual(perTurn);
    expect(events.at(-1)?.cumulative_saved).toBe(perTurn.reduce((a, b) => a + b, 0));
    expect(events.at(-1)?.input_tokens).toEqual({
      raw: wire.reduce((a, w) => a + w.raw, 0),
      hmc: wire.reduce((a, w) => a + w.sent, 0),
    });
  });

  it('regression: a nudge the host adds inside a turn (Hermes verify-on-stop) belongs to that turn, in one process per turn', async () => {
    // Hermes 0.19 answers a final reply after a code edit with a synthetic user message ("[System:
    // You edited code in this turn…]") and calls the model again, with no pre_llm_call; it never
    // stores the nudge. Counted as user turns, turn 2 became 4 and turns 3–4 were never reported.
    dir = mkdtempSync(join(tmpdir(), 'hmc-nudge-'));
    const { events, wire } = await processPerTurn(dir, (e, history, turn) =>
      turn === 2
        ? nudgedTurn(e, 'S', history, turn)
        : runTurns(
            e,
            'S',
            history,
            [
              [
                { kind: 'log', lines: 300, error: false },
                { kind: 'read', lines: 200 },
              ],
            ],
            turn,
          ),
    );
    const perTurn = [1, 2, 3].map((t) => wire.filter((w) => w.turn === t).reduce((a, w) => a + w.raw - w.sent, 0));
    expect(events.map((x) => x.turn)).toEqual([1, 2, 3]);
    expect(events.map((x) => x.delta_saved)).toEqual(perTurn);
    expect(events.at(-1)?.cumulative_saved).toBe(perTurn.reduce((a, b) => a + b, 0));
  });

  it('regression: a nudge the host adds inside a turn belongs to that turn, in one long process', () => {
    const sink = new RecordingSink();
    const e = newEngine(sink);
    const history: Message[] = [];
    const wire = runTurns(e, 'S', history, [[{ kind: 'log', lines: 300, error: false }]], 1);
    wire.push(...nudgedTurn(e, 'S', history, 2));
    wire.push(...runTurns(e, 'S', history, [[{ kind: 'read', lines: 200 }]], 3));
    e.settle();
    const turns = sink.events.filter((x): x is Extract<typeof x, { type: 'turn' }> => x.type === 'turn');
    expect(turns.map((t) => t.turn)).toEqual([1, 2, 3]);
    expect(turns.map((t) => t.delta_saved)).toEqual(
      [1, 2, 3].map((t) => wire.filter((w) => w.turn === t).reduce((a, w) => a + w.raw - w.sent, 0)),
    );
    expect(e.sessions.get('S')?.ledger.calls.map((c) => c.turn)).toEqual(wire.map((w) => w.turn));
  });

  it('counts the replies of a host without pre_model_call when it sends the conversation at the turn end', () => {
    const e = newEngine();
    const messages: Message[] = [user('go')];
    e.preLlmCall({ session_id: 'S', messages });
    messages.push(
      assistantCall('c1', 'terminal', { command: 'make' }),
      toolResult('c1', 'terminal', terminal(longLog(300))),
      reply('done'),
    );
    e.onSessionEnd({ session_id: 'S', messages });
    expect(e.sessions.get('S')?.ledger.totals().modelCalls).toBe(2);
  });
});

describe('the end of a session', () => {
  it('regression: finalize without a session id (Hermes CLI exit) lets go of every session the process touched, idle', () => {
    const sink = new RecordingSink();
    const e = newEngine(sink);
    runTurns(e, 'A', [], [[{ kind: 'log', lines: 100, error: false }]], 1);
    runTurns(e, 'B', [], [[{ kind: 'log', lines: 100, error: false }]], 1);
    e.onSessionFinalize({ session_id: '', reason: 'shutdown' });
    expect(
      sink.events
        .filter((x) => x.type === 'session_idle')
        .map((x) => x.session_id)
        .sort(),
    ).toEqual(['A', 'B']);
    expect(sink.events.filter((x) => x.type === 'session_end')).toEqual([]);
    expect(e.sessions.size).toBe(0);
  });
});

describe('/hmc status', () => {
  it("regression: in a brand-new session it does not show the previous session's figures", async () => {
    dir = mkdtempSync(join(tmpdir(), 'hmc-status-'));
    const before = newEngine(new RecordingSink(), dir);
    runTurns(before, 'OLD', [], [[{ kind: 'log', lines: 400, error: false }]], 1);
    before.onSessionFinalize({ session_id: 'OLD' });
    await before.flushSaves();
    expect(await before.command({ session_id: 'OLD', raw_args: 'status' })).toMatch(/saved: [1-9]/);

    const fresh = newEngine(new RecordingSink(), dir);
    const text = await fresh.command({ session_id: '', raw_args: 'status' });
    expect(text).toContain('no model call in this session yet');
    expect(text).not.toMatch(/saved: [1-9]/);
    // Hermes' CLI names its brand-new session before the first message (issue 17, finding 2): nothing held or saved yet.
    expect(await fresh.command({ session_id: 'BRAND-NEW', raw_args: 'status' })).toContain(
      'no model call in this session yet',
    );
    // …and a resumed one: its saved figures at once.
    expect(await fresh.command({ session_id: 'OLD', raw_args: 'status' })).toMatch(/saved: [1-9]/);
  });
});

describe('pre_model_call views', () => {
  it('answered as deltas rebuild the complete view at every call', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(step, { maxLength: 3 }), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 0, max: 3 }),
        (turns, sweepAt) => {
          const e = newEngine();
          const twin = newEngine();
          const history: Message[] = [];
          const held = new Map<number, string | undefined>();
          let view = 0;
          turns.forEach((steps, t) => {
            history.push(user(`turn ${t}`));
            for (const x of [e, twin]) x.preLlmCall({ session_id: 'S', messages: history });
            if (t === sweepAt)
              for (const x of [e, twin]) void x.control({ session_id: 'S', args: { action: 'sweep', count: 1 } });
            steps.forEach((s, k) => {
              const answer = e.preModelCall({ session_id: 'S', messages: history, view });
              if (answer.since === undefined) held.clear();
              else expect(answer.since).toBe(view);
              for (const i of answer.removed ?? []) held.delete(i);
              for (const edit of answer.edits) held.set(edit.index, edit.content);
              view = answer.view ?? 0;
              const complete = twin.preModelCall({ session_id: 'S', messages: history }).edits;
              expect([...held].sort((a, b) => a[0] - b[0])).toEqual(complete.map((x) => [x.index, x.content]));
              const id = `c${t}_${k}`;
              const output = terminal(longLog(s.lines, 3), 1);
              history.push(assistantCall(id, 'terminal', { command: 'make' }), toolResult(id, 'terminal', output));
            });
          });
        },
      ),
      { numRuns: 25 },
    );
  });
});
