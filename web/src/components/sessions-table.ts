/**
 * Every recorded session, sorted and filtered by the server (/api/sessions), a page at a time;
 * a session opens its drill-down (its deep link, `#/session/<id>`). Where the card is narrower
 * than the table (a phone, a tablet), each row becomes a small card with the key figures first
 * (saved, %, turns) and the header a row of sort buttons (styles.css, `table.stack`). "CSV"
 * downloads every matching session, in the table's order, with exact figures.
 *
 * Invariant: sort headers are buttons with aria-sort; the table keeps its semantics in the card
 * layout (explicit roles); the search is debounced; the table is refetched when lifetime
 * figures may have changed (`epoch`).
 */
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { getJson, query } from '../api.js';
import { sessionsResponse, type SessionRow } from '../schema.js';
import { fmtDateTime, fmtTokens, shortId, shortPath } from '../format.js';
import { isoTime, type CsvTable } from '../csv.js';
import { CsvButton } from './csv-button.js';
import { ScrollWrap } from './scroll-wrap.js';
import { CardTitle } from './card-title.js';

type Sort = 'started_at' | 'saved' | 'input' | 'turns' | 'tool_calls' | 'savings_pct' | 'project_path' | 'model';
const PAGE = 10;
/** The API's largest page: the CSV export asks for the matching sessions this many at a time. */
const EXPORT_PAGE = 500;
const COLUMNS: { key: Sort | null; label: string; num: boolean; cls: string }[] = [
  { key: null, label: 'Session', num: false, cls: 'c-id' },
  { key: 'started_at', label: 'Started', num: false, cls: 'c-started' },
  { key: 'project_path', label: 'Project', num: false, cls: 'c-project' },
  { key: 'model', label: 'Model', num: false, cls: 'c-model' },
  { key: 'turns', label: 'Turns', num: true, cls: 'c-turns' },
  { key: 'tool_calls', label: 'Tools', num: true, cls: 'c-tools' },
  { key: 'input', label: 'Input', num: true, cls: 'c-input' },
  { key: 'saved', label: 'Saved', num: true, cls: 'c-saved' },
  { key: 'savings_pct', label: '%', num: true, cls: 'c-pct' },
];

export const SESSIONS_CSV_HEADER = [
  'session_id',
  'started_at',
  'project_path',
  'model',
  'turns',
  'tool_calls',
  'input_tokens',
  'saved_tokens',
  'savings_pct',
  'live',
  'state',
];

export function sessionsCsvRow(r: SessionRow): (string | number | boolean)[] {
  return [
    r.session_id,
    isoTime(r.started_at),
    r.project_path,
    r.model,
    r.turns,
    r.tool_calls,
    r.input_tokens_raw,
    r.saved,
    r.savings_pct,
    r.live === true,
    r.state ?? (r.ended_at !== null ? 'ended' : r.live ? 'live' : 'idle'),
  ];
}

/** Every session the table's filter matches, in its order, a page of EXPORT_PAGE at a time. */
async function allSessions(params: {
  sort: Sort;
  order: string;
  search: string;
  project: string;
  since?: string;
  until?: string;
}): Promise<CsvTable | null> {
  const rows: SessionRow[] = [];
  for (let offset = 0; ; offset += EXPORT_PAGE) {
    const r = await getJson(`/api/sessions${query({ limit: EXPORT_PAGE, offset, ...params })}`, sessionsResponse);
    if (!r) return null;
    rows.push(...r.rows);
    if (r.rows.length < EXPORT_PAGE || rows.length >= r.total) break;
  }
  return { header: SESSIONS_CSV_HEADER, rows: rows.map(sessionsCsvRow) };
}

