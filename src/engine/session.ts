/**
 * One conversation as the engine holds it: per message, its raw content, how it is compressed
 * (single-output strategies, decided once when it first appears) and whether a list-wide rewrite
 * (dedup, error purge, sweep) replaced it; plus what a new process needs to carry on (persisted).
 *
 * Invariant: only the engine's view changes; the raw contents held here are the host's, untouched.
 */
import { createHash } from 'node:crypto';
import type { Compression } from './compress.js';
import { Ledger, type LedgerSnapshot, type ViewSteps } from './ledger.js';
import { RewriteIndex } from './rewrite-index.js';
import type { Message } from '../core/message.js';

/**
 * Why a tool result is sent as a placeholder: an older duplicate (`dedup`), a new exact repeat of an
 * earlier output (`repeat`, credited to dedup), an old failure, a user's sweep, a read the file
 * later superseded, or an old output cleared to make room.
 */
export type PruneKind = 'dedup' | 'repeat' | 'error_purge' | 'sweep' | 'stale_reads' | 'clearing';

export const PRUNE_KINDS: readonly PruneKind[] = ['dedup', 'repeat', 'error_purge', 'sweep', 'stale_reads', 'clearing'];

/** Kinds whose words quote the output or name a path: regenerated from the conversation, never saved. */
const WORDS_NOT_SAVED: ReadonlySet<PruneKind> = new Set(['error_purge', 'stale_reads', 'clearing']);

/** The strategy a prune's savings are credited to. */
export function creditedStrategy(kind: PruneKind): string {
  return kind === 'repeat' ? 'dedup' : kind;
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
  /** Tool-call arguments and ids, counted as input but never compressed. */
  extra: string;
  /** The message as the host sent it (a shallow copy taken raw: every field, in its order), for layer 1 and its recall. */
  source: Message;
  /** Layer 1: what this message is sent as while its range is summarised (the summary or a stub). */
  summary: string | null;
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
}

/** The part of a session that survives the process (DESIGN §8): no contents, no raw arguments. */
export interface PersistedSession {
  version: 1;
  session_id: string;
  started_at: number;
  ended_at: number | null;
  model: string;
  platform: string;
  project_path: string;
  context_window: number;
  manual_mode: boolean;
  last_batch_turn: number;
  prune_count: number;
  cache_breaks: number;
  tool_calls: number;
  turns: number;
  records: Record<string, ToolRecord>;
  pruned: Record<string, PruneKind>;
  /** The words of each dedup or sweep placeholder in force (tool names and counts only). */
  pruned_text: Record<string, string>;
  /** The age stated by each error-purge placeholder in force (its words quote the output). */
  pruned_age: Record<string, number>;
  /** What superseded each stale read in force (its path is read again from the conversation). */
  pruned_stale: Record<string, StaleDetail>;
  /** When the last model call was made (ms), to tell whether the provider's cache went cold. */
  last_call_at: number;
  /** Layer 1's summarised ranges (their summaries are redacted and also in the session index). */
  phases: Phase[];
  /**
   * A summary back from the summariser that had not gone out when the session was saved (it
   * waits for a pass): a new process sends it instead of asking again (Hermes `-q`).
   */
  staged_phase?: { phase: Phase; updated: boolean };
  /** The layer-1 hint last sent (sent again only when it changes). */
  hint_sent: string;
  /** Messages the last model call sent: rewriting one of them in a later process breaks the cache too. */
  sent_length: number;
  swept: string[];
  accounted: string[];
  context_sent: boolean;
  /** The host counts its model calls through pre_model_call (replies are then never counted). */
  calls_at_send?: boolean;
  ledger: LedgerSnapshot;
}

