/**
 * `hmc analytics --period usage` as text and CSV (issue 24, reconcile: docs/analytics.md "The
 * provider's own numbers"): the provider's figures (measured) beside HMC's (modelled), the cache
 * breaks by cause, and the costliest calls with why.
 *
 * Invariant: pure; every figure is labelled measured or modelled.
 */
import { num } from '../core/text-table.js';

type Result = Record<string, unknown>;
type Row = Record<string, unknown>;
const n = (x: unknown): number => (typeof x === 'number' ? x : 0);
const str = (x: unknown): string => (typeof x === 'string' ? x : x === null || x === undefined ? '' : String(x));
const obj = (x: unknown): Row => (typeof x === 'object' && x !== null ? (x as Row) : {});
const money = (x: unknown, currency: unknown): string =>
  `${n(x).toFixed(n(x) !== 0 && Math.abs(n(x)) < 1 ? 4 : 2)} ${str(currency)}`;
const share = (x: unknown): string => (typeof x === 'number' ? `${(x * 100).toFixed(1)}%` : '--');

export function renderUsageText(
  r: Result,
  where: string,
  table: (h: readonly string[], rows: readonly (readonly string[])[]) => string,
): string {
  const what = r.session ? `session ${str(r.session)}` : where;
  if (n(r.calls) === 0) return `Provider usage, ${what}: ${str(r.note) || 'none recorded'}\n`;
  const m = obj(r.measured);
  const h = obj(r.modelled);
  const c = obj(r.cost);
  const b = obj(r.breaks);
  const causes = obj(b.by_cause);
  const lines = [
    `Provider usage beside HMC's figures, ${what} (${num(n(r.calls))} model calls, ${num(n(r.unseen_calls))} of them unseen by HMC)`,
    '',
    table(
      ['', 'tokens'],
      [
        ['prompt (measured)', num(n(m.prompt_tokens))],
        ['cache read (measured)', num(n(m.cache_read_tokens))],
        ['cache write (measured)', num(n(m.cache_write_tokens))],
        ['output (measured)', num(n(m.completion_tokens))],
        ['sent by HMC, o200k (modelled)', num(n(h.hmc_input))],
        ['without HMC, o200k (modelled)', num(n(h.raw_input))],
      ],
    ),
    '',
    `tokenizer ratio (provider / o200k): ${r.tokenizer_ratio ?? '--'}; cached share: ${share(obj(r.cached_share).modelled)} modelled, ${share(obj(r.cached_share).measured)} measured`,
    `cache breaks: ${num(n(b.count))} (${num(n(b.tokens))} tokens): HMC ${n(causes.hmc)}, Hermes ${n(causes.hermes)}, expired ${n(causes.ttl)}, unknown ${n(causes.unknown)}`,
    `money: input ${money(c.measured_input, c.currency)} + output ${money(c.measured_output, c.currency)} (measured); without HMC ${money(c.modelled_without_hmc, c.currency)} (modelled); saved ${money(c.saved, c.currency)}`,
    ...((c.unknown_models as string[] | undefined)?.length
      ? [`unknown models, priced at pricing.default_*: ${(c.unknown_models as string[]).join(', ')}`]
      : []),
    '',
    'costliest calls:',
    table(
      ['call', 'model', 'prompt', 'cache read', 'input cost', 'why'],
      (Array.isArray(r.costliest) ? (r.costliest as Row[]) : []).map((x) => [
        `${x.session_id ? `${str(x.session_id)}#` : '#'}${n(x.seq)}`,
        str(x.model),
        num(n(x.prompt_tokens)),
        num(n(x.cache_read_tokens)),
        money(x.input_cost, c.currency),
        str(x.why),
      ]),
    ),
  ];
  return `${lines.join('\n')}\n`;
}

/** One record per cache break. */
export function usageCsv(r: Result): { header: string[]; records: unknown[][] } {
  const list = Array.isArray(obj(r.breaks).list) ? (obj(r.breaks).list as Row[]) : [];
  return {
    header: ['session_id', 'seq', 'call_id', 'turn', 'at', 'break_tokens', 'cause'],
    records: list.map((x) => [x.session_id ?? r.session ?? '', x.seq, x.call_id, x.turn, x.at, x.tokens, x.cause]),
  };
}
