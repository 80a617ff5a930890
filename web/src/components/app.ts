/**
 * The dashboard page: header, current session, lifetime totals, savings by strategy and tool,
 * per-turn charts, the session's summarised phases, the live log and the inspector; then, over a
 * period (since / until) and project: history per day, week and month, cost per model, saved per
 * tool output, the agent's recalls and re-reads, sessions and projects.
 *
 * The address bar is the page's state for what is open (route.ts): the session drill-down, the
 * inspector, the card a link points at, the project filter, the period. Opening one pushes a history entry.
 *
 * Invariant: one live feed for the page; lifetime data is refetched when a session ends or the
 * connection comes back (`epoch`) and every 30 s, never per event.
 */
import { html } from 'htm/preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { getJson } from '../api.js';
import { type LiveFeed, useFeed } from '../live.js';
import {
  analyticsResponse,
  projectsResponse,
  strategiesResponse,
  toolsResponse,
  type AnalyticsResponse,
  type ProjectRow,
} from '../schema.js';
import { fmtPct, fmtTokens, shortId } from '../format.js';
import { formatHash, OVERVIEW, type Target } from '../route.js';
import { RouteContext } from '../route-context.js';
import { useRoute } from '../use-route.js';
import { useFollowRoute } from '../use-follow-route.js';
import { CardTitle } from './card-title.js';
import { Header } from './header.js';
import { CurrentSession } from './current-session.js';
import { Lifetime } from './lifetime.js';
import { BreakdownCard } from './breakdown-card.js';
import { TurnCharts } from './turn-charts.js';
import { HistoryCharts } from './history-charts.js';
import { RangeCard, type Range } from './range-card.js';
import { ModelsCard } from './models-card.js';
import { OutputsCard } from './outputs-card.js';
import { WorkCard } from './work-card.js';
import { SessionsTable } from './sessions-table.js';
import { Projects } from './projects.js';
import { SessionDetail } from './session-detail.js';
import { EventLog } from './event-log.js';
import { PhasesPanel } from './phases-panel.js';
import { Inspector } from './inspector.js';
import { Announcer } from './announcer.js';

const REFRESH_MS = 30_000;

