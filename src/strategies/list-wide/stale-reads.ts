/**
 * Stale reads (list-wide): a file read is out of date once the same file is later read again over
 * the same or a covering range, rewritten, or patched. Its old copy can then be replaced by a short
 * marker naming the path, the lines, and where the newer content is.
 *
 * Keeps: the latest read of every range; reads followed only by failed writes or patches; reads
 * whose later re-read showed no numbered lines (a host's "unchanged" stub, an error, a page of a
 * different range); protected reads (the engine filters those out before asking).
 *
 * Pure: a function of the ordered file operations it is given. `staleReads` is the registered
 * list-wide strategy (kind `stale_reads`): it proposes the marker over the held list, and words a
 * marker in force again from what superseded the read (its path and lines are read again).
 */
import type { LineSpan } from '../shared/file-ops.js';
import { fileName, samePath } from '../shared/file-ops.js';
import { staleReadPlaceholder } from './placeholders.js';
import type { FileEvent, ListWideStrategy } from './strategy.js';

export type { FileEvent };

export interface StaleRead {
  path: string;
  span: LineSpan;
  tool: string;
  /** What made it stale. */
  by: 'read' | 'write' | 'patch';
  /** The call id of the newer read, write or patch. */
  byCall: string;
}

/** A read is compared with at most this many later events of its file (a bound on pathological histories). */
const MAX_LATER = 200;

/** The reads among `events` that a later event superseded, keyed by their id. */
export function findStaleReads(events: readonly FileEvent[]): Map<string, StaleRead> {
  // Only events on the same file can supersede each other: group them by file name first.
  const groups = new Map<string, FileEvent[]>();
  for (const e of events) {
    for (const name of new Set(e.paths.map(fileName))) {
      const group = groups.get(name);
      if (group) group.push(e);
      else groups.set(name, [e]);
    }
  }
  const stale = new Map<string, StaleRead>();
  for (const group of groups.values()) {
    for (let i = 0; i < group.length; i++) {
      const read = group[i] as FileEvent;
      if (read.op.op !== 'read' || read.failed || stale.has(read.id)) continue;
      const path = read.paths[0] as string;
      const span = read.op.span;
      for (let j = i + 1; j < group.length && j <= i + MAX_LATER; j++) {
        const later = group[j] as FileEvent;
        if (later.failed || !later.paths.some((p) => samePath(p, path))) continue;
        const op = later.op;
        if (op.op === 'read') {
          if (later.showsLines && covers(op.span, span)) {
            stale.set(read.id, { path, span, tool: read.tool, by: 'read', byCall: later.callId });
            break;
          }
          continue;
        }
        stale.set(read.id, { path, span, tool: read.tool, by: op.op, byCall: later.callId });
        break;
      }
    }
  }
  return stale;
}

/** `outer` shows every line of `inner`. */
export function covers(outer: LineSpan, inner: LineSpan): boolean {
  return outer.first <= inner.first && outer.last >= inner.last;
}

export const staleReads: ListWideStrategy<'stale_reads'> = {
  name: 'stale_reads',
  kinds: ['stale_reads'],
  config: 'strategies.stale_reads',
  propose(ctx) {
    for (const [id, info] of findStaleReads(ctx.fileEvents())) {
      const m = ctx.message(id);
      if (!m || ctx.protection.tool(m.tool)) continue;
      // The path as the agent wrote it.
      const shown = { ...info, path: ctx.readOf(m)?.path ?? info.path };
      ctx.propose(m, 'stale_reads', staleReadPlaceholder(shown, ctx.style), {
        stale: { by: info.by, byCall: info.byCall },
      });
    }
  },
  rewords(_kind, m, ctx) {
    const stale = ctx.savedDetail(m.key).stale;
    const read = ctx.readOf(m);
    return stale && read
      ? {
          text: staleReadPlaceholder({ path: read.path, span: read.span, tool: m.tool, ...stale }, ctx.style),
          extra: { stale },
        }
      : null;
  },
};
