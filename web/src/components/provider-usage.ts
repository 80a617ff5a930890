/**
 * The provider's own figures for one session's model calls (issue 16): prompt tokens, what its
 * prompt cache read and wrote, beside HMC's model of the cache (the part of each request the
 * previous one had sent unchanged), when the host reported them (Hermes with `context.engine: hmc`).
 * Per call too, with the model's name, as a table and a CSV file.
 *
 * Invariant: only figures the host reported are shown as the provider's; HMC's are labelled as
 * its model; a session without reported usage says why instead of showing zeros.
 */
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { fetchJson } from '../api.js';
import { count, fmtPct, fmtTokens } from '../format.js';
import { usageResponse, type Reconciled, type SessionUsage } from '../schema.js';
import { DataTable } from './data-table.js';

/** Calls listed in the table (the latest); the totals and the CSV cover every call the server sent. */
const SHOWN_CALLS = 200;

export function ProviderUsage({ id, epoch }: { id: string; epoch: number }) {
  const [usage, setUsage] = useState<SessionUsage | null | 'loading'>('loading');
  const [rec, setRec] = useState<Reconciled | null>(null);
  useEffect(() => {
    const ctl = new AbortController();
    void fetchJson(`/api/sessions/${encodeURIComponent(id)}/usage`, usageResponse, ctl.signal).then((r) => {
      if (ctl.signal.aborted) return;
      if (r.ok) {
        setUsage(r.value.usage);
        setRec(r.value.reconcile ?? null);
      } else setUsage((prev) => (prev === 'loading' ? null : prev));
    });
    return () => ctl.abort();
  }, [id, epoch]);
  if (usage === 'loading') return null;
  if (usage === null) {
    return html`<div class="detail-usage" data-testid="usage-none"><h3>Provider usage</h3>
      <p class="empty">The host reported no usage for this session. Hermes reports each call's prompt, completion and cache tokens to HMC through its <code>post_api_request</code> hook (0.16.0 and later), or when HMC is its context engine.</p></div>`;
  }
  const t = usage.totals;
  const readShare = t.prompt_tokens > 0 ? t.cache_read_tokens / t.prompt_tokens : null;
  const modelShare = t.hmc_input > 0 ? t.hmc_cached / t.hmc_input : null;
  const shown = usage.calls.slice(-SHOWN_CALLS);
  const csv = {
    name: ['provider-usage', `session-${id}`],
    table: () => ({
      header: [
        'call',
        'time',
        'model',
        'provider',
        'prompt_tokens',
        'completion_tokens',
        'cache_read_tokens',
        'cache_write_tokens',
        'reasoning_tokens',
        'hmc_input',
        'raw_input',
        'hmc_cached',
      ],
      rows: usage.calls.map((c) => [
        c.seq,
        new Date(c.at).toISOString(),
        c.model,
        c.provider,
        c.prompt_tokens,
        c.completion_tokens,
        c.cache_read_tokens,
        c.cache_write_tokens,
        c.reasoning_tokens,
        c.hmc_input,
        c.raw_input,
        c.hmc_cached,
      ]),
    }),
  };
  return html`<div class="detail-usage" data-testid="usage">
    <h3>Provider usage</h3>
    <div class="stats">
      <div class="stat"><div class="v" data-testid="usage-calls">${t.calls}</div><div class="k">calls reported</div></div>
      <div class="stat"><div class="v" data-testid="usage-prompt">${fmtTokens(t.prompt_tokens)}</div><div class="k">prompt tokens</div></div>
      <div class="stat"><div class="v" data-testid="usage-read">${fmtTokens(t.cache_read_tokens)}</div><div class="k">read from cache (${fmtPct(readShare)})</div></div>
      <div class="stat"><div class="v" data-testid="usage-write">${fmtTokens(t.cache_write_tokens)}</div><div class="k">written to cache</div></div>
      <div class="stat"><div class="v">${fmtTokens(t.completion_tokens)}</div><div class="k">completion tokens</div></div>
      <div class="stat"><div class="v" data-testid="usage-model">${fmtPct(modelShare)}</div><div class="k">HMC's cache model: cached</div></div>
    </div>
    <div class="meta">
      <span>models ${usage.models.map((m, i) => html`${i > 0 ? ', ' : ''}<b class="name">${m.model || '(unnamed)'}</b> (${count(m.calls, 'call')})`)}</span>
      <span>HMC's model: the part of each request ${count(t.hmc_calls, 'call')} sent unchanged since the previous one (${fmtTokens(t.hmc_cached)} of ${fmtTokens(t.hmc_input)} tokens)</span>
    </div>
    <${DataTable} caption="Provider usage per call" columns=${['Call', 'Model', 'Prompt', 'Cache read', 'Cache written', 'HMC sent', 'HMC model: cached']}
      rows=${shown.map((c) => [String(c.seq), c.model, fmtTokens(c.prompt_tokens), fmtTokens(c.cache_read_tokens), fmtTokens(c.cache_write_tokens), fmtTokens(c.hmc_input), fmtTokens(c.hmc_cached)])}
      csv=${csv} summary=${`Show each call (${t.calls})`} />
    ${rec ? html`<${Reconcile} rec=${rec} />` : null}
  </div>`;
}

