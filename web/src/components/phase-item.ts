/**
 * One summarised phase in the phases panel: its number, topic, turns, tokens before and after
 * (what the summary saves), its recall id, and the summary itself behind a disclosure.
 *
 * Invariant: every field is text through interpolation (topics and summaries come from a model
 * and may hold markup); a phase known only from its live event says its summary is on its way.
 */
import { html } from 'htm/preact';
import type { PhaseEntry } from '../schema.js';
import { fmtTokens } from '../format.js';

/** A phase as the panel shows it: a stored entry, or what a live event said (no summary yet). */
export type ShownPhase = Omit<PhaseEntry, 'summary' | 'model' | 'message_from' | 'message_to' | 'created_at'> &
  Partial<Pick<PhaseEntry, 'summary' | 'model' | 'message_from' | 'message_to'>>;

export function turnRange(from: number, to: number): string {
  return from === to ? `turn ${from}` : `turns ${from}–${to}`;
}

export function PhaseItem({ phase }: { phase: ShownPhase }) {
  const saved = Math.max(0, phase.tokens_before - phase.tokens_after);
  return html`<li class="phase" data-phase-id=${phase.phase_id}>
    <details>
      <summary>
        <span class="phase-n">#${phase.phase_id}</span>
        <span class="phase-topic">${phase.topic}</span>
        <span class="phase-meta">
          <span>${turnRange(phase.turn_from, phase.turn_to)}</span>
          <span>${fmtTokens(phase.tokens_before)} → ${fmtTokens(phase.tokens_after)} tokens · <b class="saved">${fmtTokens(saved)} saved</b></span>
          <span>recall <code>${phase.recall_id}</code></span>
        </span>
      </summary>
      ${
        phase.summary === undefined
          ? html`<p class="empty">The summary is being stored…</p>`
          : html`<div class="phase-summary">${phase.summary}</div>
          <div class="hint">${[
            phase.updates > 0 ? `updated ${phase.updates}×` : '',
            phase.message_from !== undefined && phase.message_to !== undefined
              ? `messages ${phase.message_from}–${phase.message_to}`
              : '',
            phase.model ? `summarised by ${phase.model}` : '',
          ]
            .filter(Boolean)
            .join(' · ')}</div>`
      }
    </details>
  </li>`;
}
