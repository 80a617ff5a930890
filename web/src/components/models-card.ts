/**
 * Cost per model (issue 17, findings 3 and 7): each model's input without HMC and as sent, over
 * its model calls, priced from the price table with the cache model's reads and writes (an
 * estimate, labelled so), and, where the host passed it, what the provider itself reported for
 * the same calls, priced the same way, in a table of its own (docs/glossary.md "provider usage").
 *
 * Invariant: HMC's estimate and the provider's count are never added together; every money
 * figure says "estimate"; a model priced by the default row says so.
 */
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { getJson, query } from '../api.js';
import { modelsResponse, type ModelRow, type ModelsResponse } from '../schema.js';
import { fmtMoney, fmtTokens } from '../format.js';
import type { CsvTable } from '../csv.js';
import { CardTitle } from './card-title.js';
import { CsvButton } from './csv-button.js';
import { FigureTable } from './figure-table.js';
import type { Range } from './range-card.js';

/** A model's calls; '--' when none of its sessions counted them (recorded before HMC did). */
export function modelCalls(r: ModelRow): string {
  return r.model_calls === 0 && r.sessions_without_cache_model > 0 ? '--' : String(r.model_calls);
}

export function modelsCsv(m: ModelsResponse): CsvTable {
  return {
    header: [
      'model',
      'sessions',
      'model_calls',
      'input_tokens',
      'sent_tokens',
      'saved_tokens',
      'cache_read_input',
      'cache_read_sent',
      'price_source',
      'cost_without_hmc',
      'cost_with_hmc',
      'cost_saved_estimate',
      'currency',
    ],
    rows: m.models.map((r) => [
      r.model,
      r.sessions,
      r.model_calls,
      r.input,
      r.sent,
      r.saved,
      r.cached_input,
      r.cached_sent,
      r.price.source,
      r.cost.without_hmc,
      r.cost.spent,
      r.cost.saved,
      m.currency,
    ]),
  };
}

export function ModelsCard({ project, range, epoch }: { project: string; range: Range; epoch: number }) {
  const [data, setData] = useState<ModelsResponse | null>(null);
  useEffect(() => {
    void getJson(`/api/models${query({ project, since: range.since, until: range.until })}`, modelsResponse).then(
      (r) => r && setData(r),
    );
  }, [epoch, project, range.since, range.until]);
  const money = (x: number): string => fmtMoney(x, data?.currency ?? 'USD');
  const provider = data?.provider ?? [];
  return html`<section class="card span-12" aria-labelledby="models-h" data-testid="models">
    <div class="card-head"><${CardTitle} view="models" title="Cost per model" />
      <div class="toolbar">${data ? html`<span class="pill">cost saved ${money(data.total.amount)} <span class="estimate" title=${data.total.basis}>estimate</span></span>` : null}
        <${CsvButton} what="Cost per model" name=${['cost-per-model']} disabled=${!data || data.models.length === 0} build=${() => (data ? modelsCsv(data) : null)} /></div></div>
    ${
      !data || data.models.length === 0
        ? html`<p class="empty">No sessions in this period.</p>`
        : html`<${FigureTable} caption="Cost per model" testid="models-table"
      columns=${['Model', 'Sessions', 'Model calls', 'Input', 'Sent', 'Input saved', 'Cost without HMC', 'Cost with HMC', 'Cost saved']}
      rows=${data.models.map((r) => [
        html`<span class="model-name" title=${r.price.source === 'default' ? 'priced by the default row (pricing.default_*)' : `priced as ${r.price.matched} (${r.price.source})`}>${r.model || '(unknown)'}${r.price.source === 'default' ? ' *' : ''}</span>`,
        String(r.sessions),
        modelCalls(r),
        fmtTokens(r.input),
        fmtTokens(r.sent),
        fmtTokens(r.saved),
        money(r.cost.without_hmc),
        money(r.cost.spent),
        html`<b>${money(r.cost.saved)}</b>`,
      ])} />
      <p class="hint">Input cost under HMC's cache model: cache reads at the cache-read price, the rest written. An estimate from the price table (pricing in config.yaml), not a bill.
        ${data.models.some((r) => r.price.source === 'default') ? ' * priced by the default row: no table names this model.' : ''}
        ${data.models.some((r) => r.sessions_without_cache_model > 0) ? ' Sessions recorded before the cache model are priced as plain input.' : ''}</p>`
    }
    ${
      provider.length > 0
        ? html`<h3>Reported by the provider</h3>
      <${FigureTable} caption="Provider usage per model" testid="provider-table"
        columns=${['Model', 'Model calls', 'Prompt', 'Cache read', 'Cache write', 'Output', 'Input cost', 'Output cost']}
        rows=${provider.map((r) => [
          r.model || '(unknown)',
          String(r.calls),
          fmtTokens(r.prompt_tokens),
          fmtTokens(r.cache_read_tokens),
          fmtTokens(r.cache_write_tokens),
          fmtTokens(r.completion_tokens),
          money(r.cost.input),
          money(r.cost.output),
        ])} />
      <p class="hint">The provider's own count of what was sent, as Hermes reported it (its <code>post_api_request</code> hook, or HMC as its context engine), priced from the same table; shown apart from HMC's figures, never added to them.</p>`
        : null
    }
  </section>`;
}
