/**
 * Average saved per tool, per kind of tool and per shell program (issue 17, finding 7): the
 * outputs, their tokens as they arrived and as first sent, and what HMC took off each one on
 * arrival; per tool also its input saved over every model call the outputs were sent in.
 *
 * Invariant: the grouping is a real toggle (aria-pressed); the rows are the API's, in its order.
 */
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { getJson, query } from '../api.js';
import { OUTPUT_BY, outputsResponse, type OutputBy, type OutputRow } from '../schema.js';
import { fmtTokens } from '../format.js';
import type { CsvTable } from '../csv.js';
import { CardTitle } from './card-title.js';
import { CsvButton } from './csv-button.js';
import { FigureTable } from './figure-table.js';
import type { Range } from './range-card.js';

const LABEL: Record<OutputBy, string> = { tool: 'Tool', kind: 'Kind', program: 'Program' };

export function outputsCsv(by: OutputBy, rows: OutputRow[]): CsvTable {
  return {
    header: [
      by,
      'kind',
      'outputs',
      'tokens_arrived',
      'tokens_first_sent',
      'saved_tokens',
      'saved_per_output',
      'savings_pct',
      'input_saved',
    ],
    rows: rows.map((r) => [
      r.name,
      r.kind,
      r.outputs,
      r.tokens_raw,
      r.tokens_sent,
      r.saved,
      r.saved_per_output,
      r.savings_pct,
      r.input_saved ?? '',
    ]),
  };
}

export function OutputsCard({ project, range, epoch }: { project: string; range: Range; epoch: number }) {
  const [by, setBy] = useState<OutputBy>('tool');
  const [rows, setRows] = useState<OutputRow[] | null>(null);
  useEffect(() => {
    void getJson(`/api/outputs${query({ by, project, since: range.since, until: range.until })}`, outputsResponse).then(
      (r) => r && r.by === by && setRows(r.outputs),
    );
  }, [epoch, by, project, range.since, range.until]);
  const columns = [
    LABEL[by],
    'Outputs',
    'Arrived',
    'First sent',
    'Saved per output',
    '%',
    ...(by === 'tool' ? ['Input saved'] : []),
  ];
  return html`<section class="card span-12" aria-labelledby="outputs-h" data-testid="outputs">
    <div class="card-head"><${CardTitle} view="outputs" title="Saved per tool output" />
      <div class="toolbar"><span class="seg" role="group" aria-label="Group outputs by">
        ${OUTPUT_BY.map((b) => html`<button type="button" aria-pressed=${b === by} onClick=${() => setBy(b)}>${b === 'tool' ? 'per tool' : b === 'kind' ? 'per kind' : 'per program'}</button>`)}
      </span><${CsvButton} what=${`Saved per ${by}`} name=${['saved-per', by]} disabled=${!rows || rows.length === 0} build=${() => (rows ? outputsCsv(by, rows) : null)} /></div></div>
    ${
      !rows || rows.length === 0
        ? html`<p class="empty">${by === 'program' ? 'No shell command output in this period.' : 'No tool output in this period.'}</p>`
        : html`<${FigureTable} caption=${`Saved per ${by}`} testid="outputs-table" columns=${columns}
        rows=${rows.map((r) => [
          r.name || '(unknown)',
          String(r.outputs),
          fmtTokens(r.tokens_raw),
          fmtTokens(r.tokens_sent),
          html`<b>${fmtTokens(r.saved_per_output)}</b>`,
          `${r.savings_pct.toFixed(1)}%`,
          ...(by === 'tool' ? [fmtTokens(r.input_saved ?? 0)] : []),
        ])} />`
    }
    <p class="hint">Saved per output: tokens HMC took off each output when it arrived (context saved). Input saved counts them again in every later model call that sent them.</p>
  </section>`;
}
