/**
 * Where layer 1 summarises, as the turn event says it (issue 24, the page's context chart): the
 * chart's dashed line was a fixed 80 %, while with Hermes' default threshold (0.5) layer 1 fires at
 * 40 % of the window. The turn event now carries the session's own figure (summarise_at, the rule
 * layer 1 decides by) and the host's threshold when the host sent it.
 */
import { describe, expect, it } from 'vitest';
import type { HmcConfig } from '../../src/config/keys.js';
import type { TurnEvent } from '../../src/events/types.js';
import { summariseShare } from '../../src/engine/layer1/layer1-threshold.js';
import { isHmcEvent } from '../../src/events/guards.js';
import { config, engine, RecordingSink, reply, user } from '../helpers/conversation.js';

/** One turn; the host sends `threshold` as its compression threshold (or nothing). */
function turnEvent(c: HmcConfig, threshold?: number): TurnEvent {
  const sink = new RecordingSink();
  const e = engine(c, sink);
  const messages = [user('Which files define the routes?')];
  e.preLlmCall({ session_id: 'S', messages, context_length: 128_000 });
  e.preModelCall({
    session_id: 'S',
    messages,
    context_length: 128_000,
    ...(threshold === undefined ? {} : { compression_threshold: threshold }),
  });
  messages.push(reply('src/server/routes.'));
  e.onSessionEnd({ session_id: 'S' });
  e.settle();
  const ev = sink.events.find((x): x is TurnEvent => x.type === 'turn');
  if (!ev) throw new Error('no turn event');
  return ev;
}

describe('summarise_at on the turn event', () => {
  it("is 40 % with the defaults and a host that does not say (0.8 × Hermes' default 0.5), not 80 %", () => {
    const ev = turnEvent(config());
    expect(ev.summarise_at).toBe(0.4);
    expect(ev.host_compress_at).toBeUndefined();
  });

  it('follows the threshold the host sent, capped by compress.max_context_percent', () => {
    const at85 = turnEvent(config(), 0.85);
    expect(at85.summarise_at).toBeCloseTo(0.68, 10);
    expect(at85.host_compress_at).toBe(0.85);
    const capped = turnEvent(
      config((c) => {
        c.compress.max_context_percent = 0.6;
      }),
      0.85,
    );
    expect(capped.summarise_at).toBe(0.6);
  });

  it('is the very rule layer 1 fires by', () => {
    const c = config();
    for (const host of [undefined, 0.3, 0.5, 0.85, 1])
      expect(turnEvent(c, host).summarise_at).toBe(summariseShare(c, host));
  });

  it('is absent when layer 1 is off', () => {
    const ev = turnEvent(
      config((c) => {
        c.background_compression.enabled = false;
      }),
      0.5,
    );
    expect(ev.summarise_at).toBeUndefined();
    expect(ev.host_compress_at).toBe(0.5);
  });

  it('is read from an event file only as a share of the window (0..1]: another value rejects the event, as any bad figure does', () => {
    const ev = { ...turnEvent(config(), 0.75), id: 'e1', source: 'sidecar-1', time: 1 };
    expect(isHmcEvent(ev)).toBe(true);
    for (const bad of [0, -0.4, 1.5, Number.NaN, '0.4']) {
      expect(isHmcEvent({ ...ev, summarise_at: bad })).toBe(false);
      expect(isHmcEvent({ ...ev, host_compress_at: bad })).toBe(false);
    }
  });
});
