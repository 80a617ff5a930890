/**
 * Deduplication helpers for the engine's list-wide pass: the call fingerprint, the content
 * normaliser, and the grouping that says which older outputs a later one supersedes.
 *
 * Invariants:
 * - The LATEST output of a group is always kept; only older ones are named, each pointing at
 *   the entry that is finally kept (never at one that is itself removed).
 * - Protected tools are never grouped. An output with no text is grouped by its arguments only.
 * - Pure and total: no clock, no state, and nothing here throws (any JSON value, cycles and
 *   BigInt included).
 *
 * `dedup` is the registered list-wide strategy (kinds `repeat`, then `dedup`, both credited to
 * dedup): a new result that repeats an earlier output exactly becomes a pointer to it, and older
 * copies of the same call or output give way to the latest. A repeat's source is never a dedup
 * candidate's partner: the two copies never both go.
 */
import { dedupPlaceholder, repeatPlaceholder } from './placeholders.js';
import { callIdOf, withRecall, type DedupEntry, type ListWideContext, type ListWideStrategy } from './strategy.js';

export type { DedupEntry };

/** Why an entry may be removed, and which entry stays. */
export interface DuplicateOf {
  /** The entry that is kept (the latest of the group, after both passes). */
  keptId: string;
  /** How many entries the group has, the kept one included. */
  groupSize: number;
  /** 'args': same tool and arguments; 'content': same tool and (normalised) output. */
  by: 'args' | 'content';
}

/** Outputs shorter than this are not worth a content comparison (the original's 100). */
export const MIN_CONTENT_DEDUP_CHARS = 100;

/** JSON with object keys sorted at every depth; cycles become "[Circular]", BigInt its decimal digits. */
function stableJson(value: unknown, seen: Set<object>): string | undefined {
  if (typeof value === 'bigint') return JSON.stringify(`${value.toString()}n`);
  if (typeof value === 'function' || typeof value === 'symbol' || value === undefined) return undefined;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (seen.has(value)) return '"[Circular]"';
  const toJson = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJson === 'function') {
    const converted: unknown = toJson.call(value);
    if (converted !== value) return stableJson(converted, seen);
  }
  seen.add(value);
  try {
    if (Array.isArray(value)) return `[${value.map((v) => stableJson(v, seen) ?? 'null').join(',')}]`;
    const record = value as Record<string, unknown>;
    const parts: string[] = [];
    for (const key of Object.keys(record).sort()) {
      const item = stableJson(record[key], seen);
      if (item !== undefined) parts.push(`${JSON.stringify(key)}:${item}`);
    }
    return `{${parts.join(',')}}`;
  } finally {
    seen.delete(value);
  }
}

/** `tool::{"a":1,"b":{"c":2}}`: the same call gives the same string, whatever the key order. */
export function argsFingerprint(tool: string, args: unknown): string {
  let body: string;
  try {
    body = stableJson(args, new Set()) ?? 'null';
  } catch {
    // A getter that throws, a hostile toJSON…: a fingerprint must still come out.
    try {
      body = String(args);
    } catch {
      body = '[unprintable]';
    }
  }
  return `${tool}::${body}`;
}

/**
 * The substitutions, in order (reference §5.1, fixed): later patterns must not see what earlier
 * ones already replaced, so timestamps go before dates and times, UUIDs and temp paths before hex.
 */
