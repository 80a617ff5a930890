/**
 * A card's heading with its deep link beside it (`#/view/<name>`, with the project filter): the
 * link is what a user copies to come back to this card; following it scrolls here and moves focus
 * to the heading.
 *
 * Invariant: the link sits outside the heading, so the heading's accessible name stays the
 * card's title; the heading takes focus programmatically only (tabindex -1).
 */
import { html } from 'htm/preact';
import type { ComponentChildren, Ref } from 'preact';
import { formatHash, type Target, type View } from '../route.js';
import { useRouteApi } from '../route-context.js';

/** The heading id of each view's card: where a followed view link moves focus. */
export const VIEW_HEADING: Record<View, string> = {
  current: 'cur-h',
  lifetime: 'life-h',
  strategies: 'strat-h',
  tools: 'tool-h',
  turns: 'turns-h',
  phases: 'phases-h',
  events: 'log-h',
  inspector: 'insp-h',
  range: 'range-h',
  history: 'hist-h',
  models: 'models-h',
  outputs: 'outputs-h',
  work: 'work-h',
  sessions: 'sess-h',
  projects: 'proj-h',
};

export function CardTitle({
  view,
  title,
  children,
  headingRef,
  target,
  id,
}: {
  view: View;
  /** What the link opens when it is more than the card: a session, an inspected output. */
  target?: Target;
  /** The heading's id, when it is not the view's (VIEW_HEADING). */
  id?: string;
  /** The card's name, for the link's accessible name ("Link to the Sessions card"). */
  title: string;
  /** The heading's content; `title` when absent. */
  children?: ComponentChildren;
  headingRef?: Ref<HTMLHeadingElement>;
}) {
  const { route } = useRouteApi();
  const href = formatHash({ ...route, target: target ?? { kind: 'view', view } });
  const what =
    target?.kind === 'session'
      ? `session ${target.id}`
      : target?.kind === 'inspect'
        ? 'this output'
        : `the ${title} card`;
  return html`<div class="card-title">
    <h2 id=${id ?? VIEW_HEADING[view]} tabindex="-1" ref=${headingRef}>${children ?? title}</h2>
    <a class="view-link" href=${href} aria-label=${`Link to ${what}`} title=${`Link to ${what}`}><span aria-hidden="true">#</span></a>
  </div>`;
}
