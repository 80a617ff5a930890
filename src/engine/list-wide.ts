/**
 * The rewrites that look at the whole conversation: deduplication (identical calls, then
 * near-identical outputs), error purge (old failures) and the user's sweeps. Computes which tool
 * results should be sent as a placeholder; the engine decides when to apply them (batching).
 *
 * Invariants: protected tools are never rewritten; a placeholder is used only when shorter than
 * what the model is sent now; it stays inside the tool's envelope (exit codes survive).
 */
import type { HmcConfig } from '../config/keys.js';
import { findDuplicates, normalizeForDedup, type DedupEntry } from '../strategies/dedup.js';
import { findStaleErrors, type ErrorEntry } from '../strategies/error-purge.js';
import { dedupPlaceholder, errorPlaceholder } from '../strategies/placeholders.js';
import { parseEnvelope } from './envelope.js';
import type { Protection } from './protection.js';
import type { MessageState, Prune, Session } from './session.js';

/** The original's generic placeholder (reference §5.2), used for sweeps. */
export const SWEPT_PLACEHOLDER = '[Output removed to save context — information superseded or no longer needed]';

/** Normalised texts are cached per raw string: normalising every output on every turn is too slow. */
const normalised = new WeakMap<MessageState, string>();

export function listWideRewrites(s: Session, config: HmcConfig, protection: Protection): Map<string, Prune> {
  const wanted = new Map<string, Prune>();
  if (!config.enabled) return wanted;
  const tools = s.messages.filter((m) => m.role === 'tool' && typeof m.raw === 'string');
  const automatic = !(s.manual && !config.manual_mode.automatic_strategies);
  const style = config.prune_notification;
  const byKey = new Map(tools.map((m) => [m.key, m]));

  const propose = (m: MessageState, strategy: Prune['strategy'], text: string): void => {
    if (wanted.has(m.key)) return;
    const content = parseEnvelope(m.raw as string, { tool: m.tool, args: {} }).withPlaceholder(text);
    const current = m.single ? m.single.content : (m.raw as string);
    if (content.length < current.length) wanted.set(m.key, { strategy, content });
  };

  for (const key of s.swept) {
    const m = byKey.get(key);
    if (m && !protection.sweep.has(m.tool.toLowerCase())) propose(m, 'sweep', SWEPT_PLACEHOLDER);
  }
  if (!automatic) return wanted;

  if (config.strategies.purge_errors.enabled) {
    const entries: ErrorEntry[] = tools.map((m) => ({ id: m.key, tool: m.tool.toLowerCase(), isError: isFailed(s, m), turn: m.turn }));
    const stale = findStaleErrors(entries, s.turn, { turns: config.strategies.purge_errors.turns, protected: protection.errorPurge });
    for (const id of stale) {
      const m = byKey.get(id) as MessageState;
      propose(m, 'error_purge', errorPlaceholder({ tool: m.tool, age: s.turn - m.turn, text: m.raw as string }, style));
    }
  }

  if (config.strategies.deduplication.enabled) {
    const entries: DedupEntry[] = tools.map((m) => ({
      id: m.key,
      tool: m.tool.toLowerCase(),
      fingerprint: s.records.get(m.key)?.fingerprint ?? `#${m.key}`,
      text: dedupText(m, config.strategies.deduplication.normalize),
    }));
    // Texts are normalised here once per message, so the grouping compares them as they are.
    const duplicates = findDuplicates(entries, { normalize: false, protected: protection.dedup });
    for (const [id, dup] of duplicates) {
      const m = byKey.get(id) as MessageState;
      propose(m, 'dedup', dedupPlaceholder({ tool: m.tool, count: dup.groupSize, by: dup.by }, style));
    }
  }
  return wanted;
}

function dedupText(m: MessageState, normalize: boolean): string {
  const raw = m.raw as string;
  if (!normalize) return raw;
  let text = normalised.get(m);
  if (text === undefined) {
    text = normalizeForDedup(raw);
    normalised.set(m, text);
  }
  return text;
}

function isFailed(s: Session, m: MessageState): boolean {
  return s.records.get(m.key)?.isError === true || m.single?.isError === true;
}
