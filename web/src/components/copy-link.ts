/**
 * "Copy link": puts the absolute URL of a deep link on the clipboard. Where the clipboard is not
 * allowed, the URL is shown selected in a read-only field to copy by hand.
 *
 * Invariant: the outcome is said in text (a polite status), never only by a colour or an icon.
 */
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Route } from '../route.js';
import { routeUrl } from '../use-route.js';

export function CopyLink({ route, what }: { route: Route; what: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'manual'>('idle');
  const field = useRef<HTMLInputElement>(null);
  const url = routeUrl(route);
  useEffect(() => setState('idle'), [url]);
  useEffect(() => {
    if (state === 'manual') field.current?.select();
  }, [state]);
  const copy = async (): Promise<void> => {
    try {
      await navigator.clipboard.writeText(url);
      setState('copied');
    } catch {
      setState('manual');
    }
  };
  return html`<span class="copy-link">
    <button type="button" class="btn" onClick=${() => void copy()} aria-label=${`Copy the link to ${what}`}>Copy link</button>
    <span role="status" class="hint">${state === 'copied' ? 'Link copied.' : ''}</span>
    ${
      state === 'manual'
        ? html`<label class="manual-link"><span class="hint">Copy this link:</span>
      <input ref=${field} type="text" readonly value=${url} data-testid="manual-link" /></label>`
        : null
    }
  </span>`;
}
