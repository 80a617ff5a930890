/**
 * A session's money for `/hmc status` and `/hmc stats` (issue 24): its input priced with the prompt
 * cache, as HMC's cache model has it (modelled: with HMC and without, both requests with their own
 * cache reads and writes), beside what the provider's own usage of its calls costs (measured, from
 * the analytics store's reconcile) when the host reported any.
 *
 * Invariant: every figure is labelled measured or modelled; an unknown model is named, never
 * priced silently; reading the store never fails the answer (no store, no measured figures).
 */
import type { HmcConfig } from '../../config/keys.js';
import { priceModels } from '../../store/pricing.js';
import type { Session } from '../session/session.js';

export interface SessionMoney {
  currency: string;
  /** HMC's cache model priced (docs/glossary.md "cost"). */
  modelled: { spent: number; without_hmc: number; saved: number; price_source: string; unknown_model: boolean };
  /** The provider's figures priced (null: the host reported no usage for this session). */
  measured: {
    calls: number;
    input: number;
    output: number;
    saved: number;
    cached_share: number | null;
    breaks: number;
  } | null;
}

export function sessionMoney(
  s: Session,
  pricing: HmcConfig['pricing'],
  usage: Record<string, unknown> | null,
): SessionMoney {
  const t = s.ledger.totals();
  const [m] = priceModels(
    [
      {
        model: s.meta.model,
        sessions: 1,
        model_calls: t.modelCalls,
        input: t.inputRaw,
        sent: t.inputHmc,
        saved: t.inputRaw - t.inputHmc,
        cached_input: t.cachedRaw,
        cached_sent: t.cachedHmc,
        plain_input: t.plainRaw,
        plain_sent: t.plainHmc,
        sessions_without_cache_model: 0,
      },
    ],
    pricing,
  );
  const cost = m?.cost ?? { spent: 0, without_hmc: 0, saved: 0 };
  const modelled = {
    ...cost,
    price_source: m?.price.source ?? 'default',
    unknown_model: m?.price.unknown_model === true,
  };
  const c =
    usage && typeof usage.calls === 'number' && usage.calls > 0
      ? (usage.cost as Record<string, number> | undefined)
      : undefined;
  const measured =
    c && usage
      ? {
          calls: usage.calls as number,
          input: c.measured_input ?? 0,
          output: c.measured_output ?? 0,
          saved: c.saved ?? 0,
          cached_share: (usage.cached_share as { measured?: number | null } | undefined)?.measured ?? null,
          breaks: (usage.breaks as { count?: number } | undefined)?.count ?? 0,
        }
      : null;
  return { currency: pricing.currency, modelled, measured };
}

/** The status line's money: `money: input 0.41 USD sent, 1.20 without HMC, saved 0.79 (modelled, with the prompt cache); provider: …`. */
export function moneyLine(m: SessionMoney): string {
  const f = (x: number): string => x.toFixed(x >= 1 ? 2 : 4);
  const unknown = m.modelled.unknown_model ? ' (unknown model: priced at pricing.default_*)' : '';
  const measured = m.measured
    ? `; provider: input ${f(m.measured.input)} + output ${f(m.measured.output)} over ${m.measured.calls} calls, saved ${f(m.measured.saved)} (measured sent side)`
    : '';
  return `\n  money: input ${f(m.modelled.spent)} ${m.currency} sent, ${f(m.modelled.without_hmc)} without HMC, saved ${f(m.modelled.saved)} (modelled, with the prompt cache)${unknown}${measured}`;
}
