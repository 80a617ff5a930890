/**
 * The list-wide strategy contract: what a strategy that rewrites tool results across the whole
 * held conversation declares (its placeholder kinds, its config section, how to word a placeholder
 * again) and the read-only view of the held list it proposes over. The engine's list-wide pass
 * (engine/list-wide/list-wide.ts) loops over the registered ones in order, as turn/compress.ts
 * loops over the single-output ones, and keeps every rule a proposal must pass: a placeholder is
 * used only when shorter than what the model is sent now, a placeholder once sent stays word for
 * word, a result another strategy already took is not taken again.
 *
 * Invariant: a strategy only reads the context and proposes; it never writes a message, the
 * session or the ledger, and it keeps no state of its own outside the memos the context lends it.
 */
import type { HmcConfig, SwitchedSection } from '../../config/keys.js';
import type { Message } from '../../core/message.js';
import type { OutputKind } from '../../core/strategy.js';
import type { FileOp } from '../shared/file-ops.js';
import type { PlaceholderStyle } from './placeholders.js';

/** One tool output in conversation order, as the engine sees it for dedup. */
export interface DedupEntry {
  /** The tool call id (unique in the conversation). */
  id: string;
  tool: string;
  /** `argsFingerprint(tool, args)`. */
  fingerprint: string;
  /** The output text, or null when it is not text (multimodal); such entries group by args only. */
  text: string | null;
  /**
   * A precomputed content key (e.g. a digest of the normalised text), used instead of `text` for
   * the content pass, so a caller grouping the same outputs turn after turn hashes each only once.
   * Set it only for outputs long enough to compare (the caller applies MIN_CONTENT_DEDUP_CHARS).
   */
  contentKey?: string;
}

/** One tool call that touched a file, in conversation order. */
export interface FileEvent {
  /** The tool result's key (tool_call_id). */
  id: string;
  /** The tool call's id as the model saw it (to say where the newer content is). */
  callId: string;
  tool: string;
  op: FileOp;
  /** Normalised paths (one for a read). */
  paths: readonly string[];
  /** The call failed (its write or patch did not happen; its read showed nothing). */
  failed: boolean;
  /** A read that showed numbered lines or real text (not a stub). */
  showsLines: boolean;
}

/** A held tool result as a list-wide strategy reads it (the engine's message state, read-only). */
export interface HeldResult {
  /** tool_call_id, or `#index` for a tool message without one. */
  readonly key: string;
  readonly tool: string;
  /** The host's content, by reference (a string for every indexed result). */
  readonly raw: unknown;
  readonly args: unknown;
  /** User turns before this result. */
  readonly turn: number;
  /** Its single-output compression, if any. */
  readonly single: { readonly kind: OutputKind; readonly content: string; readonly isError: boolean } | null;
  /** The placeholder in force in this process, if any. */
  readonly prune: { readonly strategy: string } | null;
  /** The message as the host sent it. */
  readonly source: Readonly<Message>;
}

/** A tool result and where it sits. */
export interface HeldEntry {
  readonly message: HeldResult;
  /** Its index in the held conversation. */
  readonly index: number;
  readonly entry: DedupEntry;
}

/** What a placeholder's words state that cannot be read again from the result (kept across processes). */
export interface WordsDetail {
  /** Error purge: the age the words state. */
  age?: number;
  /** Stale reads: what superseded the read. */
  stale?: { by: 'read' | 'write' | 'patch'; byCall: string };
}

/** A placeholder's words, as a strategy rebuilds them for one already in force. */
export interface SavedWords {
  text: string;
  extra: WordsDetail;
}

/** The protection rules a list-wide strategy must keep (engine/session/protection.ts decides them). */
export interface ListWideProtection {
  /** No strategy touches this tool's output. */
  tool(name: string): boolean;
  /** A read of this path is never rewritten. */
  file(path: string | undefined): boolean;
  /** Lower-case tool names never deduplicated (nor repeated). */
  readonly dedup: ReadonlySet<string>;
  /** Lower-case tool names whose failures are never purged. */
  readonly errorPurge: ReadonlySet<string>;
}

