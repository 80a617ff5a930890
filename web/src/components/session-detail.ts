/**
 * The drill-down of one session, its deep link `#/session/<id>`: its figures, its turn-by-turn
 * charts, what each strategy and tool saved (from /api/sessions/:id: the stored record, else
 * the live view), where its latest request's context went (context-card.ts) and the provider's
 * usage where the host reported it (provider-usage.ts). An id the server does not know (a mistyped or old link) says so plainly.
 *
 * Invariant: focus moves to the heading when it opens; the id is shown only as text and sent
 * only percent-encoded; Close hands control back to the caller (`onClose`).
 */
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { fetchJson } from '../api.js';
import { sessionDetailResponse, type SessionDetail as Detail } from '../schema.js';
import { fmtDateTime, fmtPct, fmtTokens, sortedEntries } from '../format.js';
import { useRouteApi } from '../route-context.js';
import { BarList } from './bar-list.js';
import { CardTitle } from './card-title.js';
import { CopyLink } from './copy-link.js';
import { ProviderUsage } from './provider-usage.js';
import { ContextCard } from './context-card.js';
import { statClass } from './stat-class.js';
import { TurnCharts, type TurnSeries } from './turn-charts.js';
import { StatePill } from './state-pill.js';

type Loaded = Detail | 'loading' | 'missing' | 'failed';

export function SessionDetail({ id, epoch, onClose }: { id: string; epoch: number; onClose: () => void }) {
  const [data, setData] = useState<Loaded>('loading');
  const heading = useRef<HTMLHeadingElement>(null);
  const { route } = useRouteApi();
  useEffect(() => setData('loading'), [id]);
  useEffect(() => {
    const ctl = new AbortController();
    void fetchJson(`/api/sessions/${encodeURIComponent(id)}`, sessionDetailResponse, ctl.signal).then((r) => {
      if (ctl.signal.aborted) return;
      // A refetch that fails keeps what is shown; a 404 means the session is not there.
      if (r.ok) setData(r.value);
      else setData((prev) => (r.status === 404 ? 'missing' : typeof prev === 'string' ? 'failed' : prev));
    });
    return () => ctl.abort();
  }, [id, epoch]);
  useEffect(() => heading.current?.focus(), [id]);

  const found = typeof data === 'string' ? null : data;
  const s = found?.session ?? null;
  const live = found?.live ?? null;
  const series: TurnSeries[] =
    s && s.timeline.length > 0
      ? s.timeline.map((p) => ({
          turn: p.turn,
          context_percent: p.context_percent,
          saved: Math.max(0, p.input_raw - p.input_hmc),
          calls: p.model_calls,
          context_saved:
            p.context_raw_tokens === undefined ? undefined : Math.max(0, p.context_raw_tokens - p.context_tokens),
        }))
      : (live?.points ?? []).map((p) => ({
          turn: p.turn,
          context_percent: p.context_percent,
          saved: p.delta_saved,
          calls: p.model_calls,
          context_saved: p.context_saved,
        }));
  const saved = s?.saved ?? live?.saved ?? 0;
  const input = s?.input_tokens_raw ?? live?.input_tokens.raw ?? 0;
  const byStrategy = s?.by_strategy ?? live?.by_strategy ?? {};
  const byTool = s?.by_tool ?? live?.by_tool ?? {};
  const model = s?.model || live?.model || '';
  const project = s?.project_path || live?.project_path || '';
  const target = { kind: 'session', id } as const;
  return html`<section class="card span-12" aria-labelledby="detail-h" data-testid="detail">
    <div class="card-head">
      <${CardTitle} view="sessions" title="Session" id="detail-h" target=${target} headingRef=${heading}>Session <span class="id">${id}</span><//>
      <div class="toolbar">
        <${CopyLink} route=${{ ...route, target }} what=${`session ${id}`} />
        <button type="button" class="btn" onClick=${onClose}>Close</button>
      </div>
    </div>
    ${
      data === 'loading'
        ? html`<p class="empty">Loading…</p>`
        : data === 'missing'
          ? html`<p class="empty" data-testid="no-session">No such session: no session with the id <code>${id}</code> is recorded here or running now. The link may be mistyped, or the session was removed by retention.</p>`
          : data === 'failed'
            ? html`<p class="empty">Could not load this session (the dashboard did not answer). It will be tried again.</p>`
            : html`
      <div class="stats">
        <div class="stat"><div class="v">${fmtTokens(saved)}</div><div class="k">input saved</div></div>
        <div class="stat"><div class="v">${input > 0 ? fmtPct(saved / input, 1) : '--'}</div><div class="k">of input</div></div>
        <div class="stat"><div class="v">${s?.turns ?? live?.turns ?? 0}</div><div class="k">turns</div></div>
        <div class="stat"><div class="v">${s?.tool_calls ?? live?.tool_calls ?? 0}</div><div class="k">tool calls</div></div>
        <div class=${statClass(model)}><div class="v small name" title=${model} data-testid="detail-model">${model || '--'}</div><div class="k">model</div></div>
        <div class="stat"><div class="v small">${fmtDateTime(s?.started_at ?? live?.started_at ?? 0)}</div><div class="k">started</div></div>
      </div>
      <div class="meta"><span>project <b class="path">${project || '(no project)'}</b></span>${found?.state ? html`<span><${StatePill} state=${found.state} /></span>` : null}</div>
      <div class="detail-charts"><${TurnCharts} series=${series} label=${`session ${id}`} sessionId=${id} thresholds=${live ?? {}} /></div>
      <div class="card-grid detail-bars">
        <div><h3>By strategy</h3><${BarList} items=${sortedEntries(byStrategy)} label="Saved by strategy" empty="No strategy fired." /></div>
        <div><h3>By tool</h3><${BarList} items=${sortedEntries(byTool)} label="Saved by tool" alt=${true} empty="No tool output compressed." /></div>
      </div>
      <${ContextCard} id=${id} epoch=${epoch} />
      <${ProviderUsage} id=${id} epoch=${epoch} />`
    }
  </section>`;
}
