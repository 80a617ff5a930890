/**
 * The held conversation's vocabulary: a message as the engine holds it (raw content, its
 * single-output compression, a list-wide placeholder, a layer-1 summary), why a placeholder is in
 * force, a summarised phase, and what the host said of a tool call.
 *
 * Invariant: types and one pure mapping only; the raw content held is the host's, by reference.
 */
import {
  PLACEHOLDER_KINDS,
  STRATEGY_OF_KIND,
  type PlaceholderKind,
  type StrategyName,
} from '../../strategies/index.js';
import type { FileOp } from '../../strategies/shared/file-ops.js';
import type { OutputKind } from '../../core/strategy.js';
import type { Message, ToolCall } from '../../core/message.js';
import type { InputClearing } from '../../strategies/list-wide/input-clearing.js';
import type { OutputMemo } from './memo.js';

/** One single-output strategy's step: what it made of the whole result (turn/compress.ts). */
export interface CompressStep {
  strategy: StrategyName;
  /** The whole result after this step. */
  content: string;
}

export interface Compression {
  /** The result as the tool returned it. */
  raw: string;
  /** The result as the model is sent it (`raw` when nothing applied). */
  content: string;
  steps: CompressStep[];
  isError: boolean;
  kind: OutputKind;
}

/**
 * Why a tool result is sent as a placeholder: a kind of a list-wide strategy of the registry
 * (strategies/index.ts: an older duplicate `dedup`, a new exact repeat `repeat` credited to dedup,
 * an old failure, a superseded read, an edit's output without its echoed snippet, an old output
 * cleared to make room), or the user's sweep.
 */
export type PruneKind = PlaceholderKind;

export const PRUNE_KINDS: readonly PruneKind[] = PLACEHOLDER_KINDS;

/** The strategy a prune's savings are credited to. */
export function creditedStrategy(kind: PruneKind): string {
  return STRATEGY_OF_KIND.get(kind)?.name ?? kind;
}

export interface Prune {
  strategy: PruneKind;
  /** The placeholder's words (kept across processes, so a new one sends the same bytes). */
  text: string;
  /** For error purge: the age the words state (the words quote the output, so only this is kept). */
  age?: number;
  /** For a stale read: what superseded it (its path and lines are read again from the call). */
  stale?: StaleDetail;
  /** The placeholder result the model is sent instead (the words inside the tool's envelope). */
  content: string;
}

/** What made a read stale, as its marker states it. */
export interface StaleDetail {
  by: 'read' | 'write' | 'patch';
  byCall: string;
}

export interface MessageState {
  role: string;
  /** The host's content, by reference. */
  raw: unknown;
  /** tool_call_id, or `#index` for a tool message without one. */
  key: string;
  tool: string;
  /** The tool call's arguments as the host gave them (never persisted). */
  args: unknown;
  /** User turns before this message (1 for the first turn's messages). */
  turn: number;
  /** Single-output compression of a tool result (null for other messages / non-string content). */
  single: Compression | null;
  /** A list-wide rewrite in force. */
  prune: Prune | null;
  /** Tool-call arguments and ids as the host sent them, counted as input. */
  extra: string;
  /** An assistant message whose calls are sent with short arguments (input clearing), else null. */
  inputs: HeldInputs | null;
  /** The message as the host sent it (a shallow copy taken raw: every field, in its order), for layer 1 and its recall. */
  source: Message;
  /** Layer 1: what this message is sent as while its range is summarised (the summary or a stub). */
  summary: string | null;
  /** What the list-wide pass worked out of this tool result, once (engine/list-wide/facts.ts). */
  listWide?: ListWideMemo;
  /** What is worked out once from the raw content (its envelope, whether it reports a failure; memo.ts). */
  memo: OutputMemo;
}

/** A tool result's facts for the list-wide pass, each worked out once (its raw output never changes). */
export interface ListWideMemo {
  /** What it did to a file, and whether a read showed lines (from its envelope, parsed once). */
  fileOp?: { op: FileOp | null; shows: boolean };
  /** How to put a placeholder inside its envelope (the same parse). */
  placeholder?: (text: string) => string;
  /** The last placeholder weighed: its words, the view it would replace, and its content when shorter. */
  proposal?: { text: string; current: string; content: string | null };
  recallId?: string;
  /** The paths its file operation names, normalised against the project they were for. */
  paths?: { project: string; paths: string[] };
  /** The strategies' own answers (`ListWideContext.once`), by slot, with the key they hold for. */
  slots?: Map<string, { key: string; value: unknown }>;
}

/** The calls of an assistant message as sent while some of their arguments are cleared. */
export interface HeldInputs {
  /** Which calls are cleared, and why (the words follow from it, so they never change once sent). */
  cleared: ReadonlyMap<string, InputClearing>;
  /** The message's whole list of calls as sent: the cleared ones with short arguments, the others as they are. */
  calls: ToolCall[];
  /** What the calls cost as sent (`messageExtra` of the message with these calls). */
  extra: string;
}

/** A range of the conversation layer 1 summarised (issue 10): the summary the model now sees in its place. */
export interface Phase {
  /** 1, 2, … per session; an update keeps its id. */
  id: number;
  /** Held message indices, inclusive. */
  from: number;
  to: number;
  /** Digest of the range's raw messages: a new process puts the summary back only over the same messages. */
  digest: string;
  /** `hmc_control action=recall id=…` gives the exact raw messages back. */
  recallId: string;
  topic: string;
  /** The summary (secrets redacted); the range's first message is sent as it, the others as stubs. */
  summary: string;
  /** Estimated tokens of the range as sent before, and after. */
  tokensBefore: number;
  tokensAfter: number;
  /** How many times the summary was updated as its range grew. */
  updates: number;
  model: string;
  createdAt: number;
  /** User turns the range covers. */
  turnFrom: number;
  turnTo: number;
}

/** What the host told us about a tool call (pre/post_tool_call). */
export interface ToolRecord {
  tool: string;
  /** Fingerprint of tool + sorted args, hashed (no raw arguments are kept on disk). */
  fingerprint: string;
  turn: number;
  isError: boolean;
  /** HMC shortened the output when it arrived (work.ts: a later read of it again is a re-read). */
  shortened?: boolean;
}