/** The read-only view one pass gives every list-wide strategy, and the one way it proposes. */
export interface ListWideContext {
  readonly config: HmcConfig;
  readonly style: PlaceholderStyle;
  /** The user turn now. */
  readonly turn: number;
  /** The model's context window in tokens. */
  readonly window: number;
  /** Messages from this index on were not sent yet (a change among them costs no cache break). */
  readonly firstUnsent: number;
  /** The project's root, for normalising paths. */
  readonly projectPath: string;
  readonly protection: ListWideProtection;
  /** Tool results in conversation order; the failed ones; one by key. */
  readonly results: readonly HeldEntry[];
  readonly failedResults: readonly HeldEntry[];
  byKey(key: string): HeldEntry | undefined;
  /** The held tool result with this key. */
  message(key: string): HeldResult | undefined;
  /** The first result with exactly this text (long enough to be worth a marker). */
  firstByText(raw: string): HeldEntry | undefined;
  /** Results sharing a call fingerprint or a content digest with another, in order. */
  possibleDuplicates(): DedupEntry[];

  /**
   * Proposes `text` as the placeholder of `m` under `kind` (one of the strategy's kinds). Ignored
   * when an earlier proposal took `m`; kept only when it makes `m` shorter; a placeholder already
   * in force under `kind` stays word for word instead.
   */
  propose(m: HeldResult, kind: string, text: string, extra?: WordsDetail): void;
  /** The kind proposed for this key so far in this pass, if any. */
  proposed(key: string): string | undefined;
  /**
   * Results shown as a pointer to another (a repeat to its source), by key: the source must stay
   * shown while the pointer is (a later strategy locks it), and the pointer takes no other part.
   */
  readonly pointers: Map<string, { source: string; kind: string }>;

  /** What an earlier pass or process had in force for this key: its kind, and what its words stated. */
  inForce(key: string): string | undefined;
  savedText(key: string): string | undefined;
  savedDetail(key: string): WordsDetail;

  /** What the result did to a file (null: nothing known). */
  fileOp(m: HeldResult): FileOp | null;
  /** The read this result is, if it is one. */
  readOf(m: HeldResult): { path: string; span: { first: number; last: number } } | undefined;
  /** The host, or the engine's judgement, says the call failed. */
  failed(m: HeldResult): boolean;
  /** A failure word anywhere in the output. */
  reportsFailure(m: HeldResult): boolean;
  /** The result's recall id. */
  recallId(m: HeldResult): string;
  /** The recall id a generic placeholder names (undefined for a file read, which is read again). */
  recall(m: HeldResult): string | undefined;
  /** The conversation's file events, in order, as sent after this pass's proposals so far. */
  fileEvents(): FileEvent[];
  /** The ids of the current step's calls (the latest assistant message that made any). */
  currentStep(): ReadonlySet<string>;
  /** Estimated tokens a result is sent with after this pass's proposals so far; and the whole context. */
  sentTokens(m: HeldResult): number;
  contextTokens(): number;

  /** A per-message answer, worked out once while `key` stays the same (kept on the message). */
  once<T>(m: HeldResult, slot: string, key: string, compute: () => T): T;
  /**
   * A per-session answer, reused while the held list's duplicate groups, the config, the mode and
   * `key` stay the same (kept on the session).
   */
  cached<T>(slot: string, key: string, compute: () => T): T;
}

/**
 * A list-wide strategy: the placeholder kinds it proposes (in this order of claim), its config
 * section (`<section>.enabled` switches it), what it proposes over the held list, and how to word
 * a placeholder of its kinds again for a later pass or process.
 */
export interface ListWideStrategy<K extends string = string> {
  /** The key its savings are credited under. */
  name: string;
  kinds: readonly K[];
  config: SwitchedSection;
  /**
   * Its marker names a recall id whatever the output (also one numbered like a file read): the
   * exact output is then kept for recall.
   */
  recallsAny?: boolean;
  propose(ctx: ListWideContext): void;
  /**
   * The words of a placeholder in force, rebuilt (null: they cannot be): a kind with this is saved
   * without its words; a kind without it is saved with them and sent again as saved.
   */
  rewords?(kind: K, m: HeldResult, ctx: ListWideContext): SavedWords | null;
}

/** A placeholder's words with the recall id that gives the output back. */
export function withRecall(text: string, id: string | undefined): string {
  return id ? `${text} (recall id=${id})` : text;
}

/** The id the model saw for the call (the result's key, unless it had none). */
export function callIdOf(m: HeldResult): string {
  return m.key.startsWith('#') ? '' : m.key;
}
