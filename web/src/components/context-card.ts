/**
 * "Where the context goes" for one session (issue 24, part 5; /api/sessions/:id/context): its
 * latest request split into the system prompt, the tool schemas and the messages by part, raw and
 * as HMC sent it, against the model's window; each tool schema with its tokens and how often the
 * tool was called over the period and in the session; and the advice that follows (advice only:
 * the page changes nothing).
 *
 * Invariant: names (tools, parts) are shown as text, whatever they contain; a session with no
 * request yet, or an answer that fails its guard, says so instead of showing zeros.
 */
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { fetchJson } from '../api.js';
import { fmtDateTime, fmtPct, fmtTokens, fmtWindow } from '../format.js';
import { contextResponse, type ContextViewData } from '../schema.js';
import { ScrollWrap } from './scroll-wrap.js';

const LABELS: Record<string, string> = {
  system_prompt: 'System prompt',
  tool_schemas: 'Tool schemas',
  tool_outputs: 'Tool outputs',
  tool_call_arguments: 'Tool-call arguments',
  user: 'User messages',
  assistant: 'Assistant text',
  other: 'Other messages',
};

type Loaded = { view: ContextViewData; note: string | null } | { none: string } | 'loading' | 'failed';

export function ContextCard({ id, epoch }: { id: string; epoch: number }) {
  const [data, setData] = useState<Loaded>('loading');
  useEffect(() => {
    const ctl = new AbortController();
    void fetchJson(`/api/sessions/${encodeURIComponent(id)}/context`, contextResponse, ctl.signal).then((r) => {
      if (ctl.signal.aborted) return;
      if (!r.ok) {
        setData((prev) =>
          typeof prev === 'object'
            ? prev
            : r.status === 404
              ? { none: 'HMC has saved no turn of this session yet: the breakdown appears after its first turn.' }
              : 'failed',
        );
        return;
      }
      const b = r.value.breakdown;
      setData(
        b
          ? { view: b, note: r.value.breakdown_note ?? null }
          : { none: r.value.breakdown_note ?? 'No request seen in this session yet.' },
      );
    });
    return () => ctl.abort();
  }, [id, epoch]);
  if (data === 'loading') return null;
  const head = html`<h3 id="context-h">Where the context goes</h3>`;
  if (data === 'failed')
    return html`<div class="detail-context" data-testid="context-failed">${head}<p class="empty">Could not load the breakdown (the dashboard did not answer).</p></div>`;
  if ('none' in data)
    return html`<div class="detail-context" data-testid="context-none">${head}<p class="empty">${data.none}</p></div>`;
  const v = data.view;
  const window = v.context_window;
  const parts = v.parts.filter((p) => p.raw > 0 || p.part !== 'other');
  const max = Math.max(1, ...parts.map((p) => p.raw));
  const periodKnown = v.tools.some((t) => t.calls_period !== null);
  const unused = new Set(v.unused_tools);
  return html`<div class="detail-context" data-testid="context" aria-labelledby="context-h">
    ${head}
    <div class="stats">
      <div class="stat"><div class="v" data-testid="context-sent">${fmtTokens(v.total.sent)}</div><div class="k">tokens sent in the latest request</div></div>
      <div class="stat"><div class="v">${fmtTokens(v.total.raw)}</div><div class="k">without HMC</div></div>
      <div class="stat"><div class="v">${window ? fmtPct(v.total.sent / window, 1) : '--'}</div><div class="k">of the ${window ? `${fmtWindow(window)} ` : ''}window</div></div>
      <div class="stat"><div class="v" data-testid="context-tools">${v.tools.length}</div><div class="k">tool schemas sent</div></div>
    </div>
    <div class="meta"><span>as of <b>${fmtDateTime(v.at)}</b>${data.note ? ` (${data.note})` : ''}</span>${v.request_seen ? null : html`<span>the host sent no system prompt or tool schemas: only the messages are known</span>`}</div>
    ${v.advice.map((a) => html`<p class="advice" role="note" data-testid="context-advice"><b>Advice:</b> ${a}</p>`)}
    ${v.problems.map((p) => html`<p class="advice problem" data-testid="context-problem">${p}</p>`)}
    <${ScrollWrap} label="The latest request by part">
      <table class="context-parts" data-testid="context-parts">
        <caption class="sr-only">The latest request by part, raw and as HMC sent it</caption>
        <thead><tr><th scope="col">Part</th><th scope="col" class="bar-col">Raw · sent</th><th scope="col" class="num">Raw</th><th scope="col" class="num">Sent</th><th scope="col" class="num">Share</th></tr></thead>
        <tbody>${parts.map(
          (p) => html`<tr key=${p.part}>
          <th scope="row">${LABELS[p.part] ?? p.part}${p.part === 'tool_schemas' ? ` (${v.tools.length})` : ''}</th>
          <td class="bar-col" aria-hidden="true"><span class="ctx-bar raw" style=${{ width: `${Math.round((p.raw / max) * 100)}%` }}></span><span class="ctx-bar sent" style=${{ width: `${Math.round((p.sent / max) * 100)}%` }}></span></td>
          <td class="num">${fmtTokens(p.raw)}</td><td class="num">${fmtTokens(p.sent)}</td><td class="num">${v.total.sent > 0 ? fmtPct(p.sent / v.total.sent, 1) : '--'}</td>
        </tr>`,
        )}</tbody>
      </table>
    <//>
    ${
      v.tools.length > 0
        ? html`<h3 class="sub">Tool schemas, largest first</h3>
      <${ScrollWrap} label="Tool schemas">
        <table class="context-tools" data-testid="context-tool-table">
          <caption class="sr-only">Each tool schema sent: its tokens and its calls</caption>
          <thead><tr><th scope="col">Tool</th><th scope="col" class="num">Tokens</th><th scope="col" class="num">${periodKnown ? `Calls, ${v.period_days} days` : 'Calls, period'}</th><th scope="col" class="num">Calls, this session</th></tr></thead>
          <tbody>${v.tools.map(
            (t, i) => html`<tr key=${`${i}:${t.name}`} class=${unused.has(t.name) ? 'unused' : ''}>
            <th scope="row" class="name" title=${t.name}><span class="tool-name">${t.name}</span>${unused.has(t.name) ? html` <span class="tag">never called</span>` : null}</th>
            <td class="num">${fmtTokens(t.tokens)}</td><td class="num">${t.calls_period === null ? '--' : t.calls_period}</td><td class="num">${t.calls_session}</td>
          </tr>`,
          )}</tbody>
        </table>
      <//>
      ${v.period_note ? html`<p class="empty">${v.period_note}</p>` : null}`
        : null
    }
  </div>`;
}
