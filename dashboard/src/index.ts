/**
 * HMC's tab in Hermes' own web dashboard (issue 17, finding 7; Hermes' dashboard plugin contract:
 * dashboard/manifest.json, this script built as one IIFE into dashboard/dist/index.js). It shows,
 * for a period (since/until, or 7 days, 30 days, all time), the glossary's figures from HMC's
 * dashboard through plugin_api.py: input saved over N model calls and its share, cost saved and
 * cost per model with the prompt cache (modelled: HMC's figures), the provider's own usage and
 * its cost per model (measured: what Hermes reported of each call; issue 24), average saved per
 * tool, and recalls and re-reads; and links to the full HMC page. With HMC's dashboard not running
 * it says so and offers a button that starts it (POST /api/plugins/hmc/start, Hermes' session).
 *
 * Invariant: runs only inside Hermes' dashboard (no SDK: does nothing); every figure is HMC's
 * (sums of its per-model rows at most), labelled measured or modelled, shown as text through React
 * (escaped); an unknown model is named and given no money; a failed fetch shows its reason, never
 * a blank tab.
 */
import './style.css';
import type { Component, Node, Sdk } from './sdk.js';
import { failure, fmtMoney, fmtTokens, rangeQuery, type Range } from './format.js';
import { makeParts } from './parts.js';

const NAME = 'hmc';
const API = `/api/plugins/${NAME}`;

type Json = Record<string, unknown>;
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const rows = (v: unknown): Json[] =>
  Array.isArray(v) ? v.filter((x): x is Json => typeof x === 'object' && x !== null) : [];

interface Data {
  status: Json;
  analytics: Json;
  models: Json;
  outputs: Json;
  work: Json;
}

/** What the tab shows instead of figures: a reason, and whether HMC's dashboard can be started. */
interface Trouble {
  text: string;
  stopped: boolean;
}

