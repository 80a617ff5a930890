/**
 * The inspector: one compressed tool output before and after, as a line diff (removed lines
 * struck through in red, markers the compressor added in blue), or either side on its own.
 *
 * Invariant: the outputs are shown as text only; at most MAX_LINES lines are drawn at first.
 */
import { html } from 'htm/preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { getJson } from '../api.js';
import { inspectRecord, type InspectRecord } from '../schema.js';
import { lineDiff, type DiffLine } from '../diff.js';
import { fmtTokens } from '../format.js';

const MAX_LINES = 2000;
/** Runs longer than this are folded to their first and last FOLD_KEEP lines until expanded. */
const FOLD_OVER = 14;
const FOLD_KEEP = 4;
type View = 'diff' | 'before' | 'after';
type Row = { op: DiffLine['op']; text: string } | { fold: number; op: DiffLine['op']; count: number };

/** Lines to draw, with long runs of one kind folded unless their run index is in `open`. */
function foldRuns(lines: DiffLine[], open: ReadonlySet<number>): Row[] {
  const out: Row[] = [];
  let i = 0;
  let run = 0;
  while (i < lines.length) {
    const op = lines[i]?.op ?? 'keep';
    let j = i;
    while (j < lines.length && lines[j]?.op === op) j++;
    const len = j - i;
    if (len > FOLD_OVER && !open.has(run)) {
      out.push(...lines.slice(i, i + FOLD_KEEP), { fold: run, op, count: len - 2 * FOLD_KEEP }, ...lines.slice(j - FOLD_KEEP, j));
    } else out.push(...lines.slice(i, j));
    run++;
    i = j;
  }
  return out;
}

export function Inspector({ id, onClose }: { id: string | null; onClose: () => void }) {
  const [rec, setRec] = useState<InspectRecord | null | 'missing'>(null);
  const [view, setView] = useState<View>('diff');
  const [all, setAll] = useState(false);
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    setRec(null);
    setAll(false);
    setOpen(new Set());
    if (id) void getJson(`/api/inspect/${encodeURIComponent(id)}`, inspectRecord).then((r) => setRec(r ?? 'missing'));
  }, [id]);
  useEffect(() => {
    if (id) heading.current?.focus();
  }, [id]);
  const diff = useMemo(() => (rec && rec !== 'missing' ? lineDiff(rec.before, rec.after) : []), [rec]);

  if (!id) {
    return html`<section class="card span-7" aria-labelledby="insp-h" data-testid="inspector">
      <div class="card-head"><h2 id="insp-h">Inspector</h2></div>
      <p class="empty">Choose a tool in the live events to see its output before and after compression.</p>
    </section>`;
  }
  const lines: Row[] = view === 'diff' ? foldRuns(diff, open)
    : (rec && rec !== 'missing' ? (view === 'before' ? rec.before : rec.after) : '').split('\n').map((text) => ({ op: 'keep' as const, text }));
  const shown = all ? lines : lines.slice(0, MAX_LINES);
  const word = { del: 'removed', add: 'added', keep: 'unchanged' } as const;
  const removed = diff.filter((l) => l.op === 'del').length;
  const added = diff.filter((l) => l.op === 'add').length;
  return html`<section class="card span-7" aria-labelledby="insp-h" data-testid="inspector">
    <div class="card-head">
      <h2 id="insp-h" tabindex="-1" ref=${heading}>Inspector${rec && rec !== 'missing' ? html`: <span class="id">${rec.tool_name}</span>` : null}</h2>
      <div class="toolbar">
        <div class="seg" role="group" aria-label="Show">
          ${(['diff', 'before', 'after'] as const).map((v) => html`<button type="button" aria-pressed=${view === v} onClick=${() => setView(v)}>${v === 'diff' ? 'Diff' : v === 'before' ? 'Before' : 'After'}</button>`)}
        </div>
        <button type="button" class="btn" onClick=${onClose}>Close</button>
      </div>
    </div>
    ${rec === null ? html`<p class="empty">Loading…</p>` : rec === 'missing' ? html`<p class="empty">This output is no longer kept (or the inspector is off).</p>` : html`
      <div class="meta">
        <span><b>${fmtTokens(rec.tokens_before)}</b> → <b>${fmtTokens(rec.tokens_after)}</b> tokens</span>
        <span>strategies <b>${rec.strategies.join(', ') || 'none'}</b></span>
        <span>${removed} lines removed, ${added} added</span>
        ${rec.before_truncated ? html`<span class="pill">before capped at 256 KiB</span>` : null}
      </div>
      ${view === 'diff' ? html`<div class="legend" aria-hidden="true"><span><span class="sw del"></span>removed</span><span><span class="sw add"></span>added by HMC (markers)</span><span><span class="sw keep"></span>kept</span></div>` : null}
      <pre class="diff" data-testid="diff" aria-label=${view === 'diff' ? 'Line diff; removed lines start with a minus, added lines with a plus' : `Output ${view} compression`}>${shown.map((l) => ('fold' in l
        ? html`<span class=${`ln fold ${l.op}`}><button type="button" class="link" onClick=${() => setOpen(new Set([...open, l.fold]))}>… ${l.count} more ${word[l.op]} lines (show)</button></span>`
        : html`<span class=${`ln ${l.op}`}><span class="sr-only">${l.op === 'del' ? 'removed: ' : l.op === 'add' ? 'added: ' : ''}</span>${l.text}</span>`))}</pre>
      ${shown.length < lines.length ? html`<button type="button" class="btn" onClick=${() => setAll(true)}>Show all ${lines.length} lines</button>` : null}`}
  </section>`;
}
