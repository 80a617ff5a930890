/**
 * The engine's EventSink for a process: stamps each event (`id`, `source`, `time`), fans it out
 * synchronously to in-process subscribers (the in-process dashboard), and appends it to
 * `<stateDir>/events/<source>.jsonl` so `hmc dashboard` in another process can tail it.
 * Inspector records go to `<stateDir>/inspect/<source>.jsonl` and a small in-memory ring.
 *
 * Invariant: `emit` and `inspect` never block and never throw into the caller (a failing
 * subscriber is logged and skipped; the disk is written in the background and drops when slow).
 */
import { join } from 'node:path';
import { safeFileName } from '../config/paths.js';
import type { EventPayload, EventSink, HmcEvent, InspectRecord } from './types.js';
import { JsonlAppender } from './jsonl-appender.js';
import { cleanupFolder } from './cleanup.js';
import { errorText } from '../core/errors.js';

export interface StateDirSinkOptions {
  stateDir: string;
  /** Names this process's files and prefixes event ids; default `sidecar-<pid>-<start ms>`. */
  source?: string;
  /** Keep before/after records for the inspector (config `dashboard.inspector`). */
  inspector: boolean;
  log: (line: string) => void;
}

export interface StateDirSink extends EventSink {
  /** Called synchronously with every stamped event; returns the unsubscribe function. */
  subscribe(fn: (e: HmcEvent) => void): () => void;
  /** Inspector records kept in memory (newest last), for lookups in this process. */
  recentInspect(id: string): InspectRecord | undefined;
  readonly source: string;
  /** The event file this sink writes (so a tail in the same process can skip it). */
  readonly eventsFile: string;
  /** Waits for pending writes, then closes the files. */
  close(): Promise<void>;
}

/** How many inspector records stay in memory per process. */
export const INSPECT_MEMORY = 200;
/** The inspector file is larger than the events one: records carry whole tool outputs. */
const INSPECT_FILE_CAP = 64 * 1024 * 1024;

export function eventsDir(stateDir: string): string {
  return join(stateDir, 'events');
}
export function inspectDir(stateDir: string): string {
  return join(stateDir, 'inspect');
}

export function createStateDirSink(opts: StateDirSinkOptions): StateDirSink {
  const source = safeFileName(opts.source ?? `sidecar-${process.pid}-${Date.now()}`);
  const fileName = `${source}.jsonl`;
  const eventsFile = join(eventsDir(opts.stateDir), fileName);
  const events = new JsonlAppender({ path: eventsFile, log: opts.log });
  const inspects = opts.inspector
    ? new JsonlAppender({
        path: join(inspectDir(opts.stateDir), fileName),
        maxFileBytes: INSPECT_FILE_CAP,
        log: opts.log,
      })
    : null;
  const subscribers = new Set<(e: HmcEvent) => void>();
  const recent = new Map<string, InspectRecord>();
  let seq = 0;

  const keep = new Set([fileName]);
  cleanupFolder(eventsDir(opts.stateDir), { keep });
  cleanupFolder(inspectDir(opts.stateDir), { keep });

  return {
    source,
    eventsFile,
    emit(payload: EventPayload): void {
      try {
        seq++;
        const event: HmcEvent = { ...payload, id: `${source}:${seq}`, source, time: Date.now() };
        for (const fn of subscribers) {
          try {
            fn(event);
          } catch (err) {
            opts.log(`hmc events: subscriber failed: ${errorText(err)}`);
          }
        }
        events.append(JSON.stringify(event));
      } catch (err) {
        opts.log(`hmc events: emit failed: ${errorText(err)}`);
      }
    },
    inspect(record: InspectRecord): void {
      if (!inspects) return;
      try {
        recent.delete(record.id);
        recent.set(record.id, record);
        if (recent.size > INSPECT_MEMORY) {
          const oldest = recent.keys().next().value;
          if (oldest !== undefined) recent.delete(oldest);
        }
        inspects.append(JSON.stringify(record));
      } catch (err) {
        opts.log(`hmc events: inspect failed: ${errorText(err)}`);
      }
    },
    subscribe(fn) {
      subscribers.add(fn);
      return () => void subscribers.delete(fn);
    },
    recentInspect(id) {
      return recent.get(id);
    },
    async close() {
      subscribers.clear();
      await Promise.all([events.close(), inspects?.close()]);
    },
  };
}
