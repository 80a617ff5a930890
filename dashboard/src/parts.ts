/**
 * The building blocks of HMC's tab, on the React of Hermes' plugin SDK: a card (Hermes' own Card
 * when the SDK has it), a stat, a table in a box that scrolls sideways and says so, and the
 * period's form (since/until and three quick ranges), like HMC's own page's Period card.
 *
 * Invariant: a table wider than its box shows a visible cue under it, measured on every resize
 * and change of content (issue 27, finding 4: at 390 px the tab cut columns without a word); a
 * period is applied only whole and valid (since not after until); every text is React text.
 */
import type { Component, Node, Sdk } from './sdk.js';
import { daysAgo, rangeProblem, rangeText, type Range } from './format.js';

/** A table's cell: text, or a name that may be cut with an ellipsis on a phone, whole in its title. */
export type Cell = string | { name: string };

export interface Parts {
  card(title: string, testid: string, ...body: unknown[]): Node;
  stat(value: string, label: string, testid: string): Node;
  table(caption: string, columns: string[], body: Cell[][], testid: string): Node;
  period(range: Range, onRange: (r: Range) => void): Node;
}

export function makeParts(sdk: Sdk): Parts {
  const { React, hooks } = sdk;
  const h = React.createElement.bind(React);
  const C = sdk.components ?? {};

  /** The table's box: scrolls sideways when the table is wider, and then says so under it. */
  const ScrollBox: Component = ({ label, children }) => {
    const box = hooks.useRef<HTMLDivElement | null>(null);
    const [wide, setWide] = hooks.useState(false);
    const [atEnd, setAtEnd] = hooks.useState(false);
    hooks.useEffect(() => {
      const el = box.current;
      if (!el) return;
      const measure = (): void => {
        // 1 px of slack: sub-pixel widths round differently in scrollWidth and clientWidth.
        setWide(el.scrollWidth > el.clientWidth + 1);
        setAtEnd(el.scrollLeft + el.clientWidth >= el.scrollWidth - 1);
      };
      measure();
      const ro = new ResizeObserver(measure);
      ro.observe(el);
      if (el.firstElementChild) ro.observe(el.firstElementChild);
      el.addEventListener('scroll', measure, { passive: true });
      return () => {
        ro.disconnect();
        el.removeEventListener('scroll', measure);
      };
    }, []);
    const name = typeof label === 'string' ? label : 'Table';
    return h(
      'div',
      { className: `hmc-wrap${wide ? ' hmc-wide' : ''}` },
      h(
        'div',
        {
          className: 'hmc-scroll',
          ref: box,
          tabIndex: wide ? 0 : undefined,
          role: wide ? 'region' : undefined,
          'aria-label': wide ? `${name} (scrolls sideways)` : undefined,
        },
        children,
      ),
      wide
        ? h(
            'p',
            { className: 'hmc-cue', 'data-testid': 'hmc-cue' },
            atEnd ? '← Scroll back for the first columns' : 'Scroll sideways for more columns →',
          )
        : null,
    );
  };

  const cell = (c: Cell): Node =>
    typeof c === 'string' ? c : h('span', { className: 'hmc-name', title: c.name }, c.name);

  /** The period's form: its own draft of since/until, applied whole. */
  const PeriodForm: Component = ({ range, onRange }) => {
    const r = (range ?? {}) as Range;
    const apply = onRange as (next: Range) => void;
    const [since, setSince] = hooks.useState(r.since ?? '');
    const [until, setUntil] = hooks.useState(r.until ?? '');
    hooks.useEffect(() => {
      setSince(r.since ?? '');
      setUntil(r.until ?? '');
    }, [r.since, r.until]);
    const problem = rangeProblem(since, until);
    const value = (e: unknown): string => {
      const t = (e as { currentTarget?: unknown }).currentTarget;
      return t instanceof HTMLInputElement ? t.value : '';
    };
    const quick = (label: string, next: Range, pressed: boolean): Node =>
      h('button', { key: label, type: 'button', 'aria-pressed': pressed, onClick: () => apply(next) }, label);
    const all = !r.since && !r.until;
    return h(
      'form',
      {
        className: 'hmc-period',
        'data-testid': 'hmc-period',
        'aria-label': 'Period',
        onSubmit: (e: Event) => {
          e.preventDefault();
          if (!problem) apply({ ...(since ? { since } : {}), ...(until ? { until } : {}) });
        },
      },
      h(
        'label',
        null,
        'From ',
        h('input', { type: 'date', name: 'since', value: since, onChange: (e: unknown) => setSince(value(e)) }),
      ),
      h(
        'label',
        null,
        'to ',
        h('input', { type: 'date', name: 'until', value: until, onChange: (e: unknown) => setUntil(value(e)) }),
      ),
      h('button', { type: 'submit', className: 'hmc-btn', disabled: Boolean(problem) }, 'Apply'),
      h(
        'span',
        { className: 'hmc-seg', role: 'group', 'aria-label': 'Quick ranges' },
        quick('7 days', { since: daysAgo(6) }, r.since === daysAgo(6) && !r.until),
        quick('30 days', { since: daysAgo(29) }, r.since === daysAgo(29) && !r.until),
        quick('All time', {}, all),
      ),
      h('span', { className: 'hmc-pill', 'data-testid': 'hmc-range-text' }, `Showing ${rangeText(r)}`),
      problem ? h('span', { className: 'hmc-muted', role: 'status' }, problem) : null,
    );
  };

  return {
    card: (title, testid, ...body) =>
      C.Card && C.CardHeader && C.CardTitle && C.CardContent
        ? h(
            C.Card,
            { className: 'hmc-card', 'data-testid': testid },
            h(C.CardHeader, null, h(C.CardTitle, null, title)),
            h(C.CardContent, null, ...body),
          )
        : h('section', { className: 'hmc-card', 'data-testid': testid }, h('h2', null, title), ...body),
    stat: (value, label, testid) =>
      h(
        'div',
        { className: 'hmc-stat' },
        h('div', { className: 'hmc-v', 'data-testid': testid }, value),
        h('div', { className: 'hmc-k' }, label),
      ),
    table: (caption, columns, body, testid) =>
      h(
        ScrollBox,
        { label: caption },
        h(
          'table',
          { className: 'hmc-table', 'data-testid': testid },
          h('caption', { className: 'hmc-sr' }, caption),
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              ...columns.map((c, i) => h('th', { key: c, scope: 'col', className: i > 0 ? 'hmc-num' : '' }, c)),
            ),
          ),
          h(
            'tbody',
            null,
            ...body.map((r, j) =>
              h(
                'tr',
                { key: String(j) },
                ...r.map((c, i) =>
                  h(
                    i === 0 ? 'th' : 'td',
                    { key: String(i), scope: i === 0 ? 'row' : undefined, className: i > 0 ? 'hmc-num' : '' },
                    cell(c),
                  ),
                ),
              ),
            ),
          ),
        ),
      ),
    period: (range, onRange) => h(PeriodForm, { range, onRange }),
  };
}