const money = (x: number, currency: string): string => `${x.toFixed(x !== 0 && Math.abs(x) < 1 ? 4 : 2)} ${currency}`;

/** Measured beside modelled, the cache breaks by cause, and why the costliest calls cost what they did. */
function Reconcile({ rec }: { rec: Reconciled }) {
  const c = rec.cost;
  const b = rec.breaks.by_cause;
  return html`<div class="detail-reconcile" data-testid="reconcile">
    <h3>Provider vs HMC</h3>
    <div class="stats">
      <div class="stat"><div class="v" data-testid="reconcile-measured">${money(c.measured_input, c.currency)}</div><div class="k">input cost, measured (the provider's figures)</div></div>
      <div class="stat"><div class="v" data-testid="reconcile-without">${money(c.modelled_without_hmc, c.currency)}</div><div class="k">without HMC, modelled (with the cache)</div></div>
      <div class="stat"><div class="v" data-testid="reconcile-saved">${money(c.saved, c.currency)}</div><div class="k">saved (sent side measured)</div></div>
      <div class="stat"><div class="v">${rec.tokenizer_ratio ?? '--'}</div><div class="k">provider tokens per o200k token</div></div>
      <div class="stat"><div class="v">${fmtPct(rec.cached_share.measured)} / ${fmtPct(rec.cached_share.modelled)}</div><div class="k">read from cache: measured / modelled</div></div>
      <div class="stat"><div class="v" data-testid="reconcile-breaks">${rec.breaks.count}</div><div class="k">cache breaks: HMC ${b.hmc}, Hermes ${b.hermes}, expired ${b.ttl}, unknown ${b.unknown}</div></div>
    </div>
    ${rec.unseen_calls > 0 ? html`<p class="meta">${count(rec.unseen_calls, 'call')} HMC never saw (auxiliary, subagents'): the provider's figures only, never in the saving.</p>` : null}
    ${c.unknown_models.length > 0 ? html`<p class="meta">Unknown model${c.unknown_models.length > 1 ? 's' : ''}, priced at pricing.default_*: ${c.unknown_models.join(', ')}</p>` : null}
    <${DataTable} caption="Why did these calls cost the most?" columns=${['Call', 'Model', 'Prompt', 'Cache read', 'Input cost', 'Why']}
      rows=${rec.costliest.map((x) => [String(x.seq), x.model, fmtTokens(x.prompt_tokens), fmtTokens(x.cache_read_tokens), money(x.input_cost, c.currency), x.why])}
      summary=${`Why did these calls cost the most? (the ${count(rec.costliest.length, 'costliest call')})`} />
  </div>`;
}
