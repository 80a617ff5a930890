/**
 * One message's token counts as the ledger holds them (ledger.ts): its raw content and what each
 * strategy step sent instead, counted the way `messageTokens` (tokens.ts) counts the same message.
 *
 * Invariant: pure; a message's per-strategy credits are each non-negative and add up to raw minus
 * sent exactly, and `viewCounts` names the very contents `tokensOf` counts.
 */
import type { Saved } from '../../core/savings.js';
import { contentTokens, overheadTokens } from '../../core/tokens.js';

/**
 * How a message is sent: its raw content and the contents after each strategy step. A step may
 * also change what the message's tool calls cost (`extra`: input clearing sends some calls'
 * arguments short); a step without it keeps the calls as the step before sent them.
 */
export interface ViewSteps {
  raw: unknown;
  steps: readonly { strategy: string; content: unknown; extra?: string }[];
}

export interface MessageTokens {
  raw: number;
  sent: number;
  tool: string;
  byStrategy: Saved;
  /** Of `raw` and `sent`: what the message's tool calls, call id and name cost (the context view splits them off). */
  callsRaw: number;
  callsSent: number;
}

/** One held message's tokens as the context view reads them (`Ledger.perMessage`). */
export type MessageCost = Readonly<Pick<MessageTokens, 'raw' | 'sent' | 'callsRaw' | 'callsSent'>>;

/** What `addMessage` / `changeMessage` count for a message sent as `view`: its contents and its extras. */
export function viewCounts(view: ViewSteps, extra: string): unknown[] {
  return [view.raw, ...view.steps.flatMap((s) => (s.extra === undefined ? [s.content] : [s.content, s.extra])), extra];
}

/** A message's tokens raw and after each step; `messageTokens` (tokens.ts) of the same message. */
export function tokensOf(view: ViewSteps, tool: string, extra: string): MessageTokens {
  // Role, separators and tool-call arguments cost tokens too (the arguments as sent: input clearing).
  const overhead = overheadTokens(extra);
  const raw = contentTokens(view.raw) + overhead;
  // Each step is credited with its own token drop. A step shorter in characters can still cost a
  // token or two more (a marker's recall id); that loss is taken from the steps before it, so the
  // credits stay non-negative and still add up to raw minus sent.
  const credits: { strategy: string; saved: number }[] = [];
  let previous = raw;
  let calls = overhead;
  for (const step of view.steps) {
    if (step.extra !== undefined) calls = overheadTokens(step.extra);
    const after = contentTokens(step.content) + calls;
    credits.push({ strategy: step.strategy, saved: previous - after });
    previous = after;
  }
  for (let i = credits.length - 1; i > 0; i--) {
    const c = credits[i] as { saved: number };
    if (c.saved < 0) {
      (credits[i - 1] as { saved: number }).saved += c.saved;
      c.saved = 0;
    }
  }
  const byStrategy: Saved = {};
  for (const c of credits) byStrategy[c.strategy] = (byStrategy[c.strategy] ?? 0) + c.saved;
  return { raw, sent: previous, tool, byStrategy, callsRaw: overhead - 4, callsSent: calls - 4 };
}
