/**
 * Savings by strategy or by tool, for the current session or lifetime (a two-way switch), and
 * the list shown as CSV.
 *
 * Invariant: the switch is a pair of toggle buttons (aria-pressed), not a styled div.
 */
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { sortedEntries } from '../format.js';
import type { View } from '../route.js';
import { CardTitle, VIEW_HEADING } from './card-title.js';
import { CsvButton } from './csv-button.js';
import { BarList } from './bar-list.js';

export function BreakdownCard({
  title,
  view,
  noun,
  session,
  sessionId,
  lifetime,
  alt = false,
  testid,
}: {
  title: string;
  view: View;
  /** The CSV's first column: `strategy`, `tool`. */
  noun: string;
  session: Record<string, number> | null;
  sessionId: string | null;
  lifetime: [string, number][];
  alt?: boolean;
  testid: string;
}) {
  // Until the user picks, follow the data: this session when there is one, else lifetime.
  const [scope, setScope] = useState<'auto' | 'session' | 'lifetime'>('auto');
  const useSession = scope !== 'lifetime' && session !== null;
  const items = useSession ? sortedEntries(session ?? {}) : lifetime.filter(([, v]) => v > 0);
  const scopeWords = useSession ? 'this session' : 'lifetime';
  return html`<section class="card span-6" aria-labelledby=${VIEW_HEADING[view]} data-testid=${testid}>
    <div class="card-head">
      <${CardTitle} view=${view} title=${title} />
      <div class="toolbar">
        <div class="seg" role="group" aria-label=${`${title}: scope`}>
          <button type="button" aria-pressed=${useSession} disabled=${session === null} onClick=${() => setScope('session')}>This session</button>
          <button type="button" aria-pressed=${!useSession} onClick=${() => setScope('lifetime')}>Lifetime</button>
        </div>
        <${CsvButton} what=${`${title}, ${scopeWords}`} disabled=${items.length === 0}
          name=${[testid, useSession && sessionId ? `session-${sessionId}` : 'lifetime']}
          build=${() => ({ header: [noun, 'saved_tokens'], rows: items.map(([k, v]) => [k, v]) })} />
      </div>
    </div>
    <${BarList} items=${items} label=${`${title}, ${scopeWords}`} alt=${alt}
      empty=${useSession ? 'Nothing saved yet in this session.' : 'No savings recorded yet.'} />
  </section>`;
}