export function SessionsTable({
  epoch,
  project,
  since,
  until,
  projects,
  onProject,
  selected,
  onSelect,
}: {
  epoch: number;
  project: string;
  since?: string | undefined;
  until?: string | undefined;
  projects: string[];
  onProject: (p: string) => void;
  selected: string | null;
  onSelect: (id: string) => void;
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
  useEffect(() => setOffset(0), [debounced, project, since, until, sort, order]);
  useEffect(() => {
    const ctl = new AbortController();
    void getJson(
      `/api/sessions${query({ limit: PAGE, offset, sort, order, search: debounced, project, since, until })}`,
      sessionsResponse,
      ctl.signal,
    ).then((r) => r && setData(r));
    return () => ctl.abort();
  }, [epoch, offset, sort, order, debounced, project, since, until]);

  const toggle = (key: Sort): void => {
    if (key === sort) setOrder(order === 'desc' ? 'asc' : 'desc');
    else {
      setSort(key);
      setOrder(key === 'project_path' || key === 'model' ? 'asc' : 'desc');
    }
  };
  const total = data?.total ?? 0;
  const csvName = ['sessions', ...(project ? [shortPath(project)] : []), ...(debounced ? ['matching', debounced] : [])];
  return html`<section class="card span-12" aria-labelledby="sess-h" data-testid="sessions">
    <div class="card-head">
      <${CardTitle} view="sessions" title="Sessions" />
      <div class="toolbar">
        <label class="sr-only" for="sess-search">Search sessions</label>
        <input id="sess-search" type="search" placeholder="Search id, project, model…" value=${search}
          onInput=${(e: Event) => setSearch(e.currentTarget instanceof HTMLInputElement ? e.currentTarget.value : '')} />
        <label class="sr-only" for="sess-project">Project</label>
        <select id="sess-project" value=${project} onChange=${(e: Event) => onProject(e.currentTarget instanceof HTMLSelectElement ? e.currentTarget.value : '')}>
          <option value="">All projects</option>
          ${projects.map((p) => html`<option value=${p}>${shortPath(p)}</option>`)}
        </select>
        <${CsvButton} what=${`all ${total} matching sessions`} name=${csvName} disabled=${total === 0}
          build=${() => allSessions({ sort, order, search: debounced, project, ...(since ? { since } : {}), ...(until ? { until } : {}) })} />
      </div>
    </div>
    ${
      data && data.rows.length === 0
        ? html`<p class="empty">${debounced || project || since || until ? 'No session matches.' : 'No sessions recorded yet.'}</p>`
        : html`
    <${ScrollWrap} label="Sessions">
      <table class="stack sessions" role="table">
        <caption class="sr-only">Recorded sessions, ${total} in all, sorted by ${sort} ${order === 'asc' ? 'ascending' : 'descending'}</caption>
        <thead role="rowgroup"><tr role="row">${COLUMNS.map(
          (c) => html`<th scope="col" role="columnheader" class=${`${c.cls}${c.num ? ' num' : ''}`}
          aria-sort=${c.key === sort ? (order === 'asc' ? 'ascending' : 'descending') : undefined}>
          ${c.key ? html`<button type="button" onClick=${() => c.key && toggle(c.key)}>${c.label}</button>` : c.label}</th>`,
        )}</tr></thead>
        <tbody role="rowgroup">
          ${(data?.rows ?? []).map(
            (
              r,
            ) => html`<tr role="row" key=${r.session_id} class=${r.session_id === selected ? 'selected' : ''} data-session-id=${r.session_id}>
            <td role="cell" class="c-id"><button type="button" class="link" onClick=${() => onSelect(r.session_id)} aria-label=${`Open session ${r.session_id}`}
              aria-current=${r.session_id === selected ? 'true' : undefined}>${shortId(r.session_id)}</button>
              ${r.live ? html` <span class="pill live">live</span>` : null}</td>
            <td role="cell" class="c-started">${fmtDateTime(r.started_at)}</td>
            <td role="cell" class="c-project" data-label="Project"><span class="clip" title=${r.project_path}>${shortPath(r.project_path)}</span></td>
            <td role="cell" class="c-model" data-label="Model"><span class="clip" title=${r.model}>${r.model || '--'}</span></td>
            <td role="cell" class="num c-turns" data-label="Turns">${r.turns}</td>
            <td role="cell" class="num c-tools" data-label="Tools">${r.tool_calls}</td>
            <td role="cell" class="num c-input" data-label="Input">${fmtTokens(r.input_tokens_raw)}</td>
            <td role="cell" class="num c-saved" data-label="Saved"><b>${fmtTokens(r.saved)}</b></td>
            <td role="cell" class="num c-pct" data-label="of input">${r.savings_pct.toFixed(1)}%</td>
          </tr>`,
          )}
        </tbody>
      </table>
    <//>
    <div class="pager">
      <span>${total === 0 ? '' : `${offset + 1}–${Math.min(offset + PAGE, total)} of ${total}`}</span>
      <button type="button" class="btn" disabled=${offset === 0} onClick=${() => setOffset(Math.max(0, offset - PAGE))}>Previous</button>
      <button type="button" class="btn" disabled=${offset + PAGE >= total} onClick=${() => setOffset(offset + PAGE)}>Next</button>
    </div>`
    }
  </section>`;
}
