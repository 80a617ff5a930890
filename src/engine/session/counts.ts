/**
 * A session's calls as counted: its turn, when the last model call was made, cache breaks, tool
 * calls, what was said once (the system context), the host's id and measure of the call, and the
 * cache and usage trails the next call is matched against (ledger/cache-track.ts, usage-match.ts).
 *
 * Invariant: read-only to the outside; each change is a method named for what happened at a hook.
 */
import { newTrack, trackCall, type CacheTrack } from '../ledger/cache-track.js';
import { newTrail, type UsageTrail } from '../ledger/usage-match.js';

export class CallCounts {
  private _turn = 0;
  private _turnHookSeen = false;
  private _lastCallAt = 0;
  private _cacheBreaks = 0;
  private _toolCalls = 0;
  private _contextSent = false;
  private _callsAtSend = false;
  private _lastCallId = '';
  private _hostTokens: number | undefined = undefined;
  private _compactionsAtCall = 0;
  private readonly _cacheTrack: CacheTrack = newTrack();
  private _usageTrail: UsageTrail | undefined;
  private _lastTurnEvent = '';
  private _quietCalls = 0;

  constructor(saved?: {
    turns: number;
    cache_breaks: number;
    tool_calls: number;
    context_sent: boolean;
    calls_at_send?: boolean;
    last_call_at: number;
  }) {
    if (saved) {
      this._turn = saved.turns;
      this._cacheBreaks = saved.cache_breaks;
      this._toolCalls = saved.tool_calls;
      this._contextSent = saved.context_sent;
      this._callsAtSend = saved.calls_at_send === true;
      this._lastCallAt = saved.last_call_at;
    }
  }

  get turn(): number {
    return this._turn;
  }
  /**
   * This process has had a pre_llm_call for the session: turns open there, so user messages the
   * host adds inside a turn (Hermes' verify-on-stop nudges) open none. Not saved.
   */
  get turnHookSeen(): boolean {
    return this._turnHookSeen;
  }
  /** When the last model call was made (ms; the messages' own timestamps when they carry them). */
  get lastCallAt(): number {
    return this._lastCallAt;
  }
  get cacheBreaks(): number {
    return this._cacheBreaks;
  }
  get toolCalls(): number {
    return this._toolCalls;
  }
  /** Model calls in this process answered without running the list-wide pass (list-wide/quiet.ts). Not saved. */
  get quietCalls(): number {
    return this._quietCalls;
  }
  /** A model call was quiet: the list-wide pass could change nothing and was skipped. */
  passSkipped(): void {
    this._quietCalls++;
  }
  get contextSent(): boolean {
    return this._contextSent;
  }
  /** Model calls are counted when sent (the host calls pre_model_call before each one). */
  get callsAtSend(): boolean {
    return this._callsAtSend;
  }
  /** The host's id of the last call counted (a retry of the same request is not counted again). */
  get lastCallId(): string {
    return this._lastCallId;
  }
  /** The host's own measure of the request being sent now (pre_model_call `host_tokens`), raw. */
  get hostTokens(): number | undefined {
    return this._hostTokens;
  }
  /** Compactions HMC had made as the context engine at the previous model call (a rewrite since is HMC's). Not saved. */
  get compactionsAtCall(): number {
    return this._compactionsAtCall;
  }
  /** What the next counted call's cache model knows of the changes since the last one (cache-track.ts). Not saved. */
  get cacheTrack(): Readonly<CacheTrack> {
    return this._cacheTrack;
  }
  /** The previous provider usage row, for matching and cache breaks (usage-match.ts). Not saved. */
  get usageTrail(): UsageTrail | undefined {
    return this._usageTrail;
  }
  /** The last turn event sent: its turn and the input figures it showed. */
  get lastTurnEvent(): string {
    return this._lastTurnEvent;
  }

  /**
   * A call came: a turn opens at pre_llm_call (once per user turn); at a pre_model_call only when
   * this process joined the session mid-turn (`users`: user messages held). A nudge the host
   * appends as a user message between model calls is part of the turn (Hermes drops it from the
   * history at the turn end).
   */
  openTurn(atTurnHook: boolean, users: number): void {
    if (atTurnHook || !this._turnHookSeen) this._turn = Math.max(this._turn, users);
    if (atTurnHook) this._turnHookSeen = true;
  }

  /**
   * A call came: from the first pre_model_call (`atSend`) on, calls are counted when sent; the
   * host's measure describes that one request (none for a pre_llm_call).
   */
  callCame(atSend: boolean, hostTokens: number | undefined): void {
    if (atSend) this._callsAtSend = true;
    this._hostTokens = atSend ? hostTokens : undefined;
  }

  /** A model call was made at `at`. */
  callMade(at: number): void {
    this._lastCallAt = at;
  }

  cacheBroke(): void {
    this._cacheBreaks++;
  }

  toolCalled(): void {
    this._toolCalls++;
  }

  /** The system context went out (once per session). */
  contextGiven(): void {
    this._contextSent = true;
  }

  /** True when HMC compacted the history as the context engine since the previous model call. */
  compactedSince(compactions: number): boolean {
    const compacted = compactions > this._compactionsAtCall;
    this._compactionsAtCall = compactions;
    return compacted;
  }

  /** The cache model's step for this call (cache-track.ts `trackCall`). */
  trackCall(step: Parameters<typeof trackCall>[1], counted: boolean, length: number): ReturnType<typeof trackCall> {
    return trackCall(this._cacheTrack, step, counted, length);
  }

  /** The host's call `id` is counted; false when it was the last one counted (a retry). */
  callCounted(id: string): boolean {
    if (id && id === this._lastCallId) return false;
    this._lastCallId = id;
    return true;
  }

  /** The usage trail, begun at `counted` model calls when there is none yet. */
  usageTrailFrom(counted: number): UsageTrail {
    this._usageTrail ??= newTrail(counted);
    return this._usageTrail;
  }

  /** A turn event went out showing `key`. */
  turnEventSent(key: string): void {
    this._lastTurnEvent = key;
  }
}
