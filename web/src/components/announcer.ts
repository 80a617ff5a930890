/**
 * A polite live region for screen readers: the current session's savings, at most every 15 s
 * (the visible counters update many times a second; announcing each would drown the reader).
 *
 * Invariant: visually hidden; never steals focus.
 */
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';

const EVERY_MS = 15_000;

export function Announcer({ text }: { text: string }) {
  const [said, setSaid] = useState(text);
  const last = useRef(0);
  const pending = useRef<number | undefined>(undefined);
  useEffect(() => {
    const now = Date.now();
    window.clearTimeout(pending.current);
    const wait = Math.max(0, last.current + EVERY_MS - now);
    pending.current = window.setTimeout(() => {
      last.current = Date.now();
      setSaid(text);
    }, wait);
    return () => window.clearTimeout(pending.current);
  }, [text]);
  return html`<div class="sr-only" aria-live="polite" aria-atomic="true">${said}</div>`;
}
