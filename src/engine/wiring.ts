/**
 * The engine's parts, built from its options: the recall store, the saves, the sessions table,
 * layer 1, the intake, the background settler and the context-engine methods, plus the private
 * plumbing the hooks share (the fail-open guard, a hook's session lookup, a model call's
 * preparation, a session's release). engine.ts holds the hooks; this file wires what they call.
 *
 * Invariants: built once per Engine, in this order (each part gets only the parts before it); the
 * config is read through `opts.config()` at every use, never cached; the guard lets only
 * `ResyncError` through, everything else fails open with a log line.
 */
import type { HmcConfig } from '../config/keys.js';
import { errorText } from '../core/errors.js';
import { ResyncError, type PreLlmCallParams } from '../core/host-api.js';
import type { Message } from '../core/message.js';
import type { EventSink } from '../events/types.js';
import type { PhaseIndex } from '../store/phase-types.js';
import type { SessionRecorder } from '../store/types.js';
import type { Summariser } from '../summarise/types.js';
import { ContextEngineMethods } from './context-engine/context-engine.js';
import type { ControlDeps } from './control/control.js';
import { Layer1 } from './layer1/layer1.js';
import { reportEnd, type EndDeps } from './saving/endings.js';
import { Persistence } from './saving/persistence.js';
import { RecallStore } from './session/recall.js';
import type { Session } from './session/session.js';
import { SessionTable } from './session/session-table.js';
import { conversationOf, prepareCall, type CallDeps, type CallHook } from './turn/call.js';
import { turnAt } from './turn/events.js';
import { Intake } from './turn/intake.js';
import { END_BUDGET_MS, Settler } from './turn/settle.js';
import { syncConversation } from './turn/sync.js';

export interface EngineOptions {
  /** The config in force (read on every call, so file edits apply while running). */
  config: () => HmcConfig;
  /** Where sessions are persisted; null keeps everything in memory. */
  stateDir: string | null;
  sink: EventSink;
  recorder: SessionRecorder | null;
  /** The session index of summarised phases (layer 1); absent in bare engines. */
  phases?: PhaseIndex;
  log: (line: string) => void;
  now?: () => number;
  /** The host process' project (its working directory's real path). */
  projectPath?: string;
  /** Controls for `hmc_control dashboard` and `analytics`; absent in bare engines. */
  control?: Partial<ControlDeps>;
  /** Run queued work right after each hook (default) or only when `settle()` is called. */
  autoSettle?: boolean;
  /** Bytes of tool output one call compresses before the rest waits (catch-up.ts; tests lower it). */
  callBudgetBytes?: number;
  /** How long past 256 KB of output one call keeps compressing (default 50 ms; catch-up.ts). */
  callBudgetMs?: number;
  /** How long on_session_end may work off a backlog before recording in the background (default 300 ms). */
  endBudgetMs?: number;
  /** True while background work should wait (the sidecar: an answer is still on its way out). */
  holdBackground?: () => boolean;
  /** Layer 1's summariser in force (null or absent: layer 1 is off). Read at each use. */
  summariser?: () => Summariser | null;
  /** Skip the list-wide pass on quiet calls (list-wide/quiet.ts; default true). False: tests compare both. */
  quietCalls?: boolean;
}

/** Runs `fn`; on a throw (but `ResyncError`, which must reach the host) logs `what` and answers `fallback`. */
export type Guard = <T>(what: string, fn: () => T, fallback: T) => T;

export interface EngineParts {
  now: () => number;
  recall: RecallStore;
  saved: Persistence;
  table: SessionTable;
  layer1: Layer1;
  intake: Intake;
  settler: Settler;
  contextEngine: ContextEngineMethods;
  guard: Guard;
  /** A hook's session (or a read's, `hook` false): layer 1's summary in preparation takes a step after every hook. */
  session: (id: string | undefined, hook?: boolean) => Session | null;
  /** The session brought up to this call, or null when no view is answered (off, or a streamed stretch). */
  prepare: (p: PreLlmCallParams, hook: CallHook, toolCalls: boolean) => Session | null;
  /**
   * The session leaves this process: `ended` (finished: `ended_at` set, one `session_end`) or
   * `idle` (its process exits; one `session_idle`, unless no hook touched it here: a session
   * only read by `/hmc` needs no record).
   */
  release: (s: Session, messages: Message[] | undefined, state: 'ended' | 'idle') => void;
  endDeps: () => EndDeps;
}

