/**
 * The session index panel: the current session's summarised phases (layer 1), newest last, each
 * with its summary behind a disclosure, and a search box over this session's phases or every
 * session's. A `phase` event of the current session shows at once (from the event) and refetches
 * the list, so its summary follows.
 *
 * Invariant: one request in flight per view (a newer one aborts the older); text only through
 * interpolation (topics and summaries come from a model).
 */
import { html } from 'htm/preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { getJson, query } from '../api.js';
import {
  phaseSearchResponse,
  phasesResponse,
  type HmcEvent,
  type PhaseEntry,
  type PhaseHit as Hit,
  type PhaseEvent,
} from '../schema.js';
import { count, fmtTokens, shortId } from '../format.js';
import { PhaseHit } from './phase-hit.js';
import { CardTitle } from './card-title.js';
import { PhaseItem, type ShownPhase } from './phase-item.js';

const SEARCH_DELAY_MS = 250;
/** A second look after a phase event, in case its summary was not stored yet at the first. */
const SETTLE_MS = 1500;

type Scope = 'session' | 'global';

/**
 * Stored phases, plus the phases known so far only from live events (newest first: the first
 * event seen per phase is its newest); an updated phase shows its stored entry until the refetch.
 */
export function shownPhases(stored: PhaseEntry[], events: PhaseEvent[]): ShownPhase[] {
  const byId = new Map<number, ShownPhase>(stored.map((p) => [p.phase_id, p]));
  for (const e of events) {
    if (byId.has(e.phase_id)) continue;
    byId.set(e.phase_id, {
      session_id: e.session_id,
      phase_id: e.phase_id,
      turn_from: e.turn_from,
      turn_to: e.turn_to,
      topic: e.topic,
      tokens_before: e.tokens_before,
      tokens_after: e.tokens_after,
      recall_id: e.recall_id,
      updates: e.updated ? 1 : 0,
    });
  }
  return [...byId.values()].sort((a, b) => a.phase_id - b.phase_id);
}

export function PhasesPanel({
  sessionId,
  events,
  epoch,
}: {
  sessionId: string | null;
  events: HmcEvent[];
  epoch: number;
}) {
  const [stored, setStored] = useState<PhaseEntry[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [text, setText] = useState('');
  const [scope, setScope] = useState<Scope>('session');
  const [hits, setHits] = useState<Hit[] | null>(null);
  const scopeNow: Scope = sessionId ? scope : 'global';

  const live = useMemo(
    () => events.filter((e): e is PhaseEvent => e.type === 'phase' && e.session_id === sessionId),
    [events, sessionId],
  );
  const lastEvent = live[0]?.id ?? '';

  useEffect(() => {
    setStored([]);
    setLoaded(false);
  }, [sessionId]);
  useEffect(() => {
    if (!sessionId) return;
    const ctl = new AbortController();
    const load = () =>
      void getJson(`/api/phases${query({ session: sessionId })}`, phasesResponse, ctl.signal).then((r) => {
        if (!r || ctl.signal.aborted) return;
        setStored(r.phases);
        setLoaded(true);
      });
    load();
    const again = lastEvent ? window.setTimeout(load, SETTLE_MS) : undefined;
    return () => {
      ctl.abort();
      window.clearTimeout(again);
    };
  }, [sessionId, epoch, lastEvent]);

  useEffect(() => {
    if (!text.trim()) {
      setHits(null);
      return;
    }
    const ctl = new AbortController();
    const t = window.setTimeout(() => {
      const params = {
        q: text.trim().slice(0, 500),
        session: scopeNow === 'session' ? (sessionId ?? undefined) : undefined,
      };
      void getJson(`/api/phases${query(params)}`, phaseSearchResponse, ctl.signal).then(
        (r) => !ctl.signal.aborted && setHits(r ? r.hits : []),
      );
    }, SEARCH_DELAY_MS);
    return () => {
      ctl.abort();
      window.clearTimeout(t);
    };
  }, [text, scopeNow, sessionId, lastEvent]);

  const phases = useMemo(() => shownPhases(stored, live), [stored, live]);
  const saved = phases.reduce((n, p) => n + Math.max(0, p.tokens_before - p.tokens_after), 0);
  return html`<section class="card span-12" aria-labelledby="phases-h" data-testid="phases">
    <div class="card-head">
      <${CardTitle} view="phases" title="Summarised phases" />
      ${sessionId ? html`<span class="hint">session ${shortId(sessionId)} · ${count(phases.length, 'phase')}${saved > 0 ? ` · ${fmtTokens(saved)} tokens saved` : ''}</span>` : null}
    </div>
    <div class="toolbar phase-search" role="search">
      <label class="sr-only" for="phase-q">Search the summaries</label>
      <input id="phase-q" type="search" placeholder="Search summaries and topics…" value=${text} maxlength="500"
        onInput=${(e: Event) => setText(e.currentTarget instanceof HTMLInputElement ? e.currentTarget.value : '')} />
      <div class="seg" role="group" aria-label="Search in">
        <button type="button" aria-pressed=${scopeNow === 'session'} disabled=${!sessionId} onClick=${() => setScope('session')}>This session</button>
        <button type="button" aria-pressed=${scopeNow === 'global'} onClick=${() => setScope('global')}>All sessions</button>
      </div>
    </div>
    ${
      hits !== null
        ? html`
      <p class="hint" aria-live="polite">${hits.length === 0 ? 'No phase matches.' : `${count(hits.length, 'phase')} ${hits.length === 1 ? 'matches' : 'match'}, best first.`}</p>
      ${
        hits.length > 0
          ? html`<ol class="phases" aria-label="Matching phases">
        ${hits.map((h) => html`<${PhaseHit} key=${`${h.session_id}#${h.phase_id}`} hit=${h} global=${scopeNow === 'global'} />`)}
      </ol>`
          : null
      }`
        : !sessionId
          ? html`<p class="empty">Phases appear when HMC summarises finished work in a session; search every session above.</p>`
          : phases.length === 0
            ? html`<p class="empty">${loaded ? 'No phase summarised in this session yet. When the context fills, HMC summarises finished work here; each phase can be recalled exactly.' : 'Loading…'}</p>`
            : html`<ol class="phases" aria-label="Phases, oldest first">
        ${phases.map((p) => html`<${PhaseItem} key=${p.phase_id} phase=${p} />`)}
      </ol>`
    }
  </section>`;
}