function mount(sdk: Sdk): Component {
  const { React, hooks } = sdk;
  const h = React.createElement.bind(React);
  const { card, stat, table, period } = makeParts(sdk);
  const get = (path: string, init?: Record<string, unknown>): Promise<Json> =>
    sdk.fetchJSON(`${API}${path}`, init).then((v) => (typeof v === 'object' && v !== null ? (v as Json) : {}));

  return function HmcTab(): Node {
    const [range, setRange] = hooks.useState<Range>({});
    const [epoch, setEpoch] = hooks.useState(0);
    const [data, setData] = hooks.useState<Data | null>(null);
    const [trouble, setTrouble] = hooks.useState<Trouble | null>(null);
    const [starting, setStarting] = hooks.useState(false);
    hooks.useEffect(() => {
      let live = true;
      void (async () => {
        try {
          const status = await get('/status');
          if (status.running !== true) {
            if (live) setTrouble({ text: str(status.error) || "HMC's dashboard is not running.", stopped: true });
            return;
          }
          const [analytics, models, outputs, work] = await Promise.all([
            get(`/api/analytics${rangeQuery(range)}`),
            get(`/api/models${rangeQuery(range)}`),
            get(`/api/outputs${rangeQuery(range, { by: 'tool', limit: '10' })}`),
            get(`/api/work${rangeQuery(range)}`),
          ]);
          if (live) {
            setTrouble(null);
            setData({ status, analytics, models, outputs, work });
          }
        } catch (err) {
          if (live) setTrouble({ text: `HMC's figures could not be read: ${failure(err)}`, stopped: false });
        }
      })();
      return () => {
        live = false;
      };
    }, [range.since, range.until, epoch]);

    const start = (): void => {
      setStarting(true);
      get('/start', { method: 'POST' }).then(
        () => {
          setStarting(false);
          setTrouble(null);
          setEpoch(epoch + 1);
        },
        (err: unknown) => {
          setStarting(false);
          setTrouble({ text: `HMC's dashboard could not be started: ${failure(err)}`, stopped: true });
        },
      );
    };
    const head = (...rest: unknown[]): Node => h('div', { className: 'hmc-head' }, period(range, setRange), ...rest);
    if (trouble) {
      return h(
        'div',
        { className: 'hmc-tab' },
        head(),
        h(
          'div',
          { className: 'hmc-error', role: 'alert' },
          h('p', { 'data-testid': 'hmc-error' }, trouble.text),
          trouble.stopped
            ? h(
                'button',
                {
                  type: 'button',
                  className: 'hmc-btn',
                  disabled: starting,
                  onClick: start,
                  'data-testid': 'hmc-start',
                },
                starting ? "Starting HMC's dashboard…" : "Start HMC's dashboard",
              )
            : null,
        ),
      );
    }
    if (!data)
      return h('div', { className: 'hmc-tab' }, head(), h('p', { className: 'hmc-muted' }, "Loading HMC's figures…"));

    const a = data.analytics;
    const cost = (a.estimated_cost_saved ?? {}) as Json;
    const currency = str(data.models.currency) || str(cost.currency) || 'USD';
    const older = num(a.sessions_without_model_calls);
    const w = data.work;
    const models = rows(data.models.models);
    const provider = rows(data.models.provider);
    // An unknown model (no price table names it) is named and left unpriced here: no money for it.
    const unknown = (m: Json): boolean => ((m.price ?? {}) as Json).unknown_model === true;
    const unpriced = [...new Set([...models, ...provider].filter(unknown).map((m) => str(m.model) || '(unnamed)'))];
    const money = (m: Json, v: unknown): string => (unknown(m) ? 'not priced' : fmtMoney(num(v), currency));
    const sum = (list: Json[], pick: (m: Json) => unknown): number => list.reduce((t, m) => t + num(pick(m)), 0);
    const priced = models.filter((m) => !unknown(m));
    const costOf = (m: Json): Json => (m.cost ?? {}) as Json;
    const saved = sum(priced, (m) => costOf(m).saved);
    const prompt = sum(provider, (m) => m.prompt_tokens);
    const pricedProvider = provider.filter((m) => !unknown(m));
    return h(
      'div',
      { className: 'hmc-tab', 'data-testid': 'hmc-tab' },
      head(
        h(
          'a',
          { href: str(data.status.url), target: '_blank', rel: 'noopener noreferrer', className: 'hmc-link' },
          "Open HMC's full dashboard ↗",
        ),
      ),
      card(
        'Input saved',
        'hmc-summary',
        h(
          'div',
          { className: 'hmc-stats' },
          stat(
            fmtTokens(num(a.total_saved)),
            `input saved over ${num(a.model_calls).toLocaleString()} model calls`,
            'hmc-saved',
          ),
          stat(`${num(a.savings_pct).toFixed(1)}%`, 'of input', 'hmc-pct'),
          stat(
            fmtMoney(saved, currency),
            unpriced.length > 0
              ? 'cost saved, modelled (priced models only)'
              : 'cost saved, modelled (with the prompt cache)',
            'hmc-cost',
          ),
          stat(String(num(a.total_sessions)), 'sessions', 'hmc-sessions'),
        ),
        older > 0
          ? h(
              'p',
              { className: 'hmc-muted' },
              `${older} older session${older === 1 ? '' : 's'} recorded before HMC counted model calls: not in the count of calls.`,
            )
          : null,
      ),
      card(
        "Cost per model: modelled (HMC's figures)",
        'hmc-models',
        table(
          'Cost per model',
          ['Model', 'Model calls', 'Input', 'Sent', 'Cost without HMC', 'Cost with HMC', 'Cost saved'],
          models.map((m) => [
            { name: str(m.model) || '(unknown)' },
            num(m.model_calls) === 0 ? '--' : String(num(m.model_calls)),
            fmtTokens(num(m.input)),
            fmtTokens(num(m.sent)),
            money(m, costOf(m).without_hmc),
            money(m, costOf(m).spent),
            money(m, costOf(m).saved),
          ]),
          'hmc-models-table',
        ),
        models.length === 0 ? h('p', { className: 'hmc-muted' }, 'No sessions recorded in this period.') : null,
        h(
          'p',
          { className: 'hmc-muted' },
          "Modelled: HMC's own count of each request without HMC and as sent, priced with HMC's model of the prompt cache (the part the previous call sent unchanged is read at the cache-read price, the rest written), from the price table (HMC's config.yaml, else Hermes' own prices, else HMC's built-in table): an estimate, not a bill.",
        ),
        unpriced.length > 0
          ? h(
              'p',
              { className: 'hmc-muted', 'data-testid': 'hmc-unpriced' },
              `Not priced: ${unpriced.join(', ')}. No price table names ${unpriced.length === 1 ? 'this model' : 'these models'}: add ${unpriced.length === 1 ? 'it' : 'them'} under pricing.models in HMC's config.yaml (hermes hmc doctor lists ${unpriced.length === 1 ? 'it' : 'them'}).`,
            )
          : null,
      ),
      card(
        'Reported by the provider: measured',
        'hmc-provider',
        provider.length === 0
          ? h(
              'p',
              { className: 'hmc-muted', 'data-testid': 'hmc-provider-none' },
              "The provider reported no usage in this period. Hermes hands HMC each model call's usage (prompt, cache read and write, output) through its post_api_request hook, 0.16.0 and later.",
            )
          : h(
              'div',
              { className: 'hmc-stats' },
              stat(
                fmtMoney(
                  sum(pricedProvider, (m) => costOf(m).input),
                  currency,
                ),
                'input cost, measured',
                'hmc-measured-input',
              ),
              stat(
                fmtMoney(
                  sum(pricedProvider, (m) => costOf(m).output),
                  currency,
                ),
                'output cost, measured',
                'hmc-measured-output',
              ),
              stat(
                fmtTokens(prompt),
                `prompt tokens over ${sum(provider, (m) => m.calls).toLocaleString()} calls`,
                'hmc-measured-prompt',
              ),
              stat(
                prompt > 0 ? `${((100 * sum(provider, (m) => m.cache_read_tokens)) / prompt).toFixed(1)}%` : '--',
                'read from the cache, measured',
                'hmc-measured-read',
              ),
            ),
        provider.length === 0
          ? null
          : table(
              'Reported by the provider',
              ['Model', 'Model calls', 'Prompt', 'Cache read', 'Cache write', 'Output', 'Input cost', 'Output cost'],
              provider.map((m) => [
                { name: str(m.model) || '(unknown)' },
                String(num(m.calls)),
                fmtTokens(num(m.prompt_tokens)),
                fmtTokens(num(m.cache_read_tokens)),
                fmtTokens(num(m.cache_write_tokens)),
                fmtTokens(num(m.completion_tokens)),
                money(m, costOf(m).input),
                money(m, costOf(m).output),
              ]),
              'hmc-provider-table',
            ),
        provider.length === 0
          ? null
          : h(
              'p',
              { className: 'hmc-muted' },
              "Measured: the provider's own figures for each model call, as Hermes reported them, priced from the same table (cache reads and writes at their own prices). Shown beside HMC's figures, never added to them.",
            ),
      ),
      card(
        'Saved per tool output',
        'hmc-outputs',
        table(
          'Saved per tool output',
          ['Tool', 'Outputs', 'Saved per output', '%', 'Input saved'],
          rows(data.outputs.outputs).map((o) => [
            { name: str(o.name) },
            String(num(o.outputs)),
            fmtTokens(num(o.saved_per_output)),
            `${num(o.savings_pct).toFixed(1)}%`,
            fmtTokens(num(o.input_saved)),
          ]),
          'hmc-outputs-table',
        ),
        rows(data.outputs.outputs).length === 0
          ? h('p', { className: 'hmc-muted' }, 'No tool output recorded in this period.')
          : null,
      ),
      card(
        'Did compression cost the agent work?',
        'hmc-work',
        h(
          'div',
          { className: 'hmc-stats' },
          stat(String(num(w.elided)), 'outputs shortened', 'hmc-elided'),
          stat(String(num(w.recalls)), 'recalls', 'hmc-recalls'),
          stat(String(num(w.rereads)), 're-reads', 'hmc-rereads'),
          stat(num(w.per_100_elided).toFixed(1), 'per 100 shortened', 'hmc-rate'),
        ),
      ),
    );
  };
}

const sdk = typeof window === 'undefined' ? undefined : window.__HERMES_PLUGIN_SDK__;
if (sdk && window.__HERMES_PLUGINS__) window.__HERMES_PLUGINS__.register(NAME, mount(sdk));
