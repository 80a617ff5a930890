/**
 * The price rule (DESIGN §6): when a list-wide rewrite of messages the model was already sent is
 * worth the prompt-cache break it causes. Rewriting a message the previous call sent makes the
 * provider re-write (1.25×) everything from there instead of reading it from the cache (0.1×); the
 * tokens removed are then read 0.1× cheaper on every later call. So a rewrite of X tokens at a
 * point followed by S sent tokens pays when X × (0.1 × k + 1.25) ≥ 1.15 × S, k being the calls
 * still to come. Changes to messages not sent yet are free and always made; the costly ones wait
 * and go together, so one break buys as much as possible.
 *
 * Pure: a function of the sizes, the estimate of calls to come and the clock facts it is given.
 */
import { CACHE_READ, CACHE_WRITE } from './cache-cost.js';

/** At least this many calls are expected to follow any call (a session rarely ends right away). */
export const MIN_REMAINING_CALLS = 10;

/** One wanted change of a tool result's view. */
export interface ViewChange<T> {
  index: number;
  /** Characters it is sent with now, and after the change (tokens ≈ characters / 4). */
  before: number;
  after: number;
  change: T;
  /** Goes with every other change of the pass or waits with them (a summary's views): no break point after it. */
  whole?: boolean;
}

export interface PassFacts {
  /** The previous call sent messages [0, sentLength): a change below it breaks the cache. */
  sentLength: number;
  /** Characters the previous call sent from message `index` to its end. */
  sentFrom(index: number): number;
  /** This call rewrites a sent message at this index anyway (null: it does not): later changes ride along. */
  breakingAt: number | null;
  /** Model calls made so far in the session. */
  callsSoFar: number;
  /** Passes so far in the session that rewrote something already sent. */
  breaksSoFar: number;
  /** The provider's cache went cold (its lifetime passed since the last call): rewrites are free now. */
  cold: boolean;
  /** The user asked for it (a sweep): make the changes now. */
  forced: boolean;
  /**
   * The context is about to overflow the window: a pass removing at least this many tokens is made
   * now, whatever the budget says (null: no overflow).
   */
  overflow: number | null;
  /** A costly pass must remove at least this many tokens. */
  minTokens: number;
  /** The break budget: at most this many costly passes per 100 model calls… */
  breaksPer100: number;
  /** …the first of them after this many calls. */
  firstAfter: number;
}

export interface PassDecision<T> {
  apply: ViewChange<T>[];
  /** The pass rewrites something already sent (a cache break, unless the cache was cold). */
  costly: boolean;
  /** Why the costly changes were made or left waiting (for logs and tests). */
  reason: 'none' | 'free' | 'forced' | 'cold' | 'overflow' | 'pays' | 'no budget' | 'too small' | 'does not pay';
}

/** A costly pass must remove at least this share of what it makes the provider write again. */
export const MIN_REMOVED_SHARE = 0.3;
/** …and a break taken before the session earned it, at the first call the budget allows it. */
export const EARLY_REMOVED_SHARE = 0.55;

/**
 * The share of what it re-writes a costly pass must remove. A session has earned its n-th break
 * once it made n × 100 / breaksPer100 calls; a break taken before that (the budget allows the
 * first after `firstAfter` calls, a session may end soon after it) must be bigger the earlier it
 * comes: EARLY_REMOVED_SHARE at the first call the budget allows it, falling linearly to
 * MIN_REMOVED_SHARE at the call that earns it.
 */
export function requiredShare(
  callsSoFar: number,
  breaksSoFar: number,
  breaksPer100: number,
  firstAfter: number,
): number {
  // No budget (0: only forced passes) or a break allowed at every call: nothing to earn.
  if (breaksPer100 <= 0 || breaksPer100 >= 100) return MIN_REMOVED_SHARE;
  const every = 100 / breaksPer100;
  const earned = (breaksSoFar + 1) * every;
  const earliest = firstAfter + breaksSoFar * every;
  if (callsSoFar >= earned || earned <= earliest) return MIN_REMOVED_SHARE;
  const early = Math.min(1, Math.max(0, (earned - callsSoFar) / (earned - earliest)));
  return MIN_REMOVED_SHARE + (EARLY_REMOVED_SHARE - MIN_REMOVED_SHARE) * early;
}

/** The calls expected after this one: as many as so far (a session half done is the best guess), at least 10. */
export function expectedRemainingCalls(callsSoFar: number): number {
  return Math.max(MIN_REMAINING_CALLS, callsSoFar);
}

/** A rewrite removing `removed` tokens before `following` sent tokens pays within `remaining` calls. */
export function rewritePays(removed: number, following: number, remaining: number): boolean {
  return removed * (CACHE_READ * remaining + CACHE_WRITE) >= (CACHE_WRITE - CACHE_READ) * following;
}

