/**
 * A table's box that scrolls sideways when the table is wider than the screen, and says so:
 * a visible cue ("Scroll sideways for more →") and shaded edges while there is more to see, and
 * the box becomes a focusable, named region so keyboard users can scroll it too.
 *
 * Invariant: the cue shows exactly when the content is wider than the box (measured, on resize
 * and on content change), so no column is ever cut without a word.
 */
import { html } from 'htm/preact';
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

interface Overflow {
  wide: boolean;
  atStart: boolean;
  atEnd: boolean;
}

export function ScrollWrap({ label, children }: { label: string; children: ComponentChildren }) {
  const box = useRef<HTMLDivElement>(null);
  const [o, setO] = useState<Overflow>({ wide: false, atStart: true, atEnd: true });
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = (): void => {
      // 1 px of slack: sub-pixel widths round differently in scrollWidth and clientWidth.
      const wide = el.scrollWidth > el.clientWidth + 1;
      const next = { wide, atStart: el.scrollLeft <= 1, atEnd: el.scrollLeft + el.clientWidth >= el.scrollWidth - 1 };
      setO((prev) =>
        prev.wide === next.wide && prev.atStart === next.atStart && prev.atEnd === next.atEnd ? prev : next,
      );
    };
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    const table = el.firstElementChild;
    if (table) ro.observe(table);
    const mo = new MutationObserver(measure);
    mo.observe(el, { childList: true, subtree: true, characterData: true });
    el.addEventListener('scroll', measure, { passive: true });
    return () => {
      ro.disconnect();
      mo.disconnect();
      el.removeEventListener('scroll', measure);
    };
  }, []);
  const cls = `scroll-wrap${o.wide ? ' wide' : ''}${o.wide && !o.atStart ? ' more-left' : ''}${o.wide && !o.atEnd ? ' more-right' : ''}`;
  return html`<div class=${cls}>
    <div class="table-wrap" ref=${box} tabindex=${o.wide ? 0 : undefined} role=${o.wide ? 'region' : undefined}
      aria-label=${o.wide ? `${label} (scrolls sideways)` : undefined}>${children}</div>
    ${o.wide ? html`<p class="scroll-cue" data-testid="scroll-cue">${o.atEnd ? '← Scroll back for the first columns' : 'Scroll sideways for more columns →'}</p>` : null}
  </div>`;
}
