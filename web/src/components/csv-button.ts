/**
 * "CSV": downloads a table the page shows as a CSV file built right here (csv.ts); `build` may
 * fetch (the sessions export pages through every matching session).
 *
 * Invariant: a real button named for what it downloads; a failed build says so in text, next to
 * the button, and downloads nothing.
 */
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { csvBlob, csvFileName, type CsvTable } from '../csv.js';

function download(table: CsvTable, name: string): void {
  const url = URL.createObjectURL(csvBlob(table));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  // The download has its own copy once it started; free the blob a moment later.
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function CsvButton({
  what,
  name,
  build,
  disabled = false,
}: {
  /** What the file holds, for the button's accessible name: "Sessions", "Saved by tool, lifetime". */
  what: string;
  /** The file name's parts, after `hmc-` (csvFileName). */
  name: string[];
  build: () => CsvTable | null | Promise<CsvTable | null>;
  disabled?: boolean;
}) {
  const [state, setState] = useState<'idle' | 'busy' | 'failed'>('idle');
  const run = async (): Promise<void> => {
    setState('busy');
    try {
      const table = await build();
      if (!table) throw new Error('no data');
      download(table, csvFileName(name));
      setState('idle');
    } catch {
      setState('failed');
    }
  };
  return html`<span class="csv">
    <button type="button" class="btn" disabled=${disabled || state === 'busy'} aria-label=${`Download ${what} as CSV`}
      title=${`Download ${what} as CSV`} onClick=${() => void run()}>${state === 'busy' ? 'CSV…' : 'CSV'}</button>
    ${state === 'failed' ? html`<span class="hint" role="status">Could not build the file.</span>` : null}
  </span>`;
}
