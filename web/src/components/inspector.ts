/**
 * The inspector: one compressed tool output before and after, as a line diff (removed lines
 * struck through in red, markers the compressor added in blue), or either side on its own.
 * Hermes' tools answer one-line JSON envelopes (`{"output": "…", "exit_code": 0}`); the diff is
 * of the text inside (the server's `before_view` / `after_view`), line by line, and the envelope's
 * other fields are listed apart. Anything else is diffed whole.
 *
 * Invariant: the outputs are shown as text only; at most MAX_LINES lines are drawn at first.
 */
import { html } from 'htm/preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { getJson } from '../api.js';
import { inspectRecord, type InspectRecord, type OutputView } from '../schema.js';
import { lineDiff, type DiffLine } from '../diff.js';
import { count, fmtTokens } from '../format.js';
import { CardTitle } from './card-title.js';

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
      out.push(
        ...lines.slice(i, i + FOLD_KEEP),
        { fold: run, op, count: len - 2 * FOLD_KEEP },
        ...lines.slice(j - FOLD_KEEP, j),
      );
    } else out.push(...lines.slice(i, j));
    run++;
    i = j;
  }
  return out;
}

/** The text each side shows: inside the envelope when the server found one, else the whole output. */
function sideText(view: OutputView | undefined, whole: string): string {
  return view ? view.text : whole;
}

/** The envelope's fields other than its text, both sides merged: `exit_code 0`, or `truncated false → true`. */
function EnvelopeFields({ before, after }: { before: OutputView | undefined; after: OutputView | undefined }) {
  const field = before?.field ?? after?.field ?? null;
  if (!field) return null;
  const names = [...new Set([...(before?.fields ?? []), ...(after?.fields ?? [])].map((f) => f.name))];
  const value = (v: OutputView | undefined, name: string) => v?.fields.find((f) => f.name === name)?.value;
  const where =
    after && after.field !== field
      ? html`the <code>${field}</code> field of the JSON result (after: the whole result)`
      : html`the <code>${field}</code> field of the JSON result`;
  return html`<div class="envelope" data-testid="envelope">
    <span>Showing ${where}${before?.cut ? ' (before: read up to the 256 KiB cap)' : ''}.</span>
    ${
      names.length
        ? html`<dl>${names.map((name) => {
            const b = value(before, name);
            const a = value(after, name);
            const shown = b === a || a === undefined ? (b ?? '') : b === undefined ? a : `${b} → ${a}`;
            return html`<div><dt>${name}</dt><dd>${shown}</dd></div>`;
          })}</dl>`
        : null
    }
  </div>`;
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
  const sides = useMemo(
    () =>
      rec && rec !== 'missing'
        ? { before: sideText(rec.before_view, rec.before), after: sideText(rec.after_view, rec.after) }
        : null,
    [rec],
  );
  const diff = useMemo(() => (sides ? lineDiff(sides.before, sides.after) : []), [sides]);

  if (!id) {
    return html`<section class="card span-7" aria-labelledby="insp-h" data-testid="inspector">
      <div class="card-head"><${CardTitle} view="inspector" title="Inspector" /></div>
      <p class="empty">Choose a tool in the live events to see its output before and after compression.</p>
    </section>`;
  }
  const lines: Row[] =
    view === 'diff'
      ? foldRuns(diff, open)
      : (sides ? (view === 'before' ? sides.before : sides.after) : '')
          .split('\n')
          .map((text) => ({ op: 'keep' as const, text }));
  const shown = all ? lines : lines.slice(0, MAX_LINES);
  const word = { del: 'removed', add: 'added', keep: 'unchanged' } as const;
  const removed = diff.filter((l) => l.op === 'del').length;
  const added = diff.filter((l) => l.op === 'add').length;
  return html`<section class="card span-7" aria-labelledby="insp-h" data-testid="inspector">
    <div class="card-head">
      <${CardTitle} view="inspector" title="Inspector" target=${{ kind: 'inspect', id }} headingRef=${heading}>Inspector${rec && rec !== 'missing' ? html`: <span class="id">${rec.tool_name}</span>` : null}<//>
      <div class="toolbar">
        <div class="seg" role="group" aria-label="Show">
          ${(['diff', 'before', 'after'] as const).map((v) => html`<button type="button" aria-pressed=${view === v} onClick=${() => setView(v)}>${v === 'diff' ? 'Diff' : v === 'before' ? 'Before' : 'After'}</button>`)}
        </div>
        <button type="button" class="btn" onClick=${onClose}>Close</button>
      </div>
    </div>
    ${
      rec === null
        ? html`<p class="empty">Loading…</p>`
        : rec === 'missing'
          ? html`<p class="empty" data-testid="no-output">No such output: <code>${id}</code> is no longer kept, or the inspector is off.</p>`
          : html`
      <div class="meta">
        <span><b>${fmtTokens(rec.tokens_before)}</b> → <b>${fmtTokens(rec.tokens_after)}</b> tokens</span>
        <span>strategies <b>${rec.strategies.join(', ') || 'none'}</b></span>
        <span>${count(removed, 'line')} removed, ${added} added</span>
        ${rec.before_truncated ? html`<span class="pill">before capped at 256 KiB</span>` : null}
      </div>
      <${EnvelopeFields} before=${rec.before_view} after=${rec.after_view} />
      ${view === 'diff' ? html`<div class="legend" aria-hidden="true"><span><span class="sw del"></span>removed</span><span><span class="sw add"></span>added by HMC (markers)</span><span><span class="sw keep"></span>kept</span></div>` : null}
      <pre class="diff" data-testid="diff" aria-label=${view === 'diff' ? 'Line diff; removed lines start with a minus, added lines with a plus' : `Output ${view} compression`}>${shown.map(
        (l) =>
          'fold' in l
            ? html`<span class=${`ln fold ${l.op}`}><button type="button" class="link" onClick=${() => setOpen(new Set([...open, l.fold]))}>… ${l.count} more ${word[l.op]} ${l.count === 1 ? 'line' : 'lines'} (show)</button></span>`
            : html`<span class=${`ln ${l.op}`}><span class="sr-only">${l.op === 'del' ? 'removed: ' : l.op === 'add' ? 'added: ' : ''}</span>${l.text}</span>`,
      )}</pre>
      ${shown.length < lines.length ? html`<button type="button" class="btn" onClick=${() => setAll(true)}>Show all ${count(lines.length, 'line')}</button>` : null}`
    }
  </section>`;
}
