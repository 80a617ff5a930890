/**
 * The drill-down of one session: its figures, its turn-by-turn charts and what each strategy
 * and tool saved (from /api/sessions/:id: the stored record, else the live view).
 *
 * Invariant: focus moves to the heading when it opens; Close returns it to the caller.
 */
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { getJson } from '../api.js';
import { sessionDetailResponse, type SessionDetail as Detail } from '../schema.js';
import { fmtDateTime, fmtPct, fmtTokens, sortedEntries } from '../format.js';
import { BarList } from './bar-list.js';
import { TurnCharts, type TurnSeries } from './turn-charts.js';

export function SessionDetail({ id, epoch, onClose }: { id: string; epoch: number; onClose: () => void }) {
  const [data, setData] = useState<Detail | null | 'missing'>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    void getJson(`/api/sessions/${encodeURIComponent(id)}`, sessionDetailResponse).then((r) => setData(r ?? 'missing'));
  }, [id, epoch]);
  useEffect(() => heading.current?.focus(), [id]);

  const s = data && data !== 'missing' ? data.session : null;
  const live = data && data !== 'missing' ? data.live : null;
  const series: TurnSeries[] = s && s.timeline.length > 0
    ? s.timeline.map((p) => ({ turn: p.turn, context_percent: p.context_percent, saved: Math.max(0, p.input_raw - p.input_hmc) }))
    : (live?.points ?? []).map((p) => ({ turn: p.turn, context_percent: p.context_percent, saved: p.delta_saved }));
  const saved = s?.saved ?? live?.saved ?? 0;
  const input = s?.input_tokens_raw ?? live?.input_tokens.raw ?? 0;
  const byStrategy = s?.by_strategy ?? live?.by_strategy ?? {};
  const byTool = s?.by_tool ?? live?.by_tool ?? {};
  return html`<section class="card span-12" aria-labelledby="detail-h" data-testid="detail">
    <div class="card-head">
      <h2 id="detail-h" tabindex="-1" ref=${heading}>Session <span class="id">${id}</span></h2>
      <button type="button" class="btn" onClick=${onClose}>Close</button>
    </div>
    ${data === null ? html`<p class="empty">Loading…</p>` : data === 'missing' ? html`<p class="empty">This session is not recorded (yet).</p>` : html`
      <div class="stats">
        <div class="stat"><div class="v">${fmtTokens(saved)}</div><div class="k">saved</div></div>
        <div class="stat"><div class="v">${input > 0 ? fmtPct(saved / input, 1) : '--'}</div><div class="k">of input</div></div>
        <div class="stat"><div class="v">${s?.turns ?? live?.turns ?? 0}</div><div class="k">turns</div></div>
        <div class="stat"><div class="v">${s?.tool_calls ?? live?.tool_calls ?? 0}</div><div class="k">tool calls</div></div>
        <div class="stat"><div class="v small">${s?.model || live?.model || '--'}</div><div class="k">model</div></div>
        <div class="stat"><div class="v small">${fmtDateTime(s?.started_at ?? live?.started_at ?? 0)}</div><div class="k">started</div></div>
      </div>
      <div class="meta"><span>project <b>${s?.project_path || live?.project_path || '(no project)'}</b></span></div>
      <div class="detail-charts"><${TurnCharts} series=${series} label=${`session ${id}`} /></div>
      <div class="card-grid detail-bars">
        <div><h3>By strategy</h3><${BarList} items=${sortedEntries(byStrategy)} label="Saved by strategy" empty="No strategy fired." /></div>
        <div><h3>By tool</h3><${BarList} items=${sortedEntries(byTool)} label="Saved by tool" alt=${true} empty="No tool output compressed." /></div>
      </div>`}
  </section>`;
}
