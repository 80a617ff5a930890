/**
 * One search hit in the phases panel: the phase's number (and session, for a search across
 * sessions), topic, turns and the snippet around the matched words, which are marked; opening it
 * fetches the phase's whole summary.
 *
 * Invariant: text only through interpolation; marks are offsets into the snippet, clamped to it,
 * so a bad offset can only mark less, never inject anything.
 */
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { getJson, query } from '../api.js';
import { phaseResponse, type PhaseEntry, type PhaseHit as Hit } from '../schema.js';
import { fmtTokens, shortId } from '../format.js';
import { turnRange } from './phase-item.js';

/** The snippet as text and <mark> parts. */
function marked(snippet: string, marks: [number, number][]) {
  const parts: unknown[] = [];
  let at = 0;
  for (const [a, b] of marks) {
    const from = Math.max(at, Math.min(snippet.length, a));
    const to = Math.max(from, Math.min(snippet.length, b));
    if (from > at) parts.push(snippet.slice(at, from));
    if (to > from) parts.push(html`<mark>${snippet.slice(from, to)}</mark>`);
    at = to;
  }
  if (at < snippet.length) parts.push(snippet.slice(at));
  return parts;
}

export function PhaseHit({ hit, global }: { hit: Hit; global: boolean }) {
  const [full, setFull] = useState<PhaseEntry | null | 'missing'>(null);
  const onToggle = (e: Event) => {
    const open = e.currentTarget instanceof HTMLDetailsElement && e.currentTarget.open;
    if (!open || full !== null) return;
    void getJson(`/api/phases${query({ session: hit.session_id, phase: hit.phase_id })}`, phaseResponse).then((r) =>
      setFull(r ? r.phase : 'missing'),
    );
  };
  return html`<li class="phase hit" data-phase-id=${hit.phase_id} data-session-id=${hit.session_id}>
    <details onToggle=${onToggle}>
      <summary>
        <span class="phase-n">#${hit.phase_id}</span>
        <span class="phase-topic">${hit.topic}</span>
        <span class="phase-meta">
          ${global ? html`<span title=${hit.session_id}>session ${shortId(hit.session_id)}</span>` : null}
          <span>${turnRange(hit.turn_from, hit.turn_to)}</span>
          <span>${fmtTokens(hit.tokens_before)} → ${fmtTokens(hit.tokens_after)} tokens</span>
          <span>recall <code>${hit.recall_id}</code></span>
        </span>
        <span class="snippet">${marked(hit.snippet, hit.marks)}</span>
      </summary>
      ${
        full === null
          ? html`<p class="empty">Loading the summary…</p>`
          : full === 'missing'
            ? html`<p class="empty">This phase is no longer stored.</p>`
            : html`<div class="phase-summary">${full.summary}</div>`
      }
    </details>
  </li>`;
}
