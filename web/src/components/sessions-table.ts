/**
 * Every recorded session, sorted and filtered by the server (/api/sessions), a page at a time;
 * a session opens its drill-down.
 *
 * Invariant: sort headers are buttons with aria-sort; the search is debounced; the table is
 * refetched when lifetime figures may have changed (`epoch`).
 */
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { getJson, query } from '../api.js';
import { sessionsResponse, type SessionRow } from '../schema.js';
import { fmtDateTime, fmtTokens, shortId, shortPath } from '../format.js';

type Sort = 'started_at' | 'saved' | 'input' | 'turns' | 'tool_calls' | 'savings_pct' | 'project_path' | 'model';
const PAGE = 10;
const COLUMNS: { key: Sort | null; label: string; num: boolean }[] = [
  { key: null, label: 'Session', num: false }, { key: 'started_at', label: 'Started', num: false },
  { key: 'project_path', label: 'Project', num: false }, { key: 'model', label: 'Model', num: false },
  { key: 'turns', label: 'Turns', num: true }, { key: 'tool_calls', label: 'Tools', num: true },
  { key: 'input', label: 'Input', num: true }, { key: 'saved', label: 'Saved', num: true }, { key: 'savings_pct', label: '%', num: true },
];

export function SessionsTable({ epoch, project, projects, onProject, selected, onSelect }: {
  epoch: number; project: string; projects: string[]; onProject: (p: string) => void; selected: string | null; onSelect: (id: string) => void;
}) {
  const [sort, setSort] = useState<Sort>('started_at');
  const [order, setOrder] = useState<'asc' | 'desc'>('desc');
  const [search, setSearch] = useState('');
  const [debounced, setDebounced] = useState('');
  const [offset, setOffset] = useState(0);
  const [data, setData] = useState<{ rows: SessionRow[]; total: number } | null>(null);

  useEffect(() => {
    const t = window.setTimeout(() => setDebounced(search.trim()), 250);
    return () => window.clearTimeout(t);
  }, [search]);
  useEffect(() => setOffset(0), [debounced, project, sort, order]);
  useEffect(() => {
    const ctl = new AbortController();
    void getJson(`/api/sessions${query({ limit: PAGE, offset, sort, order, search: debounced, project })}`, sessionsResponse, ctl.signal)
      .then((r) => r && setData(r));
    return () => ctl.abort();
  }, [epoch, offset, sort, order, debounced, project]);

  const toggle = (key: Sort): void => {
    if (key === sort) setOrder(order === 'desc' ? 'asc' : 'desc');
    else {
      setSort(key);
      setOrder(key === 'project_path' || key === 'model' ? 'asc' : 'desc');
    }
  };
  const total = data?.total ?? 0;
  return html`<section class="card span-12" aria-labelledby="sess-h" data-testid="sessions">
    <div class="card-head">
      <h2 id="sess-h">Sessions</h2>
      <div class="toolbar">
        <label class="sr-only" for="sess-search">Search sessions</label>
        <input id="sess-search" type="search" placeholder="Search id, project, model…" value=${search}
          onInput=${(e: Event) => setSearch(e.currentTarget instanceof HTMLInputElement ? e.currentTarget.value : '')} />
        <label class="sr-only" for="sess-project">Project</label>
        <select id="sess-project" value=${project} onChange=${(e: Event) => onProject(e.currentTarget instanceof HTMLSelectElement ? e.currentTarget.value : '')}>
          <option value="">All projects</option>
          ${projects.map((p) => html`<option value=${p}>${shortPath(p)}</option>`)}
        </select>
      </div>
    </div>
    ${data && data.rows.length === 0 ? html`<p class="empty">${debounced || project ? 'No session matches.' : 'No sessions recorded yet.'}</p>` : html`
    <div class="table-wrap">
      <table>
        <caption class="sr-only">Recorded sessions, ${total} in all, sorted by ${sort} ${order === 'asc' ? 'ascending' : 'descending'}</caption>
        <thead><tr>${COLUMNS.map((c) => html`<th scope="col" class=${c.num ? 'num' : ''}
          aria-sort=${c.key === sort ? (order === 'asc' ? 'ascending' : 'descending') : undefined}>
          ${c.key ? html`<button type="button" onClick=${() => c.key && toggle(c.key)}>${c.label}</button>` : c.label}</th>`)}</tr></thead>
        <tbody>
          ${(data?.rows ?? []).map((r) => html`<tr key=${r.session_id} class=${r.session_id === selected ? 'selected' : ''}>
            <td><button type="button" class="link" onClick=${() => onSelect(r.session_id)} aria-label=${`Open session ${r.session_id}`}>${shortId(r.session_id)}</button>
              ${r.live ? html` <span class="pill live">live</span>` : null}</td>
            <td>${fmtDateTime(r.started_at)}</td>
            <td title=${r.project_path}>${shortPath(r.project_path)}</td>
            <td>${r.model || '--'}</td>
            <td class="num">${r.turns}</td>
            <td class="num">${r.tool_calls}</td>
            <td class="num">${fmtTokens(r.input_tokens_raw)}</td>
            <td class="num"><b>${fmtTokens(r.saved)}</b></td>
            <td class="num">${r.savings_pct.toFixed(1)}%</td>
          </tr>`)}
        </tbody>
      </table>
    </div>
    <div class="pager">
      <span>${total === 0 ? '' : `${offset + 1}–${Math.min(offset + PAGE, total)} of ${total}`}</span>
      <button type="button" class="btn" disabled=${offset === 0} onClick=${() => setOffset(Math.max(0, offset - PAGE))}>Previous</button>
      <button type="button" class="btn" disabled=${offset + PAGE >= total} onClick=${() => setOffset(offset + PAGE)}>Next</button>
    </div>`}
  </section>`;
}
