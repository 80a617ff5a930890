/**
 * The host contract for TypeScript hosts in the same process (DESIGN §3): the conversation is
 * passed by reference and edited in place; the originals are kept and written back by `restore`
 * (called at each turn's end and before the next model call), exactly as the Python bridge does.
 * It applies `tool_calls` edits too (it says so in its `hello`: hosts/capabilities.ts), replacing
 * an assistant message's list of calls for one view and putting the very list back at `restore`;
 * an edit that would change a call's id, type, name or order is refused (core/tool-calls.ts).
 *
 * Invariant: after `restore`, every message's `content` and `tool_calls` are the very values they
 * were before (same string, same list object), so the host's conversation is byte-identical to
 * an HMC-less run.
 */
import type { HmcHostApi, ModelCallEdit } from '../core/host-api.js';
import type { Message } from '../core/message.js';
import { toolCallsEditProblem } from '../core/tool-calls.js';

interface Original {
  message: Message;
  /** The message's own content, when an edit replaced it. */
  content?: { value: unknown };
  /** The message's own list of calls, when an edit replaced it. */
  calls?: { had: boolean; value: unknown };
}

interface Applied {
  originals: Map<number, Original>;
}

/** A TypeScript host's side of the contract, over any implementation of it (the engine, a runtime's api). */
export class InProcessHost<A extends HmcHostApi = HmcHostApi> {
  private readonly applied = new Map<string, Applied>();

  constructor(readonly engine: A) {
    // No capability list: the engine knows this host by its name (hosts/capabilities.ts).
    engine.hello({ host: 'in-process', protocol: 1 });
  }

  /** Before a model call: restores earlier edits, then edits `messages` in place for this call. */
  preLlmCall(
    sessionId: string,
    messages: Message[],
    extra: { model?: string; platform?: string; context_length?: number } = {},
  ): { context?: string } {
    this.restore(sessionId);
    const result = this.engine.preLlmCall({ session_id: sessionId, messages, ...extra });
    this.apply(sessionId, messages, result.edits);
    return result.context !== undefined ? { context: result.context } : {};
  }

  /**
   * Before every model call of the tool loop: restores earlier edits, then edits `messages` (the
   * request about to be sent, or the live conversation) in place for this one call.
   */
  preModelCall(
    sessionId: string,
    messages: Message[],
    extra: { model?: string; platform?: string; context_length?: number } = {},
  ): void {
    this.restore(sessionId);
    const result = this.engine.preModelCall({ session_id: sessionId, messages, ...extra });
    this.apply(sessionId, messages, result.edits);
  }

  /** Applies a view's edits in place, keeping each original for `restore`. */
  apply(sessionId: string, messages: readonly Message[], edits: readonly ModelCallEdit[]): void {
    this.restore(sessionId);
    const originals = new Map<number, Original>();
    for (const edit of edits) {
      const message = messages[edit.index];
      if (!message) continue;
      const original: Original = { message };
      if (edit.tool_calls !== undefined && toolCallsEditProblem(message.tool_calls, edit.tool_calls) === null) {
        original.calls = { had: 'tool_calls' in message, value: message.tool_calls };
        message.tool_calls = edit.tool_calls;
      }
      if (edit.content !== undefined) {
        original.content = { value: message.content };
        message.content = edit.content;
      }
      originals.set(edit.index, original);
    }
    this.applied.set(sessionId, { originals });
  }

  /** After a tool ran: the result the model should see (the raw one when HMC leaves it). */
  postToolCall(
    sessionId: string,
    toolName: string,
    args: unknown,
    result: string,
    toolCallId: string,
    isError = false,
  ): string {
    const answer = this.engine.postToolCall({
      session_id: sessionId,
      tool_name: toolName,
      args,
      result,
      tool_call_id: toolCallId,
      is_error: isError,
    });
    return answer.replace ?? result;
  }

  preToolCall(sessionId: string, toolName: string, args: unknown, toolCallId: string): void {
    this.engine.preToolCall({ session_id: sessionId, tool_name: toolName, args, tool_call_id: toolCallId });
  }

  /** Puts every original content back on the very message objects that were edited. */
  restore(sessionId: string): void {
    const applied = this.applied.get(sessionId);
    if (!applied) return;
    for (const { message, content, calls } of applied.originals.values()) {
      if (content) message.content = content.value;
      if (calls?.had) message.tool_calls = calls.value as Message['tool_calls'];
      else if (calls) delete message.tool_calls;
    }
    this.applied.delete(sessionId);
  }

  /**
   * The end of a turn: restore, then let the engine record. A host that does not call
   * `preModelCall` passes the conversation, so the turn's replies count as model calls now.
   */
  onSessionEnd(sessionId: string, messages?: Message[]): void {
    this.restore(sessionId);
    this.engine.onSessionEnd({
      session_id: sessionId,
      completed: true,
      interrupted: false,
      ...(messages ? { messages } : {}),
    });
  }

  /**
   * The session is let go: restore, count the last replies (when the conversation is given),
   * record. `reason` `finished` (a replay's or the demo's end) ends it; `shutdown` (the host
   * process exits) leaves it idle, to be resumed.
   */
  onSessionFinalize(sessionId: string, messages?: Message[], reason: 'finished' | 'shutdown' = 'finished'): void {
    this.restore(sessionId);
    this.engine.onSessionFinalize({ session_id: sessionId, reason, ...(messages ? { messages } : {}) });
  }
}