/**
 * Costly passes the session may have made by now: none before `firstAfter` calls, then one more
 * per 100 / `breaksPer100` calls (so a long session averages at most `breaksPer100` per 100 calls).
 */
export function breakBudget(callsSoFar: number, breaksPer100: number, firstAfter: number): number {
  if (breaksPer100 <= 0 || callsSoFar < firstAfter) return 0;
  return 1 + Math.floor(((callsSoFar - firstAfter) * breaksPer100) / 100);
}

export function decidePass<T>(changes: readonly ViewChange<T>[], facts: PassFacts): PassDecision<T> {
  if (changes.length === 0) return { apply: [], costly: false, reason: 'none' };
  // Changes past the point where this call breaks the cache anyway cost nothing more.
  const freeFrom = Math.min(facts.sentLength, facts.breakingAt ?? Infinity);
  const free = changes.filter((c) => c.index >= freeFrom);
  const costly = changes.filter((c) => c.index < freeFrom);
  if (costly.length === 0) return { apply: [...changes], costly: false, reason: 'free' };
  const wait = (reason: PassDecision<T>['reason']): PassDecision<T> => ({ apply: free, costly: false, reason });
  if (facts.forced) return { apply: [...changes], costly: true, reason: 'forced' };
  const removed = costly.reduce((n, c) => n + (c.before - c.after), 0) / 4;
  if (facts.overflow !== null && removed >= facts.overflow)
    return { apply: [...changes], costly: true, reason: 'overflow' };
  if (facts.breaksSoFar >= breakBudget(facts.callsSoFar, facts.breaksPer100, facts.firstAfter))
    return wait('no budget');
  if (removed < Math.max(1, facts.minTokens)) return wait('too small');
  const share = requiredShare(facts.callsSoFar, facts.breaksSoFar, facts.breaksPer100, facts.firstAfter);
  const remaining = expectedRemainingCalls(facts.callsSoFar);
  const following = (from: number): number =>
    (facts.sentFrom(from) - (facts.breakingAt === null ? 0 : facts.sentFrom(facts.breakingAt))) / 4;
  const all = costly.slice().sort((a, b) => a.index - b.index);
  const whole = { at: all[0]?.index ?? 0, removed, following: following(all[0]?.index ?? 0) };
  if (removed < share * whole.following) return wait('too small');
  // A cold cache makes the rewrite free to the provider, so the price rule is moot. It is still a
  // rewrite of what the previous call sent (HMC counts it, and so does any measure that does not
  // model the cache's lifetime), so it waits for the budget and the share like any other.
  if (facts.cold) return { apply: [...changes], costly: true, reason: 'cold' };
  if (!rewritePays(removed, whole.following, remaining)) return wait('does not pay');
  // Where in the list the break buys most: from the first change, or from a later one when the
  // changes before it remove little of what they make the provider write again.
  const from = breakPoint(all, whole, (at) => following(at), { share, remaining, minTokens: facts.minTokens });
  if (from === whole.at) return { apply: [...changes], costly: true, reason: 'pays' };
  return { apply: changes.filter((c) => c.index >= freeFrom || c.index >= from), costly: true, reason: 'pays' };
}

/** The money a pass removing `removed` tokens before `following` sent ones is worth over `remaining` calls (input-token units). */
export function passValue(removed: number, following: number, remaining: number): number {
  return removed * (CACHE_READ * remaining + CACHE_WRITE) - (CACHE_WRITE - CACHE_READ) * following;
}

/**
 * The index the break is placed at: the first costly change's, or a later change's when leaving
 * the changes before it for a later pass is worth more (`passValue`), the pass from there still
 * big enough (its share, `minTokens`) and paying. A change that must go with the rest (`whole`, a
 * summary) or makes a message longer (a placeholder taken back) is never left out: no break point
 * after it. Ties keep the earlier point (more goes now).
 */
export function breakPoint<T>(
  sorted: readonly ViewChange<T>[],
  first: { at: number; removed: number; following: number },
  following: (at: number) => number,
  rule: { share: number; remaining: number; minTokens: number },
): number {
  let best = first.at;
  let bestValue = passValue(first.removed, first.following, rule.remaining);
  let left = first.removed;
  for (let i = 0; i < sorted.length - 1; i++) {
    const c = sorted[i] as ViewChange<T>;
    if (c.whole || c.after >= c.before) break;
    left -= (c.before - c.after) / 4;
    const next = (sorted[i + 1] as ViewChange<T>).index;
    if (next === c.index) continue;
    if (left < Math.max(1, rule.minTokens)) break;
    const f = following(next);
    if (left < rule.share * f || !rewritePays(left, f, rule.remaining)) continue;
    const value = passValue(left, f, rule.remaining);
    if (value > bestValue) {
      best = next;
      bestValue = value;
    }
  }
  return best;
}
