/**
 * Brings what a deep link names into view: the card of a view, the session's drill-down, the
 * inspector. When the link was opened with the page (a pasted URL, a reload), the cards above
 * fill in over the next second and push the target down, so it is brought into view again then,
 * unless the user has scrolled, tapped or typed meanwhile.
 *
 * Invariant: moves focus (to the target's heading, which has tabindex -1) once per new target,
 * never when only the project filter changed, and never after the user took over.
 */
import { useEffect, useRef } from 'preact/hooks';
import { sameTarget, type Target } from './route.js';
import { VIEW_HEADING } from './components/card-title.js';

const SETTLE_MS = [350, 1000];

function headingOf(t: Target): string | null {
  if (t.kind === 'view') return VIEW_HEADING[t.view];
  if (t.kind === 'session') return 'detail-h';
  if (t.kind === 'inspect') return VIEW_HEADING.inspector;
  return null;
}

export function useFollowRoute(target: Target, seq: number): void {
  const shown = useRef<Target | null>(null);
  useEffect(() => {
    const first = shown.current === null;
    const changed = first || !sameTarget(shown.current ?? target, target);
    shown.current = target;
    const id = headingOf(target);
    if (!changed || !id) return;
    let userMoved = false;
    const stop = (): void => void (userMoved = true);
    const bring = (focus: boolean): void => {
      const el = document.getElementById(id);
      if (userMoved || !el) return;
      el.scrollIntoView({ block: 'start' });
      if (focus) el.focus({ preventScroll: true });
    };
    const frame = window.requestAnimationFrame(() => bring(true));
    const timers = first ? SETTLE_MS.map((ms) => window.setTimeout(() => bring(false), ms)) : [];
    const events = ['wheel', 'touchstart', 'keydown', 'mousedown'] as const;
    for (const e of events) window.addEventListener(e, stop, { passive: true });
    return () => {
      window.cancelAnimationFrame(frame);
      for (const t of timers) window.clearTimeout(t);
      for (const e of events) window.removeEventListener(e, stop);
    };
  }, [seq]);
}
