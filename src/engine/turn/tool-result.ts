/**
 * A tool's result as post_tool_call brings it: recorded on its call, compressed once (intake.ts),
 * and reported (its tool event, the inspector's before/after, the work tallies) in the background.
 *
 * Invariant: the answer replaces the result only when compression changed it; a failure the host
 * reported stays a failure; the reports never run inside the hook (they wait for the ledger).
 */
import type { HmcConfig } from '../../config/keys.js';
import type { PostToolCallParams, PostToolCallResult } from '../../core/host-api.js';
import type { EventSink } from '../../events/types.js';
import { toolEvent } from './events.js';
import type { Intake } from './intake.js';
import type { Session } from '../session/session.js';
import { toolRecord } from './sync.js';
import { noteOutput } from '../session/work.js';
import { parseEnvelope, type Envelope } from '../../hosts/outputs/envelope.js';

/** Compressions kept per session for the pre_llm_call that shows the same result (oldest dropped first). */
const MAX_POST_RESULTS = 1000;

export interface ToolResultDeps {
  config: HmcConfig;
  intake: Intake;
  sink: EventSink;
  now: () => number;
}

/** Takes the result of call `id` into session `s`; the host's answer. */
export function takeToolResult(
  s: Session,
  p: PostToolCallParams,
  id: string,
  deps: ToolResultDeps,
): PostToolCallResult {
  const { config, sink } = deps;
  const tool = p.tool_name;
  const hostError = p.is_error === true || p.status === 'error' || p.status === 'blocked';
  const record = s.held.records.get(id) ?? toolRecord(tool, p.args, s.counts.turn, hostError);
  record.isError = record.isError || hostError;
  s.held.recordTool(id, record);
  s.counts.toolCalled();
  const turn = s.counts.turn;
  s.ledger.defer(() => s.ledger.countToolCall(turn));
  if (typeof p.result !== 'string') return {};
  // The output's envelope is parsed once, on the first question, for its compression and its work
  // tally (both read it with the host's arguments; with a host error, compress.ts reads it so flagged).
  const raw = p.result;
  let parsed: Envelope | undefined;
  const envelope = (): Envelope => (parsed ??= parseEnvelope(raw, { tool, args: p.args }));
  const comp = deps.intake.compress(s, config, id, tool, raw, p.args, hostError, hostError ? undefined : envelope);
  record.isError = record.isError || comp.isError;
  s.held.keepPostResult(id, comp, MAX_POST_RESULTS);
  const seen = {
    id,
    tool,
    turn,
    before: comp.raw,
    after: comp.content,
    strategies: comp.steps.map((x) => x.strategy),
    isError: record.isError,
  };
  if (comp.content !== comp.raw) record.shortened = true;
  const args = p.args;
  // The user's latest message as the host last sent it: a read it asked for is no re-read (work.ts).
  const asked = latestUserContent(s);
  s.ledger.defer(() => {
    const { event, inspect } = toolEvent(s, seen, config, deps.now());
    if (inspect) sink.inspect(inspect);
    sink.emit(event);
    noteOutput(s, {
      key: id,
      tool,
      args,
      raw: seen.before,
      tokensRaw: event.tokens_before,
      tokensSent: event.tokens_after,
      asked,
      envelope,
    });
  }, [seen.before, seen.after]);
  return comp.content !== p.result ? { replace: comp.content } : {};
}

/** The content of the conversation's latest user message (undefined before any). */
function latestUserContent(s: Session): unknown {
  for (let i = s.held.messages.length - 1; i >= 0; i--) {
    const m = s.held.messages[i];
    if (m?.role === 'user') return m.raw;
  }
  return undefined;
}