export class Session {
  readonly id: string;
  startedAt: number;
  endedAt: number | null = null;
  lastActive: number;
  model = '';
  platform = '';
  projectPath = '';
  contextWindow = 0;
  manual: boolean;
  messages: MessageState[] = [];
  records = new Map<string, ToolRecord>();
  /** Compressions made at post_tool_call, reused when the result shows up in the conversation. */
  postResults = new Map<string, Compression>();
  /** Keys whose list-wide rewrite is in force, and why. */
  pruned = new Map<string, PruneKind>();
  /** How each placeholder in force was worded, so it never changes once sent (prompt cache). */
  prunedText = new Map<string, string>();
  prunedAge = new Map<string, number>();
  prunedStale = new Map<string, StaleDetail>();
  /** When the last model call was made (ms; the messages' own timestamps when they carry them). */
  lastCallAt = 0;
  /** Layer 1's summarised ranges, oldest first. */
  phases: Phase[] = [];
  /** Phases loaded from disk whose summaries are not yet back on the held messages. */
  phasesToRehold = false;
  /** Layer 1's summary waiting for a pass (also saved, so a new process need not ask again). */
  stagedPhase: { phase: Phase; updated: boolean } | null = null;
  /** The layer-1 hint last sent. */
  hintSent = '';
  /** The host's own compression threshold (0..1 of the window), when it says. */
  hostThreshold: number | undefined = undefined;
  /** The host's own measure of the request being sent now (pre_model_call `host_tokens`), raw. */
  hostTokens: number | undefined = undefined;
  /** Assistant replies among `messages`: the model calls made so far. */
  replies = 0;
  /** The newest timestamp the host's messages carried (ms), or 0 when they carry none. */
  latestStamp = 0;
  /** Keys the user swept (hmc_control sweep), applied at the next model call. */
  swept = new Set<string>();
  sweepPending = false;
  /** Assistant replies already counted as model calls (signatures). */
  accounted = new Set<string>();
  /** Messages the ledger has been told about. */
  ledgerLength = 0;
  lastBatchTurn = 0;
  pruneCount = 0;
  cacheBreaks = 0;
  toolCalls = 0;
  turn = 0;
  /** User messages among `messages`. */
  userCount = 0;
  /**
   * This process has had a pre_llm_call for the session: turns open there, so user messages the
   * host adds inside a turn (Hermes' verify-on-stop nudges) open none. Not saved.
   */
  turnHookSeen = false;
  /** Tool calls seen in assistant messages, by id: results name their call by id. */
  calls = new Map<string, { name: string; args: unknown }>();
  /** Message count at the previous pre_llm_call (what the model had already been sent). */
  previousCallLength = 0;
  contextSent = false;
  /** Model calls are counted when sent (the host calls pre_model_call before each one). */
  callsAtSend = false;
  /** The host's id of the last call counted (a retry of the same request is not counted again). */
  lastCallId = '';
  /** The view last answered to pre_model_call, so the next answer can be what changed since. */
  lastView: { id: number; edits: Map<number, string> } | null = null;
  /** The last turn event sent: its turn and the input figures it showed. */
  lastTurnEvent = '';
  ledger: Ledger;
  /** Tool results grouped for dedup and error purge, kept up to date as messages arrive. */
  rewriteIndex = new RewriteIndex();
  /** Current edits: raw index → content sent. */
  edits = new Map<number, string>();

  constructor(id: string, now: number, manual: boolean, saved?: PersistedSession) {
    this.id = id;
    this.startedAt = saved?.started_at ?? now;
    this.lastActive = now;
    this.manual = saved?.manual_mode ?? manual;
    this.ledger = Ledger.from(saved?.ledger);
    if (saved) {
      this.model = saved.model;
      this.platform = saved.platform;
      this.projectPath = saved.project_path;
      this.contextWindow = saved.context_window;
      this.lastBatchTurn = saved.last_batch_turn;
      this.pruneCount = saved.prune_count;
      this.cacheBreaks = saved.cache_breaks;
      this.toolCalls = saved.tool_calls;
      this.turn = saved.turns;
      this.contextSent = saved.context_sent;
      this.callsAtSend = saved.calls_at_send === true;
      for (const [k, v] of Object.entries(saved.records)) this.records.set(k, v);
      for (const [k, v] of Object.entries(saved.pruned)) this.pruned.set(k, v);
      for (const [k, v] of Object.entries(saved.pruned_text)) this.prunedText.set(k, v);
      for (const [k, v] of Object.entries(saved.pruned_age)) this.prunedAge.set(k, v);
      for (const [k, v] of Object.entries(saved.pruned_stale)) this.prunedStale.set(k, v);
      this.lastCallAt = saved.last_call_at;
      this.phases = saved.phases;
      this.phasesToRehold = saved.phases.length > 0;
      this.stagedPhase = saved.staged_phase ?? null;
      this.hintSent = saved.hint_sent;
      this.previousCallLength = saved.sent_length;
      for (const k of saved.swept) this.swept.add(k);
      for (const k of saved.accounted) this.accounted.add(k);
    }
  }

