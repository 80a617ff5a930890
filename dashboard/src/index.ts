/**
 * HMC's tab in Hermes' own web dashboard (issue 17, finding 7; Hermes' dashboard plugin contract:
 * dashboard/manifest.json, this script built as one IIFE into dashboard/dist/index.js). It shows,
 * for a period, the glossary's figures from HMC's dashboard through plugin_api.py: input saved
 * over N model calls and its share, cost saved (an estimate), cost per model with the prompt
 * cache, average saved per tool, and recalls and re-reads; and links to the full HMC page.
 *
 * Invariant: runs only inside Hermes' dashboard (no SDK: does nothing); every figure is HMC's,
 * shown as text through React (escaped); a failed fetch shows its reason, never a blank tab.
 */
import './style.css';
import type { Component, Node, Sdk } from './sdk.js';
import { fmtMoney, fmtTokens, sinceQuery } from './format.js';

const NAME = 'hmc';
const API = `/api/plugins/${NAME}`;

type Json = Record<string, unknown>;
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const rows = (v: unknown): Json[] => (Array.isArray(v) ? v.filter((x): x is Json => typeof x === 'object' && x !== null) : []);

const PERIODS = [['all', 'All time', 0], ['30', '30 days', 30], ['7', '7 days', 7]] as const;
type Period = (typeof PERIODS)[number][0];

interface Data {
  status: Json;
  analytics: Json;
  models: Json;
  outputs: Json;
  work: Json;
}