/** The fail-open guard every hook runs in (the stack too when `debug` is on). */
function guardOf(opts: EngineOptions): Guard {
  return <T>(what: string, fn: () => T, fallback: T): T => {
    try {
      return fn();
    } catch (err) {
      if (err instanceof ResyncError) throw err;
      opts.log(`hmc: ${what} failed, passing through untouched: ${errorText(err)}`);
      if (opts.config().debug && err instanceof Error && err.stack) opts.log(err.stack);
      return fallback;
    }
  };
}

export function engineParts(opts: EngineOptions): EngineParts {
  const now = opts.now ?? Date.now;
  const guard = guardOf(opts);
  const recall = new RecallStore({ stateDir: opts.stateDir, log: opts.log, now });
  const saved = new Persistence({
    stateDir: opts.stateDir,
    config: opts.config,
    recorder: opts.recorder,
    recall,
    log: opts.log,
  });
  const table = new SessionTable({
    load: (id) => saved.load(id),
    manualMode: () => opts.config().manual_mode.enabled,
    now,
    projectPath: opts.projectPath ?? '',
  });
  const layer1 = new Layer1({
    summariser: () => opts.summariser?.() ?? null,
    recall,
    log: opts.log,
    now,
    staged: (s) => saved.save(s),
  });
  const intake = new Intake({
    recall,
    layer1,
    log: opts.log,
    ...(opts.callBudgetBytes !== undefined ? { callBudgetBytes: opts.callBudgetBytes } : {}),
    ...(opts.callBudgetMs !== undefined ? { callBudgetMs: opts.callBudgetMs } : {}),
  });
  const settler = new Settler({
    sessions: () => table.held.values(),
    autoSettle: opts.autoSettle !== false,
    endBudgetMs: opts.endBudgetMs ?? END_BUDGET_MS,
    catchUpDeps: (s, deadline) => intake.catchUpDeps(s, opts.config(), deadline),
    guard: (what, fn, fallback) => guard(what, fn, fallback),
    ...(opts.holdBackground ? { holdBackground: opts.holdBackground } : {}),
  });
  const session = (id: string | undefined, hook = true): Session | null => {
    if (hook) layer1.afterHook();
    return table.get(id, hook);
  };
  const contextEngine = new ContextEngineMethods({
    config: () => opts.config(),
    session: (id) => session(id),
    held: (id) => table.held.get(id),
    recorder: opts.recorder,
    recall,
    save: (s) => saved.save(s),
    schedule: () => settler.schedule(),
    now,
    log: opts.log,
    compaction: () => ({
      config: opts.config(),
      summariser: opts.summariser?.() ?? null,
      recall,
      phases: opts.phases ?? null,
      sink: opts.sink,
      now,
      log: opts.log,
    }),
  });
  const endDeps = (): EndDeps => ({ sink: opts.sink, saved });

  const prepare = (p: PreLlmCallParams, hook: CallHook, toolCalls: boolean): Session | null => {
    const s = session(p.session_id);
    const config = opts.config();
    if (!s || !config.enabled) return null;
    // ResyncError must reach the host; everything else fails open.
    const { messages, base } = conversationOf(s, p);
    const deps: CallDeps = {
      config,
      layer1,
      recall,
      sync: intake.syncDeps(config),
      now,
      log: opts.log,
      sink: opts.sink,
      phases: opts.phases ?? null,
      toolCalls,
      quietCalls: opts.quietCalls !== false,
    };
    const ready = guard(
      hook.name,
      () => {
        const viewed = prepareCall(s, p, hook, messages, base, deps);
        settler.schedule();
        return viewed;
      },
      false,
    );
    return ready ? s : null;
  };

  const release = (s: Session, messages: Message[] | undefined, state: 'ended' | 'idle'): void => {
    const hooked = table.leave(s);
    if (state === 'idle' && !hooked) return;
    const config = opts.config();
    // A host that still has the conversation sends it, so the last replies count as model calls.
    if (messages) syncConversation(s, messages, intake.syncDeps(config));
    s.meta.markEnded(state === 'ended' ? now() : null);
    const at = turnAt(s);
    const settled = settler.whenSettled(s, () => reportEnd(s, at, config, endDeps(), state));
    if (!settled) settler.draining.add(s);
  };

  return {
    now,
    recall,
    saved,
    table,
    layer1,
    intake,
    settler,
    contextEngine,
    guard,
    session,
    prepare,
    release,
    endDeps,
  };
}
