/**
 * Did compression cost the agent work (issue 17, finding 7)? The outputs HMC shortened, how often
 * the agent recalled one or read a shortened file part again, per 100 shortened outputs, and the
 * sessions where it did most (each a link to its session).
 *
 * Invariant: the rate is the API's (0 when nothing was shortened); the words are the glossary's.
 */
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { getJson, query } from '../api.js';
import { workResponse, type WorkResponse } from '../schema.js';
import { fmtDateTime, shortId } from '../format.js';
import { CardTitle } from './card-title.js';
import type { Range } from './range-card.js';

export function WorkCard({
  project,
  range,
  epoch,
  onSession,
}: {
  project: string;
  range: Range;
  epoch: number;
  onSession: (id: string) => void;
}) {
  const [w, setW] = useState<WorkResponse | null>(null);
  useEffect(() => {
    void getJson(`/api/work${query({ project, since: range.since, until: range.until })}`, workResponse).then(
      (r) => r && setW(r),
    );
  }, [epoch, project, range.since, range.until]);
  return html`<section class="card span-12" aria-labelledby="work-h" data-testid="work">
    <div class="card-head"><${CardTitle} view="work" title="Did compression cost the agent work?" /></div>
    <div class="stats">
      <div class="stat"><div class="v" data-testid="work-elided">${w?.elided ?? 0}</div><div class="k">outputs shortened</div></div>
      <div class="stat"><div class="v" data-testid="work-recalls">${w?.recalls ?? 0}</div><div class="k">recalls</div></div>
      <div class="stat"><div class="v" data-testid="work-rereads">${w?.rereads ?? 0}</div><div class="k">re-reads</div></div>
      <div class="stat"><div class="v" data-testid="work-rate">${(w?.per_100_elided ?? 0).toFixed(1)}</div><div class="k">per 100 shortened</div></div>
    </div>
    ${
      w && w.top.length > 0
        ? html`<h3>Sessions that went back most</h3><ul class="work-top">${w.top.map(
            (t) => html`<li key=${t.session_id}>
      <button type="button" class="link" onClick=${() => onSession(t.session_id)} title=${t.session_id}>${shortId(t.session_id)}</button>
      <span class="hint">${fmtDateTime(t.started_at)} · ${t.model || 'unknown model'} · ${t.recalls} recall${t.recalls === 1 ? '' : 's'}, ${t.rereads} re-read${t.rereads === 1 ? '' : 's'} of ${t.elided} shortened</span></li>`,
          )}</ul>`
        : null
    }
    <p class="hint">A recall is the agent asking <code>hmc_control</code> for an elided output; a re-read, reading again a file part HMC had shortened with nothing written to it between, unless the user asked to read it again. Low is good.</p>
  </section>`;
}
