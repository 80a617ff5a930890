/**
 * Per-project totals; choosing a project filters the sessions table and history. Narrower than
 * the table, each project becomes a small card, its figures saved and % first (styles.css,
 * `table.stack`). "CSV" downloads the rows shown, with exact figures.
 *
 * Invariant: each project is a button (keyboard reachable), its path shown as text; the table
 * keeps its semantics in the card layout (explicit roles).
 */
import { html } from 'htm/preact';
import type { ProjectRow } from '../schema.js';
import { fmtTokens, shortPath } from '../format.js';
import { pct, type CsvTable } from '../csv.js';
import { CardTitle } from './card-title.js';
import { CsvButton } from './csv-button.js';
import { ScrollWrap } from './scroll-wrap.js';

/** Saved as a share of input (0..1); 0 without input. */
function share(p: ProjectRow): number {
  return p.input_tokens > 0 ? p.saved_tokens / p.input_tokens : 0;
}

export function projectsCsv(rows: ProjectRow[]): CsvTable {
  return {
    header: ['project_path', 'sessions', 'input_tokens', 'saved_tokens', 'savings_pct'],
    rows: rows.map((p) => [p.project_path, p.sessions, p.input_tokens, p.saved_tokens, pct(share(p))]),
  };
}

export function Projects({
  rows,
  project,
  onProject,
}: {
  rows: ProjectRow[];
  project: string;
  onProject: (p: string) => void;
}) {
  return html`<section class="card span-12" aria-labelledby="proj-h" data-testid="projects">
    <div class="card-head"><${CardTitle} view="projects" title="Projects" />
      <div class="toolbar">
        ${project ? html`<button type="button" class="btn" onClick=${() => onProject('')}>Show all projects</button>` : null}
        <${CsvButton} what="Projects" name=${['projects']} disabled=${rows.length === 0} build=${() => projectsCsv(rows)} />
      </div></div>
    ${
      rows.length === 0
        ? html`<p class="empty">No projects recorded yet.</p>`
        : html`<${ScrollWrap} label="Projects"><table class="stack projects" role="table">
      <caption class="sr-only">Totals per project</caption>
      <thead role="rowgroup"><tr role="row"><th scope="col" role="columnheader" class="c-project">Project</th><th scope="col" role="columnheader" class="num c-sessions">Sessions</th>
        <th scope="col" role="columnheader" class="num c-input">Input</th><th scope="col" role="columnheader" class="num c-saved">Saved</th>
        <th scope="col" role="columnheader" class="num c-pct">%</th></tr></thead>
      <tbody role="rowgroup">${rows.map(
        (p) => html`<tr role="row" key=${p.project_path} class=${p.project_path === project ? 'selected' : ''}>
        <td role="cell" class="c-project"><button type="button" class="link clip" title=${p.project_path} aria-pressed=${p.project_path === project}
          onClick=${() => onProject(p.project_path === project ? '' : p.project_path)}>${shortPath(p.project_path)}</button></td>
        <td role="cell" class="num c-sessions" data-label="Sessions">${p.sessions}</td>
        <td role="cell" class="num c-input" data-label="Input">${fmtTokens(p.input_tokens)}</td>
        <td role="cell" class="num c-saved" data-label="Saved"><b>${fmtTokens(p.saved_tokens)}</b></td>
        <td role="cell" class="num c-pct" data-label="of input">${(share(p) * 100).toFixed(1)}%</td></tr>`,
      )}</tbody>
    </table><//>`
    }
  </section>`;
}
