/**
 * Replays are deterministic (issue 25): the same conversation gives the same views, call by call,
 * on an idle machine and on a busy one. Layer 1 is the part that runs beside the hooks: its
 * summary is rendered, asked of the host and staged while hooks keep flowing. Here the host
 * behaves as ../shared/bench/replay.py does (it answers `llm.complete` only when it next talks to
 * the sidecar, one hook at a time, with an event-loop turn between hooks), the summariser is the
 * real one (prompt rendering and all), and "busy" is a clock that jumps 20 ms at every look, so
 * any work cut into timed slices is cut at every step.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Engine } from '../../src/engine/engine.js';
import { InProcessHost } from '../../src/hosts/in-process.js';
import { safeJson } from '../../src/engine/session/hashing.js';
import type { Message } from '../../src/core/message.js';
import { createSummariser } from '../../src/summarise/summariser.js';
import type { Complete } from '../../src/summarise/types.js';
import { NULL_SINK } from '../../src/events/types.js';
import { assistantCall, layer1Config, terminal, toolResult, user } from '../helpers/conversation.js';

afterEach(() => {
  vi.restoreAllMocks();
});

const NOTE = [
  '## Goal',
  'fix the build',
  '## Done',
  'ran the steps',
  '## Files',
  'Makefile',
  '## Commands',
  'make',
  '## Open',
  'none',
].join('\n');

function loop(calls: number): Message[] {
  const out: Message[] = [{ role: 'system', content: 'You are a coding agent.' }, user('fix the build')];
  for (let i = 0; i < calls; i++) {
    const page = Array.from({ length: 40 }, (_, k) => `step ${i}.${k} ${'detail '.repeat(12)}`).join('\n');
    out.push(
      assistantCall(`c${i}`, 'terminal', { command: `make step${i}` }),
      toolResult(`c${i}`, 'terminal', terminal(page)),
    );
  }
  return out;
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** One replay: the views answered at every model call, and the summaries asked for. */
async function replay(busy: boolean): Promise<{ views: string[]; asked: number }> {
  if (busy) {
    let t = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => (t += 20));
  }
  // The host answers a request when it next writes to the sidecar (replay.py's _call loop).
  const pending: (() => void)[] = [];
  let asked = 0;
  const complete: Complete = () => {
    asked++;
    return new Promise((resolve) => pending.push(() => resolve({ text: NOTE })));
  };
  const summariser = createSummariser({ complete, timeoutMs: 120_000, log: () => {} });
  const c = layer1Config();
  const e = new Engine({
    config: () => c,
    stateDir: null,
    sink: NULL_SINK,
    recorder: null,
    log: () => {},
    autoSettle: false,
    summariser: () => summariser,
  });
  const host = new InProcessHost(e);
  const answerPending = (): void => {
    for (const answer of pending.splice(0)) answer();
  };
  const views: string[] = [];
  const live: Message[] = [];
  for (const m of loop(60)) {
    if (m.role === 'assistant') {
      host.restore('D');
      const r = e.preModelCall({ session_id: 'D', messages: live, context_length: 60_000 });
      answerPending();
      views.push(safeJson(r.edits));
      host.apply('D', live, r.edits);
      await tick();
    }
    live.push(m);
    if (m.role === 'tool') {
      // The tool hooks: more round trips, more turns of the event loop.
      answerPending();
      await tick();
    }
  }
  host.restore('D');
  return { views, asked };
}

describe('deterministic replays (issue 25)', () => {
  it('gives the same view at every model call on an idle and on a busy machine, layer 1 included', async () => {
    const idle = await replay(false);
    const busy = await replay(true);
    expect(idle.asked).toBeGreaterThan(0);
    expect(busy.asked).toBe(idle.asked);
    const first = idle.views.findIndex((v, i) => v !== busy.views[i]);
    expect(first, `the views part at model call ${first}`).toBe(-1);
  });

  it('gives the same views on two idle runs', async () => {
    const a = await replay(false);
    const b = await replay(false);
    expect(b.views).toEqual(a.views);
  });
});
