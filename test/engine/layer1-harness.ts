/**
 * The harness of layer1.test.ts: a summariser that answers at once from the messages it is given,
 * a tool loop of long pages, an engine over a config, and a driver that runs the loop call by call
 * as an ideal host would and says whether the view stayed valid and the restore exact.
 */
import type { HmcConfig } from '../../src/config/keys.js';
import { Engine } from '../../src/engine/engine.js';
import { InProcessHost } from '../../src/hosts/in-process.js';
import { checkView } from '../../src/engine/turn/invariants.js';
import { safeJson } from '../../src/engine/session/hashing.js';
import type { Message } from '../../src/core/message.js';
import type { Summariser, SummaryRequest, SummaryResult } from '../../src/summarise/types.js';
import { NULL_SINK } from '../../src/events/types.js';
import { assistantCall, terminal, toolResult, user } from '../helpers/conversation.js';

/** Answers with the commands the range ran: short, deterministic, made only from what it was given. */
export class ListingSummariser implements Summariser {
  readonly requests: SummaryRequest[] = [];
  constructor(private readonly fail = false) {}
  async summarise(request: SummaryRequest): Promise<SummaryResult> {
    this.requests.push(request);
    if (this.fail) return { ok: false, reason: 'timeout after 120 s', retryable: true, tokensIn: 100 };
    const commands = request.messages.flatMap((m) =>
      (m.tool_calls ?? []).map((c) => String(c.function?.arguments ?? '')),
    );
    const text = `## Goal\nfix the build\n## Done\n${commands.length} commands${request.previous ? ' (updated)' : ''}`;
    return { ok: true, text, topic: 'fix the build', model: 'listing', tokensIn: 500, tokensOut: 20, redactions: 0 };
  }
}

export const PAGE = (i: number) =>
  terminal(Array.from({ length: 40 }, (_, k) => `step ${i}.${k} ${'detail '.repeat(12)}`).join('\n'));

export function loop(calls: number): Message[] {
  const out: Message[] = [{ role: 'system', content: 'You are a coding agent.' }, user('fix the build')];
  for (let i = 0; i < calls; i++)
    out.push(
      assistantCall(`c${i}`, 'terminal', { command: `make step${i}` }),
      toolResult(`c${i}`, 'terminal', PAGE(i)),
    );
  return out;
}

export function make(c: HmcConfig, summariser: Summariser | null, stateDir: string | null = null): Engine {
  return new Engine({
    config: () => c,
    stateDir,
    sink: NULL_SINK,
    recorder: null,
    log: () => {},
    autoSettle: false,
    summariser: () => summariser,
  });
}

/** Drives a tool loop call by call as an ideal host would, awaiting between calls (summaries come back then). */
export async function drive(e: Engine, messages: Message[], opts: { window: number; session?: string }) {
  const host = new InProcessHost(e);
  const sid = opts.session ?? 'L1';
  const before = messages.map((m) => safeJson(m));
  const problems: string[] = [];
  const live: Message[] = [];
  for (const m of messages) {
    if (m.role === 'assistant') {
      host.restore(sid);
      const r = e.preModelCall({ session_id: sid, messages: live, context_length: opts.window });
      problems.push(...checkView(live, r.edits, e.config));
      host.apply(sid, live, r.edits);
      await new Promise((resolve) => setImmediate(resolve));
    }
    live.push(m);
  }
  host.restore(sid);
  const restored = live.every((m, i) => safeJson(m) === before[i]);
  return { problems, restored, session: e.sessions.get(sid) };
}
