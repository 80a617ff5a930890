/**
 * Who a session is and what the host says of it: when it started and ended, its model, platform,
 * user, project, context window, the host's own compression threshold, and manual mode.
 *
 * Invariant: read-only to the outside; the host's hints change it only through `takeHints` (a
 * value the host leaves out changes nothing), the user only through `switchManual`.
 */

/** What the host says of the session with each call (pre_llm_call / pre_model_call). */
export interface SessionHints {
  model?: string | undefined;
  platform?: string | undefined;
  sender_id?: string | undefined;
  context_length?: number | undefined;
  project_path?: string | undefined;
  compression_threshold?: number | undefined;
}

export class SessionMeta {
  private _endedAt: number | null = null;
  private _lastActive: number;
  private _model = '';
  private _platform = '';
  private _user = '';
  private _projectPath = '';
  private _contextWindow = 0;
  private _manual: boolean;
  private _hostThreshold: number | undefined = undefined;

  constructor(
    readonly startedAt: number,
    now: number,
    manual: boolean,
    saved?: { model: string; platform: string; user?: string; project_path: string; context_window: number },
  ) {
    this._lastActive = now;
    this._manual = manual;
    if (saved) {
      this._model = saved.model;
      this._platform = saved.platform;
      this._user = saved.user ?? '';
      this._projectPath = saved.project_path;
      this._contextWindow = saved.context_window;
    }
  }

  get endedAt(): number | null {
    return this._endedAt;
  }
  get lastActive(): number {
    return this._lastActive;
  }
  get model(): string {
    return this._model;
  }
  get platform(): string {
    return this._platform;
  }
  /** The user the host serves this session for ('' when it names none: the machine's own; owner.ts). */
  get user(): string {
    return this._user;
  }
  get projectPath(): string {
    return this._projectPath;
  }
  get contextWindow(): number {
    return this._contextWindow;
  }
  get manual(): boolean {
    return this._manual;
  }
  /** The host's own compression threshold (0..1 of the window), when it says. */
  get hostThreshold(): number | undefined {
    return this._hostThreshold;
  }

  /** The host described the session with a call: what it names is kept, what it leaves out stays. */
  takeHints(p: SessionHints): void {
    if (p.model) this._model = p.model;
    if (p.platform) this._platform = p.platform;
    if (p.sender_id) this._user = p.sender_id;
    if (p.context_length !== undefined && p.context_length > 0) this._contextWindow = p.context_length;
    if (p.project_path) this._projectPath = p.project_path;
    if (p.compression_threshold !== undefined && p.compression_threshold > 0 && p.compression_threshold <= 1)
      this._hostThreshold = p.compression_threshold;
  }

  /** The provider's usage row named the model of a session that had none yet. */
  modelReported(model: string): void {
    if (model && !this._model) this._model = model;
  }

  /** The session names no project: it is in `path` (the configured one). */
  defaultProject(path: string): void {
    if (!this._projectPath) this._projectPath = path;
  }

  /** A hook for the session came (the table's most recent one). */
  touched(now: number): void {
    this._lastActive = now;
  }

  /** The user turned manual mode on or off. */
  switchManual(enabled: boolean): void {
    this._manual = enabled;
  }

  /** The host ended the session (`at`), or resumed it (null). */
  markEnded(at: number | null): void {
    this._endedAt = at;
  }
}
