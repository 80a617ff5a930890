/**
 * True on phone-width screens, following resizes: charts draw on a narrower canvas there so
 * their labels keep a readable size.
 *
 * Invariant: one media query, shared breakpoint with styles.css (520 px).
 */
import { useEffect, useState } from 'preact/hooks';

const QUERY = '(max-width: 520px)';

export function useNarrow(): boolean {
  const [narrow, setNarrow] = useState(() => window.matchMedia(QUERY).matches);
  useEffect(() => {
    const mq = window.matchMedia(QUERY);
    const on = (): void => setNarrow(mq.matches);
    mq.addEventListener('change', on);
    return () => mq.removeEventListener('change', on);
  }, []);
  return narrow;
}