  /** What the model is sent for message `i`. */
  viewOf(m: MessageState): unknown {
    if (m.summary !== null) return m.summary;
    if (m.prune) return m.prune.content;
    if (m.single) return m.single.content;
    return m.raw;
  }

  stepsOf(m: MessageState): ViewSteps {
    const steps: { strategy: string; content: string }[] = m.single ? [...m.single.steps] : [];
    if (m.prune) steps.push({ strategy: creditedStrategy(m.prune.strategy), content: m.prune.content });
    if (m.summary !== null) steps.push({ strategy: 'background_compression', content: m.summary });
    return { raw: m.raw, steps };
  }

  persist(): PersistedSession {
    return {
      version: 1,
      session_id: this.id,
      started_at: this.startedAt,
      ended_at: this.endedAt,
      model: this.model,
      platform: this.platform,
      project_path: this.projectPath,
      context_window: this.contextWindow,
      manual_mode: this.manual,
      last_batch_turn: this.lastBatchTurn,
      prune_count: this.pruneCount,
      cache_breaks: this.cacheBreaks,
      tool_calls: this.toolCalls,
      turns: this.turn,
      records: Object.fromEntries(this.records),
      pruned: Object.fromEntries(this.pruned),
      pruned_text: Object.fromEntries([...this.prunedText].filter(([k]) => !WORDS_NOT_SAVED.has(this.pruned.get(k) as PruneKind))),
      pruned_age: Object.fromEntries(this.prunedAge),
      pruned_stale: Object.fromEntries(this.prunedStale),
      last_call_at: this.lastCallAt,
      phases: this.phases.map((p) => ({ ...p })),
      ...(this.stagedPhase ? { staged_phase: { phase: { ...this.stagedPhase.phase }, updated: this.stagedPhase.updated } } : {}),
      hint_sent: this.hintSent,
      sent_length: this.previousCallLength,
      swept: [...this.swept],
      // Bounded: signatures of the latest replies are what a re-sent history can repeat.
      accounted: [...this.accounted].slice(-20_000),
      context_sent: this.contextSent,
      calls_at_send: this.callsAtSend,
      ledger: this.ledger.snapshot(),
    };
  }
}

/** A stable signature of an assistant reply, so a re-sent or shifted history is not counted twice. */
export function replySignature(message: Message, index: number): string {
  const ids = Array.isArray(message.tool_calls) ? message.tool_calls.map((c) => (typeof c?.id === 'string' ? c.id : '')).join(',') : '';
  if (ids.replace(/,/g, '') !== '') return `tc:${ids}`;
  const content = typeof message.content === 'string' ? message.content : safeJson(message.content);
  return `c:${index}:${hash(content + safeJson(message.tool_calls ?? null))}`;
}

export function hash(text: string): string {
  return createHash('sha1').update(text).digest('hex').slice(0, 16);
}

export function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return String(value);
  }
}