const NORMALISERS: ReadonlyArray<readonly [RegExp, string]> = [
  // 2024-01-02T03:04:05.678+00:00, 2024-01-02 03:04:05Z, 2024-01-02T03:04 (the original left "+00:00" behind)
  [/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g, '<TIMESTAMP>'],
  [/\b\d{4}[-/]\d{2}[-/]\d{2}\b/g, '<DATE>'],
  [/\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b/g, '<TIME>'],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<UUID>'],
  // /tmp/pytest-of-u/p-123, /var/folders/xy/…/T/tmp, C:\Users\u\AppData\Local\Temp\x
  [/(?<![\w.-])\/(?:private\/)?(?:var\/(?:tmp|folders)|tmp)\/[^\s'"`)\]]+/g, '<TMPPATH>'],
  // At most 16 folders before Temp, each under 256 characters: unbounded, `C:\(` repeated was quadratic (issue 19).
  [/\b[A-Za-z]:\\(?:[^\s\\'"]{1,255}\\){0,16}?Temp\\[^\s'"`)\]]+/gi, '<TMPPATH>'],
  [/\b0x[0-9a-f]{4,}\b/gi, '<HEX>'],
  // A hash has both a digit and a letter: "deadbeef", "defaced" and "1234567" are not hashes.
  [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/gi, '<HEX>'],
  // Durations: "in 0.42s", "1.2 ms", "3 seconds", "1m23.4s".
  [/\b\d+m\d+(?:\.\d+)?s\b/g, '<DURATION>'],
  [/\b\d+(?:\.\d+)?\s?(?:ms|µs|μs|us|ns|s|secs?|seconds?|mins?|minutes?)(?![\w])/g, '<DURATION>'],
  [/\b(pid)([\s=:#]+)\d+\b/gi, '$1$2<PID>'],
  [/\b\d{5,}\b/g, '<NUM>'],
];

/** The text with volatile parts (times, ids, hashes, temp paths, durations, pids, big numbers) replaced by tags. */
export function normalizeForDedup(text: string): string {
  let out = text;
  for (const [re, tag] of NORMALISERS) out = out.replace(re, tag);
  return out;
}

/**
 * Which entries a later one supersedes. Pass 1: identical fingerprints keep only the latest.
 * Pass 2: among entries left, with text of at least 100 chars, identical
 * `tool::normalizeForDedup(text)` (or the raw text when `normalize` is off) keep only the latest.
 */
export function findDuplicates(
  entries: readonly DedupEntry[],
  cfg: { normalize: boolean; protected: ReadonlySet<string> },
): Map<string, DuplicateOf> {
  const out = new Map<string, DuplicateOf>();
  const eligible = entries.filter((e) => !cfg.protected.has(e.tool));

  const markGroups = (groups: Map<string, DedupEntry[]>, by: DuplicateOf['by']): void => {
    for (const group of groups.values()) {
      if (group.length < 2) continue;
      const kept = group[group.length - 1] as DedupEntry;
      for (const e of group.slice(0, -1)) out.set(e.id, { keptId: kept.id, groupSize: group.length, by });
    }
  };

  const byArgs = new Map<string, DedupEntry[]>();
  for (const e of eligible) {
    const group = byArgs.get(e.fingerprint);
    if (group) group.push(e);
    else byArgs.set(e.fingerprint, [e]);
  }
  markGroups(byArgs, 'args');

  const byContent = new Map<string, DedupEntry[]>();
  for (const e of eligible) {
    if (out.has(e.id)) continue;
    let key: string;
    if (e.contentKey !== undefined) key = `${e.tool}::#${e.contentKey}`;
    else if (e.text === null || e.text.length < MIN_CONTENT_DEDUP_CHARS) continue;
    else key = `${e.tool}::${cfg.normalize ? normalizeForDedup(e.text) : e.text}`;
    const group = byContent.get(key);
    if (group) group.push(e);
    else byContent.set(key, [e]);
  }
  markGroups(byContent, 'content');

  // An args group's survivor may itself be a content duplicate: point its group at the final survivor.
  for (const dup of out.values()) {
    const next = out.get(dup.keptId);
    if (next !== undefined) dup.keptId = next.keptId;
  }
  return out;
}

/** New results (not sent yet) that repeat an earlier output exactly become a pointer to it. */
function proposeRepeats(ctx: ListWideContext): void {
  for (const item of ctx.results) {
    const m = item.message;
    // In force from an earlier call: its source is still the first of its text.
    const inForce = m.prune?.strategy === 'repeat' || ctx.inForce(m.key) === 'repeat';
    if (!inForce && item.index < ctx.firstUnsent) continue;
    if (typeof m.raw !== 'string' || ctx.protection.dedup.has(m.tool.toLowerCase())) continue;
    const source = ctx.firstByText(m.raw);
    if (!source || source === item || source.message.tool.toLowerCase() !== m.tool.toLowerCase()) continue;
    // The source must still be shown: a source that is itself a placeholder points nowhere.
    if (source.message.prune !== null && source.message.prune.strategy !== 'repeat') continue;
    ctx.pointers.set(m.key, { source: source.message.key, kind: 'repeat' });
    ctx.propose(
      m,
      'repeat',
      repeatPlaceholder({ tool: m.tool, sourceCall: callIdOf(source.message), recall: ctx.recall(m) }, ctx.style),
    );
  }
}

/** Older copies of the same call or output (the latest copy that is shown stays whole). */
function proposeDuplicates(ctx: ListWideContext): void {
  const pointers = ctx.pointers;
  // Reused while no duplicate group changed (a long conversation asks call after call).
  const found = ctx.cached('dedup', String(pointers.size), () => {
    // A repeat already points at an earlier copy: it takes no part in dedup (both copies would go).
    const possible = ctx.possibleDuplicates().filter((e) => !pointers.has(e.id));
    const duplicates =
      possible.length > 0
        ? findDuplicates(possible, {
            normalize: ctx.config.strategies.deduplication.normalize,
            protected: ctx.protection.dedup,
          })
        : new Map<string, DuplicateOf>();
    const words = new Map<string, string>();
    for (const [id, dup] of duplicates) {
      const m = ctx.message(id);
      if (m) words.set(id, dedupPlaceholder({ tool: m.tool, count: dup.groupSize, by: dup.by }, ctx.style));
    }
    return words;
  });
  for (const [key, text] of found) {
    const m = ctx.message(key);
    if (m) ctx.propose(m, 'dedup', withRecall(text, ctx.recall(m)));
  }
}

export const dedup: ListWideStrategy<'repeat' | 'dedup'> = {
  name: 'dedup',
  kinds: ['repeat', 'dedup'],
  config: 'strategies.deduplication',
  propose(ctx) {
    proposeRepeats(ctx);
    proposeDuplicates(ctx);
  },
};
