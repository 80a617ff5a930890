/**
 * Savings by strategy or by tool, for the current session or lifetime (a two-way switch).
 *
 * Invariant: the switch is a pair of toggle buttons (aria-pressed), not a styled div.
 */
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { sortedEntries } from '../format.js';
import { BarList } from './bar-list.js';

export function BreakdownCard({ title, id, session, lifetime, alt = false, testid }: {
  title: string; id: string; session: Record<string, number> | null; lifetime: [string, number][]; alt?: boolean; testid: string;
}) {
  // Until the user picks, follow the data: this session when there is one, else lifetime.
  const [scope, setScope] = useState<'auto' | 'session' | 'lifetime'>('auto');
  const useSession = scope !== 'lifetime' && session !== null;
  const items = useSession ? sortedEntries(session ?? {}) : lifetime.filter(([, v]) => v > 0);
  return html`<section class="card span-6" aria-labelledby=${id} data-testid=${testid}>
    <div class="card-head">
      <h2 id=${id}>${title}</h2>
      <div class="seg" role="group" aria-label=${`${title}: scope`}>
        <button type="button" aria-pressed=${useSession} disabled=${session === null} onClick=${() => setScope('session')}>This session</button>
        <button type="button" aria-pressed=${!useSession} onClick=${() => setScope('lifetime')}>Lifetime</button>
      </div>
    </div>
    <${BarList} items=${items} label=${`${title}, ${useSession ? 'this session' : 'lifetime'}`} alt=${alt}
      empty=${useSession ? 'Nothing saved yet in this session.' : 'No savings recorded yet.'} />
  </section>`;
}
