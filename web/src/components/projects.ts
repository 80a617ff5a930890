/**
 * Per-project totals; choosing a project filters the sessions table and history.
 *
 * Invariant: each project is a button (keyboard reachable), its path shown as text.
 */
import { html } from 'htm/preact';
import type { ProjectRow } from '../schema.js';
import { fmtTokens, shortPath } from '../format.js';

export function Projects({ rows, project, onProject }: { rows: ProjectRow[]; project: string; onProject: (p: string) => void }) {
  return html`<section class="card span-12" aria-labelledby="proj-h" data-testid="projects">
    <div class="card-head"><h2 id="proj-h">Projects</h2>
      ${project ? html`<button type="button" class="btn" onClick=${() => onProject('')}>Show all projects</button>` : null}</div>
    ${rows.length === 0 ? html`<p class="empty">No projects recorded yet.</p>` : html`<div class="table-wrap"><table>
      <caption class="sr-only">Totals per project</caption>
      <thead><tr><th scope="col">Project</th><th scope="col" class="num">Sessions</th><th scope="col" class="num">Input</th><th scope="col" class="num">Saved</th><th scope="col" class="num">%</th></tr></thead>
      <tbody>${rows.map((p) => html`<tr key=${p.project_path} class=${p.project_path === project ? 'selected' : ''}>
        <td><button type="button" class="link" title=${p.project_path} aria-pressed=${p.project_path === project}
          onClick=${() => onProject(p.project_path === project ? '' : p.project_path)}>${shortPath(p.project_path)}</button></td>
        <td class="num">${p.sessions}</td><td class="num">${fmtTokens(p.input_tokens)}</td>
        <td class="num"><b>${fmtTokens(p.saved_tokens)}</b></td>
        <td class="num">${p.input_tokens > 0 ? ((p.saved_tokens / p.input_tokens) * 100).toFixed(1) : '0.0'}%</td></tr>`)}</tbody>
    </table></div>`}
  </section>`;
}
