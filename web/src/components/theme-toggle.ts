/**
 * Light / dark / system theme switch; the choice is kept in localStorage and applied as
 * `data-theme` on <html> (the stylesheet follows prefers-color-scheme when it is absent).
 *
 * Invariant: a real <button> that says what it will do next.
 */
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';

type Theme = 'system' | 'light' | 'dark';
const KEY = 'hmc-theme';
const NEXT: Record<Theme, Theme> = { system: 'light', light: 'dark', dark: 'system' };
const ICON: Record<Theme, string> = { system: '◐', light: '☀', dark: '☾' };

function stored(): Theme {
  try {
    const v = localStorage.getItem(KEY);
    return v === 'light' || v === 'dark' ? v : 'system';
  } catch {
    return 'system';
  }
}

export function ThemeToggle() {
  const [theme, setTheme] = useState<Theme>(stored);
  useEffect(() => {
    if (theme === 'system') document.documentElement.removeAttribute('data-theme');
    else document.documentElement.setAttribute('data-theme', theme);
    try {
      localStorage.setItem(KEY, theme);
    } catch {
      // Private mode: the choice lasts for this page only.
    }
  }, [theme]);
  return html`<button type="button" class="btn icon" onClick=${() => setTheme(NEXT[theme])}
    aria-label=${`Theme: ${theme}. Switch to ${NEXT[theme]}`} title=${`Theme: ${theme}`}>
    <span aria-hidden="true">${ICON[theme]}</span></button>`;
}
