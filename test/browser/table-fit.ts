/**
 * The Chromium layout check of every table on a page (issue 17, finding 6; issue 27, finding 4):
 * each table's box, its widths, its right edge, and whether the scroll cue beside it is shown.
 * Used for HMC's page (layout.test.ts, cue `.scroll-cue`) and HMC's tab in Hermes' dashboard
 * (hermes-tab.test.ts, cue `.hmc-cue`).
 *
 * Invariant: measures only; a table fits when its box's scrollWidth is within its clientWidth.
 */
import type { Page } from 'playwright-core';

/** Every table on the page: its box's widths and whether its scroll cue is shown. */
export interface TableFit {
  caption: string;
  scrollWidth: number;
  clientWidth: number;
  right: number;
  cue: boolean;
}

/** The box is the table's parent; the cue is a `cueClass` element beside that box. */
export async function tableFits(page: Page, cueClass = 'scroll-cue'): Promise<TableFit[]> {
  return page.evaluate(
    (cls) =>
      Array.from(document.querySelectorAll('table')).map((t) => {
        const box = t.parentElement instanceof HTMLElement ? t.parentElement : t;
        const cue = box.parentElement?.querySelector(`:scope > .${cls}`);
        return {
          caption: t.querySelector('caption')?.textContent ?? '?',
          scrollWidth: box.scrollWidth,
          clientWidth: box.clientWidth,
          right: Math.round(Math.min(t.getBoundingClientRect().right, box.getBoundingClientRect().right)),
          cue: cue instanceof HTMLElement && cue.offsetParent !== null && cue.getBoundingClientRect().height > 0,
        };
      }),
    cueClass,
  );
}
