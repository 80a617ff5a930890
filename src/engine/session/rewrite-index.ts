/**
 * What the list-wide rewrites need to know about a long conversation, kept up to date as messages
 * arrive (so a model call costs O(new messages + duplicates), not O(conversation)): the tool
 * results grouped by call fingerprint and by content digest, and the failed ones.
 *
 * Invariant: rebuilt from scratch whenever the held history is cut or the config object changes,
 * so it always describes exactly the messages held.
 */
import type { HmcConfig } from '../../config/keys.js';
import { MIN_CONTENT_DEDUP_CHARS, normalizeForDedup, type DedupEntry } from '../../strategies/list-wide/dedup.js';
import { hash } from './hashing.js';
import type { MessageState } from './held.js';

/** An exact repeat shorter than this stays as it is (a marker would save little). */
export const MIN_REPEAT_CHARS = 400;

export interface IndexedResult {
  entry: DedupEntry;
  message: MessageState;
  /** Position in the conversation, for ordering. */
  index: number;
}

export class RewriteIndex {
  private config: HmcConfig | null = null;
  /** Messages indexed so far (a prefix of the held conversation). */
  length = 0;
  readonly byKey = new Map<string, IndexedResult>();
  private readonly byArgs = new Map<string, IndexedResult[]>();
  private readonly byContent = new Map<string, IndexedResult[]>();
  /** Group keys with two or more members. */
  private readonly crowded = new Set<string>();
  /** Bumped whenever a group with two or more members changes (duplicates may differ). */
  version = 0;
  readonly failed: IndexedResult[] = [];
  /** The first result with each exact text (long enough to be worth a marker), for repeats. */
  readonly firstByText = new Map<string, IndexedResult>();
  /** Tool results in conversation order. */
  readonly results: IndexedResult[] = [];

  /**
   * Brings the index up to `messages` (appending, or rebuilding after a cut or a config change);
   * `end` stops it earlier (a big first call is indexed in slices, catch-up.ts).
   */
  update(
    messages: readonly MessageState[],
    fingerprint: (key: string) => string,
    isFailed: (m: MessageState) => boolean,
    config: HmcConfig,
    end = messages.length,
  ): void {
    if (config !== this.config || messages.length < this.length) this.reset(config);
    const stop = Math.min(end, messages.length);
    if (stop <= this.length) return;
    for (let i = this.length; i < stop; i++) {
      const m = messages[i] as MessageState;
      if (m.role !== 'tool' || typeof m.raw !== 'string') continue;
      const contentKey = digest(m.raw, config.strategies.deduplication.normalize);
      const entry: DedupEntry = {
        id: m.key,
        tool: m.tool.toLowerCase(),
        fingerprint: fingerprint(m.key),
        text: null,
        ...(contentKey !== null ? { contentKey } : {}),
      };
      const item: IndexedResult = { entry, message: m, index: i };
      this.byKey.set(m.key, item);
      this.add(this.byArgs, `a:${entry.fingerprint}`, item);
      if (contentKey !== null) this.add(this.byContent, `c:${entry.tool}:${contentKey}`, item);
      if (isFailed(m)) this.failed.push(item);
      this.results.push(item);
      if (m.raw.length >= MIN_REPEAT_CHARS && !this.firstByText.has(m.raw)) this.firstByText.set(m.raw, item);
    }
    this.length = stop;
  }

  /** Results sharing a fingerprint or a content digest with another, in conversation order. */
  possibleDuplicates(): DedupEntry[] {
    const items = new Map<string, IndexedResult>();
    for (const key of this.crowded) {
      for (const item of (key.startsWith('a:') ? this.byArgs : this.byContent).get(key) ?? [])
        items.set(item.entry.id, item);
    }
    return [...items.values()].sort((a, b) => a.index - b.index).map((i) => i.entry);
  }

  /**
   * A later result shares this one's call fingerprint or content digest (dedup would then send
   * this one as a placeholder and keep the later copy).
   */
  hasLaterCopy(item: IndexedResult): boolean {
    // Groups are filled in conversation order: the last member is the latest.
    const later = (group: readonly IndexedResult[] | undefined): boolean =>
      group !== undefined && (group[group.length - 1]?.index ?? -1) > item.index;
    const { entry } = item;
    return (
      later(this.byArgs.get(`a:${entry.fingerprint}`)) ||
      (entry.contentKey !== undefined && later(this.byContent.get(`c:${entry.tool}:${entry.contentKey}`)))
    );
  }

  private add(groups: Map<string, IndexedResult[]>, key: string, item: IndexedResult): void {
    const group = groups.get(key);
    if (group) {
      group.push(item);
      this.crowded.add(key);
      this.version++;
    } else groups.set(key, [item]);
  }

  /** Forgets what was indexed: the next `update` starts over (the held history was cut). */
  invalidate(): void {
    this.config = null;
  }

  private reset(config: HmcConfig): void {
    this.config = config;
    this.length = 0;
    this.byKey.clear();
    this.byArgs.clear();
    this.byContent.clear();
    this.crowded.clear();
    this.failed.length = 0;
    this.firstByText.clear();
    this.results.length = 0;
    this.version++;
  }
}

/** A short digest of the output (normalised when configured); null when too short to compare. */
function digest(raw: string, normalize: boolean): string | null {
  if (raw.length < MIN_CONTENT_DEDUP_CHARS) return null;
  return hash(normalize ? normalizeForDedup(raw) : raw);
}
