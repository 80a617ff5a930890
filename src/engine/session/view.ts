/**
 * The request as HMC last shaped it: per held message, the content sent when it differs from the
 * raw (`edits`) and an assistant message's calls sent short (`callEdits`); the view last answered
 * to pre_model_call (so the next answer can be what changed since); the system prompt and tool
 * schemas the host sent, by reference and as last counted; the context view an earlier process saved.
 *
 * Invariant: read-only to the outside; an edit follows its message's view (Session.refreshEdit),
 * turn/model-call.ts records what a call sent.
 */
import type { ToolCall } from '../../core/message.js';
import type { ContextBreakdown } from '../../core/context-view.js';

export interface AnsweredView {
  id: number;
  edits: ReadonlyMap<number, string>;
  calls: ReadonlyMap<number, ToolCall[]>;
}

export class RequestView {
  private readonly _edits = new Map<number, string>();
  private readonly _callEdits = new Map<number, ToolCall[]>();
  private _lastView: AnsweredView | null = null;
  private readonly _request: { system?: string | null; tools?: readonly unknown[] } = {};
  private readonly _fixedSent: { system?: string | null; tools?: string } = {};

  constructor(private readonly _savedContext: ContextBreakdown | null = null) {}

  /** Current edits: raw index → content sent. */
  get edits(): ReadonlyMap<number, string> {
    return this._edits;
  }
  /** Current edits of assistant messages' calls (input clearing): raw index → the calls sent (pre_model_call only). */
  get callEdits(): ReadonlyMap<number, ToolCall[]> {
    return this._callEdits;
  }
  /** The view last answered to pre_model_call, so the next answer can be what changed since. */
  get lastView(): AnsweredView | null {
    return this._lastView;
  }
  /**
   * The system prompt and tool schemas the host last sent with pre_model_call, by reference (it
   * sends them only when they change): what the context view splits, when asked. Not saved.
   */
  get request(): Readonly<{ system?: string | null; tools?: readonly unknown[] }> {
    return this._request;
  }
  /** The system prompt and tool schemas (JSON) of the last call that sent them: a change breaks the cache. Not saved. */
  get fixedSent(): Readonly<{ system?: string | null; tools?: string }> {
    return this._fixedSent;
  }
  /** The context view's breakdown an earlier process saved, shown until this one sees a request. */
  get savedContext(): ContextBreakdown | null {
    return this._savedContext;
  }

  /** Message `i` is sent as `content` (undefined: as it is) with `calls` (undefined: its own). */
  follow(i: number, content: string | undefined, calls: ToolCall[] | undefined): void {
    if (content !== undefined) this._edits.set(i, content);
    else this._edits.delete(i);
    if (calls) this._callEdits.set(i, calls);
    else this._callEdits.delete(i);
  }

  /** The host rewrote its history from `first` on: the edits there are gone. */
  cutFrom(first: number): void {
    for (const [i] of this._edits) if (i >= first) this._edits.delete(i);
    for (const [i] of this._callEdits) if (i >= first) this._callEdits.delete(i);
  }

  /** pre_model_call sent the system prompt and tools (undefined: unchanged, kept). */
  requestSent(system: string | null | undefined, tools: readonly unknown[] | undefined): void {
    if (system !== undefined) this._request.system = system;
    if (tools) this._request.tools = tools;
  }

  /** The system prompt and tool list (JSON) counted for this call (undefined: the previous ones stand). */
  fixedCounted(system: string | null | undefined, tools: string | undefined): void {
    if (system !== undefined) this._fixedSent.system = system;
    if (tools !== undefined) this._fixedSent.tools = tools;
  }

  /** The view numbered `id` was answered, with these calls' edits; the previous one. */
  answered(id: number, calls: ReadonlyMap<number, ToolCall[]>): AnsweredView | null {
    const previous = this._lastView;
    this._lastView = { id, edits: new Map(this._edits), calls: new Map(calls) };
    return previous;
  }
}
