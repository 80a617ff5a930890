/**
 * HMC as the host's context engine (issue 16, core/context-engine.ts): the four methods a
 * context-engine host calls beside the hooks. Whether to compact (pressure.ts), the compaction
 * (compaction.ts), the provider's usage of each model call into analytics, and the engine's
 * session boundaries.
 *
 * Invariants: no method throws (a failure is an answer that says so: the host hands over to its
 * own compressor); none of the boundaries ends HMC's session (the hooks' finalize does); a usage
 * row carries HMC's figures only for a call HMC counted since the previous row.
 */
import type {
  CompressParams,
  CompressResult,
  ContextEngineApi,
  EngineSessionParams,
  ShouldCompressParams,
  ShouldCompressResult,
  UpdateFromResponseParams,
} from '../../core/context-engine.js';
import type { HmcConfig } from '../../config/keys.js';
import { errorText } from '../../core/errors.js';
import type { SessionRecorder } from '../../store/types.js';
import { compact, type CompactionDeps } from './compaction.js';
import { pressure } from './pressure.js';
import type { RecallStore } from '../session/recall.js';
import type { Session } from '../session/session.js';
import { cacheBreak, matchCall } from '../ledger/usage-match.js';

export interface ContextEngineDeps {
  config: () => HmcConfig;
  /** The session by id, loaded from its file when this process does not hold it (null: no id). */
  session: (id: string) => Session | null;
  /** The session if this process holds it (never creates one). */
  held: (id: string) => Session | undefined;
  recorder: SessionRecorder | null;
  recall: RecallStore;
  compaction: () => CompactionDeps;
  save: (s: Session) => void;
  /** Runs the queued accounting soon (settle.ts). */
  schedule: () => void;
  now: () => number;
  log: (line: string) => void;
}

export class ContextEngineMethods implements ContextEngineApi {
  /** The last compaction's phases, so a host that went on under a new session id can still recall them. */
  private lastCompaction: { sessionId: string; recallIds: string[] } | null = null;

  constructor(private readonly deps: ContextEngineDeps) {}

  shouldCompress(p: ShouldCompressParams): ShouldCompressResult {
    try {
      const s = p.session_id ? this.deps.session(p.session_id) : null;
      return pressure(s, p, this.deps.config().enabled);
    } catch (err) {
      // Unsure means the host's own figure decides (never a silent "no").
      this.deps.log(`hmc: should_compress failed, the host's own figure decides: ${errorText(err)}`);
      return {
        compress: p.threshold_tokens > 0 && p.tokens >= p.threshold_tokens,
        tokens: p.tokens,
        reason: "HMC could not measure; the host's figure",
      };
    }
  }

  async compress(p: CompressParams): Promise<CompressResult> {
    const s = p.session_id ? this.deps.session(p.session_id) : null;
    if (!s) return { plan: null, reason: 'no session id' };
    try {
      const result = await compact(s, p, this.deps.compaction());
      if (result.plan) {
        this.lastCompaction = { sessionId: s.id, recallIds: result.recall_ids ?? [] };
        this.deps.save(s);
      }
      return result;
    } catch (err) {
      this.deps.log(`hmc: compaction of session ${s.id} failed: ${errorText(err)}`);
      return { plan: null, reason: `HMC failed: ${errorText(err)}` };
    }
  }

  updateFromResponse(p: UpdateFromResponseParams): Record<string, never> {
    try {
      const config = this.deps.config();
      const recorder = this.deps.recorder;
      const s = p.session_id ? this.deps.session(p.session_id) : null;
      if (!s || !config.enabled || !config.analytics.enabled || !recorder?.recordUsage) return {};
      if (p.model) s.meta.modelReported(p.model);
      const at = p.at ?? this.deps.now();
      if (p.price && p.model) recorder.recordHostPrice?.(p.model, p.price, at);
      // After the call's own accounting (queued at pre_model_call), so its figures are there.
      s.ledger.defer(() => {
        const trail = s.counts.usageTrailFrom(s.engine.usage_calls);
        const call = matchCall(s.ledger.calls, s.ledger.modelCalls, trail, p.call_id);
        const seq = s.engine.usageRecorded(s.ledger.modelCalls);
        const broke = cacheBreak(trail, p.usage, call, at);
        recorder.recordUsage?.({
          session_id: s.id,
          seq,
          at,
          model: p.model,
          provider: p.provider,
          ...p.usage,
          hmc_input: call?.hmc ?? null,
          raw_input: call?.raw ?? null,
          hmc_cached: call?.cached ?? null,
          raw_cached: call?.cached_raw ?? null,
          call_id: p.call_id ?? '',
          turn: call?.turn ?? null,
          seen: call !== undefined,
          source: p.source ?? 'engine',
          break_tokens: broke.tokens,
          break_cause: broke.cause,
        });
      });
      this.deps.schedule();
    } catch (err) {
      this.deps.log(`hmc: update_from_response failed: ${errorText(err)}`);
    }
    return {};
  }

  engineSession(p: EngineSessionParams): Record<string, never> {
    try {
      const last = this.lastCompaction;
      if (
        p.event === 'start' &&
        p.boundary_reason === 'compression' &&
        last &&
        p.old_session_id === last.sessionId &&
        p.session_id &&
        p.session_id !== last.sessionId
      ) {
        // Compacted into a new session (Hermes 0.16): the summaries it goes on with name these ids.
        for (const id of last.recallIds) {
          const entry = this.deps.recall.get(last.sessionId, id);
          if (entry) this.deps.recall.put(p.session_id, id, entry.tool, entry.content);
        }
      }
      // Hermes ends the engine's session at every compaction and every `-q` exit: save, never finalize.
      const s = p.event === 'end' ? this.deps.held(p.session_id) : undefined;
      if (s) this.deps.save(s);
    } catch (err) {
      this.deps.log(`hmc: engine_session failed: ${errorText(err)}`);
    }
    return {};
  }
}
