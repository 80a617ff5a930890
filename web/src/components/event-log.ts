/**
 * The live event log, newest first: turn, tool, phase, session idle and session end events with
 * what each saved.
 * It can be paused (the view freezes; events keep arriving and show on resume) and filtered
 * by type and by text (tool name, session, strategy). A tool event with an inspector record
 * opens the inspector.
 *
 * Invariant: at most `MAX_SHOWN` rows; every field is text (tool names may contain markup).
 */
import { html } from 'htm/preact';
import { useMemo, useState } from 'preact/hooks';
import type { HmcEvent } from '../schema.js';
import { count, fmtClock, fmtPct, fmtTokens, shortId } from '../format.js';
import { CardTitle } from './card-title.js';

const MAX_SHOWN = 300;
type Filter = 'all' | 'turn' | 'tool' | 'phase' | 'session_idle' | 'session_end';
const FILTERS: readonly Filter[] = ['all', 'turn', 'tool', 'phase', 'session_idle', 'session_end'];

function matches(e: HmcEvent, text: string): boolean {
  if (!text) return true;
  const t = text.toLowerCase();
  const hay = [
    e.session_id,
    e.type,
    e.type === 'tool' ? e.tool_name : '',
    e.type === 'tool' ? e.strategies.join(' ') : '',
    e.type === 'turn' ? e.model : '',
    e.type === 'phase' ? e.topic : '',
  ];
  return hay.some((h) => h.toLowerCase().includes(t));
}

export function EventLog({ events, onInspect }: { events: HmcEvent[]; onInspect: (id: string) => void }) {
  const [paused, setPaused] = useState<HmcEvent[] | null>(null);
  const [type, setType] = useState<Filter>('all');
  const [text, setText] = useState('');
  const source = paused ?? events;
  const shown = useMemo(
    () => source.filter((e) => (type === 'all' || e.type === type) && matches(e, text)).slice(0, MAX_SHOWN),
    [source, type, text],
  );
  const waiting = paused ? events.filter((e) => !paused.includes(e)).length : 0;
  return html`<section class="card span-5" aria-labelledby="log-h" data-testid="log">
    <div class="card-head">
      <${CardTitle} view="events" title="Live events" />
      <button type="button" class="btn" aria-pressed=${paused !== null} onClick=${() => setPaused(paused ? null : events)}>
        ${paused ? `Resume${waiting ? ` (${waiting} new)` : ''}` : 'Pause'}</button>
    </div>
    <div class="toolbar log-filters">
      <label class="sr-only" for="log-type">Event type</label>
      <select id="log-type" value=${type} onChange=${(e: Event) => {
        const v = e.currentTarget instanceof HTMLSelectElement ? e.currentTarget.value : 'all';
        setType(FILTERS.find((f) => f === v) ?? 'all');
      }}>
        <option value="all">All events</option><option value="turn">Turns</option><option value="tool">Tools</option><option value="phase">Phases</option><option value="session_idle">Sessions idle</option><option value="session_end">Session ends</option>
      </select>
      <label class="sr-only" for="log-text">Filter events</label>
      <input id="log-text" type="search" placeholder="Filter by tool, session…" value=${text}
        onInput=${(e: Event) => setText(e.currentTarget instanceof HTMLInputElement ? e.currentTarget.value : '')} />
    </div>
    ${
      shown.length === 0
        ? html`<p class="empty">${events.length === 0 ? 'Connected; waiting for events…' : 'No event matches the filter.'}</p>`
        : html`
    <ol class="log" aria-label="Events, newest first">
      ${shown.map(
        (e) => html`<li key=${e.id} data-event-id=${e.id}>
        <time datetime=${new Date(e.time).toISOString()}>${fmtClock(e.time)}</time>
        <div>${line(e, onInspect)}</div>
      </li>`,
      )}
    </ol>`
    }
  </section>`;
}

function line(e: HmcEvent, onInspect: (id: string) => void) {
  const sid = html`<span class="hint"> · ${shortId(e.session_id)}</span>`;
  if (e.type === 'turn') {
    return html`<span class="kind turn">turn ${e.turn}</span> ctx ${fmtPct(e.context_percent)}
      ${e.delta_saved > 0 ? html` · <span class="saved">+${fmtTokens(e.delta_saved)} saved</span>` : null}${sid}`;
  }
  if (e.type === 'tool') {
    const name = html`<span class="tname">${e.tool_name}</span>`;
    const inspectId = e.inspect_id;
    return html`<span class=${`kind tool ${e.is_error ? 'err' : ''}`}>${e.is_error ? 'tool error' : 'tool'}</span>
      ${inspectId ? html`<button type="button" class="link" onClick=${() => onInspect(inspectId)} aria-label=${`Inspect the output of ${e.tool_name}`}>${e.tool_name}</button>` : name}
      ${e.delta_saved > 0 ? html` · <span class="saved">${fmtTokens(e.tokens_before)} → ${fmtTokens(e.tokens_after)}</span>` : html` · ${fmtTokens(e.tokens_before)} tokens`}
      ${e.strategies.length > 0 ? html`<span class="hint"> · ${e.strategies.join(', ')}</span>` : null}${sid}`;
  }
  if (e.type === 'phase') {
    return html`<span class="kind phase">${e.updated ? 'phase updated' : 'phase'}</span>
      <span class="ptopic">${e.topic}</span>${` · turns ${e.turn_from === e.turn_to ? e.turn_from : `${e.turn_from}–${e.turn_to}`} · `}<span class="saved">${fmtTokens(e.tokens_before)} → ${fmtTokens(e.tokens_after)}</span>${sid}`;
  }
  // Idle: the process that held the session exited (it can be resumed); ended: the session is finished.
  const [kind, label] = e.type === 'session_idle' ? ['session_idle', 'session idle'] : ['session_end', 'session ended'];
  return html`<span class=${`kind ${kind}`}>${label}</span> ${fmtTokens(e.total_saved)} saved in ${count(e.turns, 'turn')}${sid}`;
}
