/**
 * A tool output's first compression, wherever it arrives (post_tool_call, a new message in the
 * conversation, a waiting output caught up between hooks), and its exact copy for recall.
 *
 * Invariant: one output is compressed the same way on every path (same context, same recall id),
 * so a marker reads the same whichever path made it.
 */
import type { HmcConfig } from '../../config/keys.js';
import type { AdvanceDeps } from './catch-up.js';
import { CALL_BUDGET_BYTES, CALL_BUDGET_MS } from './catch-up.js';
import { compressOutput } from './compress.js';
import type { Compression } from '../session/held.js';
import type { Envelope } from '../../hosts/outputs/envelope.js';
import type { Layer1 } from '../layer1/layer1.js';
import { protectionFor } from '../session/protection.js';
import { recallId, type RecallStore } from '../session/recall.js';
import type { Session } from '../session/session.js';
import type { SyncDeps } from './sync.js';

export interface IntakeOptions {
  recall: RecallStore;
  layer1: Layer1;
  log: (line: string) => void;
  /** Bytes of tool output one call compresses before the rest waits (catch-up.ts). */
  callBudgetBytes?: number;
  /** How long past UNTIMED_BYTES one call keeps compressing (catch-up.ts). */
  callBudgetMs?: number;
}

export class Intake {
  constructor(private readonly opts: IntakeOptions) {}

  /** Compresses one output; one shortened (other than a file read) is kept so its markers' recall id answers. */
  compress(
    s: Session,
    config: HmcConfig,
    key: string,
    tool: string,
    raw: string,
    args: unknown,
    hostError: boolean,
    envelope?: () => Envelope,
  ): Compression {
    const id = recallId(s.id, key);
    const comp = compressOutput(
      raw,
      { tool, args, hostError },
      {
        config,
        protection: protectionFor(config),
        manual: s.meta.manual,
        log: this.opts.log,
        recallId: id,
        ...(envelope ? { envelope } : {}),
      },
    );
    if (comp.content !== comp.raw && comp.kind !== 'file') this.opts.recall.put(s.id, id, tool, comp.raw);
    return comp;
  }

  /** What syncing a conversation needs under `config`. */
  syncDeps(config: HmcConfig): SyncDeps {
    return {
      compress: (s, key, tool, raw, args, hostError) => this.compress(s, config, key, tool, raw, args, hostError),
      truncated: (s, from) => this.opts.layer1.truncate(s, from),
      budgetBytes: this.opts.callBudgetBytes ?? CALL_BUDGET_BYTES,
      budgetMs: this.opts.callBudgetMs ?? CALL_BUDGET_MS,
    };
  }

  /** What catching up a session's waiting outputs needs, until `deadline`. */
  catchUpDeps(s: Session, config: HmcConfig, deadline: number): AdvanceDeps {
    return {
      config,
      compress: (m, args, hostError) => this.compress(s, config, m.key, m.tool, m.raw as string, args, hostError),
      deadline,
      sentLength: s.held.previousCallLength,
      changed: (index) => s.viewChanged(index),
    };
  }
}