export function App({ feed }: { feed: LiveFeed }) {
  const live = useFeed(feed);
  const [tick, setTick] = useState(0);
  const [analytics, setAnalytics] = useState<AnalyticsResponse | null>(null);
  const [strategies, setStrategies] = useState<[string, number][]>([]);
  const [tools, setTools] = useState<[string, number][]>([]);
  const [projects, setProjects] = useState<ProjectRow[]>([]);
  const [routeState, navigate] = useRoute();
  const { route } = routeState;
  const { project, target } = route;
  const range: Range = useMemo(() => ({ since: route.since, until: route.until }), [route.since, route.until]);
  const selected = target.kind === 'session' ? target.id : null;
  const inspect = target.kind === 'inspect' ? target.id : null;
  const go = (t: Target, p = project): void => navigate({ ...route, target: t, project: p });
  const setRange = (r: Range): void =>
    navigate({ target, project, ...(r.since ? { since: r.since } : {}), ...(r.until ? { until: r.until } : {}) });
  const setProject = (p: string): void => go(target, p);
  const routeApi = useMemo(() => ({ route, navigate }), [route, navigate]);
  useFollowRoute(target, routeState.seq);
  const epoch = live.epoch + tick;

  useEffect(() => {
    feed.start();
    const t = window.setInterval(() => setTick((n) => n + 1), REFRESH_MS);
    return () => {
      window.clearInterval(t);
      feed.stop();
    };
  }, [feed]);
  useEffect(() => {
    void getJson('/api/analytics', analyticsResponse).then((r) => r && setAnalytics(r));
    void getJson('/api/strategies', strategiesResponse).then(
      (r) => r && setStrategies(r.strategies.map((s) => [s.strategy, s.saved])),
    );
    void getJson('/api/tools', toolsResponse).then((r) => r && setTools(r.tools.map((s) => [s.tool, s.saved])));
    void getJson('/api/projects', projectsResponse).then((r) => r && setProjects(r.projects));
  }, [epoch]);

  const cur = live.current;
  const series = useMemo(
    () =>
      (cur?.points ?? []).map((p) => ({
        turn: p.turn,
        context_percent: p.context_percent,
        saved: p.delta_saved,
        calls: p.model_calls,
        context_saved: p.context_saved,
      })),
    [cur?.points],
  );
  const announce = cur
    ? `Current session: ${fmtTokens(cur.saved)} tokens saved, context ${fmtPct(cur.context_percent)}.`
    : '';

  const closeSession = (id: string): void => {
    go(OVERVIEW.target);
    // Back to where it was opened from: its row's button, else the Sessions heading.
    const row = [...document.querySelectorAll<HTMLElement>('tr[data-session-id]')].find(
      (tr) => tr.dataset.sessionId === id,
    );
    (row?.querySelector('button') ?? document.getElementById('sess-h'))?.focus();
  };

  return html`<${RouteContext.Provider} value=${routeApi}>
    <a class="skip" href="#main">Skip to the figures</a>
    <${Header} conn=${live.conn} current=${cur} />
    <main id="main">
      <h2 class="sr-only">Overview</h2>
      ${
        routeState.invalid
          ? html`<p class="notice span-12" role="alert" data-testid="bad-link">This link cannot be opened: ${routeState.invalid}.${' '}
        <a href=${formatHash({ ...OVERVIEW, project })}>Show the overview</a></p>`
          : null
      }
      <${CurrentSession} current=${cur} />
      <${Lifetime} data=${analytics} />
      <${BreakdownCard} title="Saved by strategy" view="strategies" noun="strategy" testid="by-strategy" session=${cur ? cur.by_strategy : null}
        sessionId=${cur ? cur.session_id : null} lifetime=${strategies} />
      <${BreakdownCard} title="Saved by tool" view="tools" noun="tool" testid="by-tool" session=${cur ? cur.by_tool : null}
        sessionId=${cur ? cur.session_id : null} lifetime=${tools} alt=${true} />
      <section class="card span-12" aria-labelledby="turns-h" data-testid="turns">
        <div class="card-head"><${CardTitle} view="turns" title="This session, turn by turn" />${cur ? html`<span class="hint">session ${shortId(cur.session_id)}</span>` : null}</div>
        ${cur ? html`<${TurnCharts} series=${series} label=${`session ${shortId(cur.session_id)}`} sessionId=${cur.session_id} thresholds=${cur} />` : html`<p class="empty">Charts appear with the first turn.</p>`}
      </section>
      <${PhasesPanel} sessionId=${cur ? cur.session_id : null} events=${live.events} epoch=${epoch} />
      <${EventLog} events=${live.events} onInspect=${(id: string) => go({ kind: 'inspect', id })} />
      <${Inspector} id=${inspect} onClose=${() => go(OVERVIEW.target)} />
      <${RangeCard} range=${range} project=${project} epoch=${epoch} onRange=${setRange} />
      <${HistoryCharts} epoch=${epoch} project=${project} range=${range} />
      <${ModelsCard} project=${project} range=${range} epoch=${epoch} />
      <${OutputsCard} project=${project} range=${range} epoch=${epoch} />
      <${WorkCard} project=${project} range=${range} epoch=${epoch} onSession=${(id: string) => go({ kind: 'session', id })} />
      <${SessionsTable} epoch=${epoch} project=${project} since=${route.since} until=${route.until} projects=${projects.map((p) => p.project_path)} onProject=${setProject}
        selected=${selected} onSelect=${(id: string) => go({ kind: 'session', id })} />
      ${selected ? html`<${SessionDetail} id=${selected} epoch=${epoch} onClose=${() => closeSession(selected)} />` : null}
      <${Projects} rows=${projects} project=${project} onProject=${setProject} />
    </main>
    <footer>HMC dashboard · live over Server-Sent Events (/events) · JSON at /api · Prometheus at /metrics · bound to 127.0.0.1</footer>
    <${Announcer} text=${announce} />
  <//>`;
}
