/**
 * A phase's range, message by message (DESIGN §6): what each message of a summarised range is sent
 * as (the summary first, stubs after), the digest that ties a summary to the very messages it was
 * made from, and the rough token estimates layer 1 decides when to start by.
 *
 * Invariants: pure functions of the held messages (no Session field is written here); the digest
 * covers role and content as the host sent them, so any rewrite of the range changes it; protected
 * tools' outputs and system messages are never given a stub.
 */
import { createHash } from 'node:crypto';
import type { HmcConfig } from '../../config/keys.js';
import { protectionFor } from '../session/protection.js';
import type { MessageState, Phase } from '../session/held.js';
import type { Session } from '../session/session.js';
import type { Message } from '../../core/message.js';

/** What each message of a summarised range but the first is sent as. */
export const PHASE_STUB = '[summarised]';
/** The first line of a summary as the model sees it (the invariant checker knows it by this). */
export const PHASE_HEAD = '[Summary of earlier work';

/** What each message of a phase's range is sent as: the summary first, stubs after, protected outputs as they are. */
export function phaseViews(s: Session, config: HmcConfig, phase: Phase): { index: number; text: string }[] {
  const protection = protectionFor(config);
  const views: { index: number; text: string }[] = [];
  for (let i = phase.from; i <= phase.to; i++) {
    const m = s.held.messages[i] as MessageState;
    if (i === phase.from) {
      views.push({
        index: i,
        text: `${PHASE_HEAD} (phase ${phase.id}; its exact messages: hmc_control action=recall id=${phase.recallId})]\n${phase.summary}`,
      });
      continue;
    }
    if (m.role === 'system' || (m.role === 'tool' && protection.tool(m.tool))) continue;
    const current = typeof m.raw === 'string' ? m.raw.length : Infinity;
    if (current > PHASE_STUB.length) views.push({ index: i, text: PHASE_STUB });
  }
  return views;
}

/** The message as the host sent it, for recall. */
export function asMessage(m: MessageState): Message {
  return m.source;
}

/** The message as the model is sent it now, for the summariser: its view, and its calls with the arguments input clearing left. */
export function sentMessage(s: Session, m: MessageState): Message {
  const view = s.viewOf(m);
  if (view === m.source.content && !m.inputs) return m.source;
  return { ...m.source, content: view as Message['content'], ...(m.inputs ? { tool_calls: m.inputs.calls } : {}) };
}

/** A digest of messages [from, to] as the host sent them (role and content, as held). */
export function rangeDigest(messages: readonly { role: string; raw: unknown }[], from: number, to: number): string {
  const h = createHash('sha1');
  for (let i = from; i <= to; i++) {
    const m = messages[i] as { role: string; raw: unknown };
    h.update(m.role);
    h.update('\u0000');
    h.update(typeof m.raw === 'string' ? m.raw : (JSON.stringify(m.raw) ?? ''));
    h.update('\u0001');
  }
  return h.digest('hex').slice(0, 16);
}

/** Estimated tokens a message is sent with now (content and its tool calls). */
export function sentTokens(s: Session, m: MessageState): number {
  return roughTokens(s.viewOf(m), s.extraOf(m));
}

/** The same estimate for the message as the host holds it. */
export function rawTokens(m: MessageState): number {
  return roughTokens(m.raw, m.extra);
}

function roughTokens(content: unknown, extra: string): number {
  const chars = typeof content === 'string' ? content.length : content === null || content === undefined ? 0 : 200;
  return Math.ceil((chars + extra.length) / 4) + 4;
}