function mount(sdk: Sdk): Component {
  const { React, hooks } = sdk;
  const h = React.createElement.bind(React);
  const C = sdk.components ?? {};
  const card = (title: string, testid: string, ...body: unknown[]): Node => (C.Card && C.CardHeader && C.CardTitle && C.CardContent
    ? h(C.Card, { className: 'hmc-card', 'data-testid': testid }, h(C.CardHeader, null, h(C.CardTitle, null, title)), h(C.CardContent, null, ...body))
    : h('section', { className: 'hmc-card', 'data-testid': testid }, h('h2', null, title), ...body));
  const table = (columns: string[], body: string[][], testid: string): Node => h('div', { className: 'hmc-scroll' },
    h('table', { className: 'hmc-table', 'data-testid': testid },
      h('thead', null, h('tr', null, ...columns.map((c, i) => h('th', { key: c, className: i > 0 ? 'hmc-num' : '' }, c)))),
      h('tbody', null, ...body.map((r, j) => h('tr', { key: String(j) }, ...r.map((c, i) => h(i === 0 ? 'th' : 'td', { key: String(i), className: i > 0 ? 'hmc-num' : '' }, c)))))));
  const stat = (value: string, label: string, testid: string): Node => h('div', { className: 'hmc-stat' },
    h('div', { className: 'hmc-v', 'data-testid': testid }, value), h('div', { className: 'hmc-k' }, label));

  return function HmcTab(): Node {
    const [period, setPeriod] = hooks.useState<Period>('all');
    const [data, setData] = hooks.useState<Data | null>(null);
    const [error, setError] = hooks.useState<string>('');
    hooks.useEffect(() => {
      let live = true;
      const q = sinceQuery(PERIODS.find((p) => p[0] === period)?.[2] ?? 0);
      const get = (path: string): Promise<Json> => sdk.fetchJSON(`${API}${path}`).then((v) => (typeof v === 'object' && v !== null ? (v as Json) : {}));
      void (async () => {
        try {
          const status = await get('/status');
          if (status.running !== true) {
            if (live) setError(str(status.error) || 'HMC\'s dashboard is not running.');
            return;
          }
          const [analytics, models, outputs, work] = await Promise.all([
            get(`/api/analytics${q}`), get(`/api/models${q}`), get(`/api/outputs${q}${q ? '&' : '?'}by=tool&limit=10`), get(`/api/work${q}`)]);
          if (live) {
            setError('');
            setData({ status, analytics, models, outputs, work });
          }
        } catch (err) {
          if (live) setError(`HMC's figures could not be read: ${err instanceof Error ? err.message : String(err)}`);
        }
      })();
      return () => {
        live = false;
      };
    }, [period]);

    const picker = h('div', { className: 'hmc-seg', role: 'group', 'aria-label': 'Period' }, ...PERIODS.map(([key, label]) =>
      h('button', { key, type: 'button', 'aria-pressed': key === period, onClick: () => setPeriod(key) }, label)));
    if (error) return h('div', { className: 'hmc-tab' }, picker, h('p', { className: 'hmc-error', role: 'alert', 'data-testid': 'hmc-error' }, error));
    if (!data) return h('div', { className: 'hmc-tab' }, picker, h('p', { className: 'hmc-muted' }, 'Loading HMC\'s figures…'));

    const a = data.analytics;
    const cost = (a.estimated_cost_saved ?? {}) as Json;
    const currency = str(data.models.currency) || str(cost.currency) || 'USD';
    const older = num(a.sessions_without_model_calls);
    const w = data.work;
    return h('div', { className: 'hmc-tab', 'data-testid': 'hmc-tab' },
      h('div', { className: 'hmc-head' }, picker,
        h('a', { href: str(data.status.url), target: '_blank', rel: 'noopener noreferrer', className: 'hmc-link' }, 'Open HMC\'s full dashboard ↗')),
      card('Input saved', 'hmc-summary',
        h('div', { className: 'hmc-stats' },
          stat(fmtTokens(num(a.total_saved)), `input saved over ${num(a.model_calls).toLocaleString()} model calls`, 'hmc-saved'),
          stat(`${num(a.savings_pct).toFixed(1)}%`, 'of input', 'hmc-pct'),
          stat(fmtMoney(num(cost.amount), currency), 'cost saved (estimate)', 'hmc-cost'),
          stat(String(num(a.total_sessions)), 'sessions', 'hmc-sessions')),
        older > 0 ? h('p', { className: 'hmc-muted' }, `${older} older session${older === 1 ? '' : 's'} recorded before HMC counted model calls: not in the count of calls.`) : null),
      card('Cost per model', 'hmc-models', table(['Model', 'Model calls', 'Input', 'Sent', 'Input saved', 'Cost saved (estimate)'],
        rows(data.models.models).map((m) => [str(m.model) || '(unknown)', num(m.model_calls) === 0 ? '--' : String(num(m.model_calls)), fmtTokens(num(m.input)),
          fmtTokens(num(m.sent)), fmtTokens(num(m.saved)), fmtMoney(num(((m.cost ?? {}) as Json).saved), currency)]), 'hmc-models-table'),
        rows(data.models.models).length === 0 ? h('p', { className: 'hmc-muted' }, 'No sessions recorded in this period.') : null,
        h('p', { className: 'hmc-muted' }, 'Priced per model with the prompt cache (HMC\'s cache model), from the price table in HMC\'s config.yaml: an estimate, not a bill.')),
      card('Saved per tool output', 'hmc-outputs', table(['Tool', 'Outputs', 'Saved per output', '%', 'Input saved'],
        rows(data.outputs.outputs).map((o) => [str(o.name), String(num(o.outputs)), fmtTokens(num(o.saved_per_output)), `${num(o.savings_pct).toFixed(1)}%`, fmtTokens(num(o.input_saved))]), 'hmc-outputs-table'),
        rows(data.outputs.outputs).length === 0 ? h('p', { className: 'hmc-muted' }, 'No tool output recorded in this period.') : null),
      card('Did compression cost the agent work?', 'hmc-work', h('div', { className: 'hmc-stats' },
        stat(String(num(w.elided)), 'outputs shortened', 'hmc-elided'), stat(String(num(w.recalls)), 'recalls', 'hmc-recalls'),
        stat(String(num(w.rereads)), 're-reads', 'hmc-rereads'), stat(num(w.per_100_elided).toFixed(1), 'per 100 shortened', 'hmc-rate'))));
  };
}

const sdk = typeof window === 'undefined' ? undefined : window.__HERMES_PLUGIN_SDK__;
if (sdk && window.__HERMES_PLUGINS__) window.__HERMES_PLUGINS__.register(NAME, mount(sdk));