/** Validates a persisted session read from disk; null when it is not one. */
export function parsePersisted(value: unknown): PersistedSession | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Partial<PersistedSession>;
  if (v.version !== 1 || typeof v.session_id !== 'string' || typeof v.started_at !== 'number') return null;
  const records: Record<string, ToolRecord> = {};
  if (typeof v.records === 'object' && v.records !== null) {
    for (const [k, r] of Object.entries(v.records)) {
      if (typeof r === 'object' && r !== null && typeof r.tool === 'string' && typeof r.turn === 'number') {
        records[k] = { tool: r.tool, fingerprint: String(r.fingerprint ?? ''), turn: r.turn, isError: r.isError === true };
      }
    }
  }
  const pruned: Record<string, PruneKind> = {};
  if (typeof v.pruned === 'object' && v.pruned !== null) {
    for (const [k, p] of Object.entries(v.pruned)) if ((PRUNE_KINDS as readonly unknown[]).includes(p)) pruned[k] = p as PruneKind;
  }
  const prunedText: Record<string, string> = {};
  if (typeof v.pruned_text === 'object' && v.pruned_text !== null) {
    for (const [k, t] of Object.entries(v.pruned_text)) if (typeof t === 'string' && k in pruned && !WORDS_NOT_SAVED.has(pruned[k] as PruneKind)) prunedText[k] = t;
  }
  const prunedAge: Record<string, number> = {};
  if (typeof v.pruned_age === 'object' && v.pruned_age !== null) {
    for (const [k, a] of Object.entries(v.pruned_age)) if (typeof a === 'number' && Number.isInteger(a) && a >= 0 && pruned[k] === 'error_purge') prunedAge[k] = a;
  }
  const prunedStale: Record<string, StaleDetail> = {};
  if (typeof v.pruned_stale === 'object' && v.pruned_stale !== null) {
    for (const [k, d] of Object.entries(v.pruned_stale)) {
      if (pruned[k] !== 'stale_reads' || typeof d !== 'object' || d === null) continue;
      const by = (d as Partial<StaleDetail>).by;
      const byCall = (d as Partial<StaleDetail>).byCall;
      if ((by === 'read' || by === 'write' || by === 'patch') && typeof byCall === 'string') prunedStale[k] = { by, byCall };
    }
  }
  const strings = (x: unknown): string[] => (Array.isArray(x) ? x.filter((s): s is string => typeof s === 'string') : []);
  const n = (x: unknown): number => (typeof x === 'number' && Number.isFinite(x) && x >= 0 ? x : 0);
  return {
    version: 1,
    session_id: v.session_id,
    started_at: v.started_at,
    ended_at: typeof v.ended_at === 'number' ? v.ended_at : null,
    model: typeof v.model === 'string' ? v.model : '',
    platform: typeof v.platform === 'string' ? v.platform : '',
    project_path: typeof v.project_path === 'string' ? v.project_path : '',
    context_window: n(v.context_window),
    manual_mode: v.manual_mode === true,
    last_batch_turn: n(v.last_batch_turn),
    prune_count: n(v.prune_count),
    cache_breaks: n(v.cache_breaks),
    tool_calls: n(v.tool_calls),
    turns: n(v.turns),
    records,
    pruned,
    pruned_text: prunedText,
    pruned_age: prunedAge,
    pruned_stale: prunedStale,
    last_call_at: n(v.last_call_at),
    phases: Array.isArray(v.phases) ? v.phases.filter(isPhase) : [],
    ...(stagedPhase(v.staged_phase) ?? {}),
    hint_sent: typeof v.hint_sent === 'string' ? v.hint_sent : '',
    sent_length: n(v.sent_length),
    swept: strings(v.swept),
    accounted: strings(v.accounted),
    context_sent: v.context_sent === true,
    calls_at_send: v.calls_at_send === true,
    ledger: (typeof v.ledger === 'object' && v.ledger !== null ? v.ledger : {}) as LedgerSnapshot,
  };
}

function stagedPhase(value: unknown): { staged_phase: { phase: Phase; updated: boolean } } | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  return isPhase(v.phase) ? { staged_phase: { phase: v.phase, updated: v.updated === true } } : null;
}

function isPhase(value: unknown): value is Phase {
  if (typeof value !== 'object' || value === null) return false;
  const p = value as Record<string, unknown>;
  const ints = ['id', 'from', 'to', 'tokensBefore', 'tokensAfter', 'updates', 'createdAt', 'turnFrom', 'turnTo'];
  const strings = ['digest', 'recallId', 'topic', 'summary', 'model'];
  return ints.every((k) => typeof p[k] === 'number' && Number.isFinite(p[k])) && strings.every((k) => typeof p[k] === 'string') && (p.from as number) <= (p.to as number);
}
