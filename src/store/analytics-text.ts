/**
 * The `analytics` action's answers as text for people: aligned tables (thousands separators, a
 * `%` column) in the glossary's words (docs/glossary.md). `hmc analytics`, `hmc control analytics`
 * and `/hmc analytics` all print these (src/cli/analytics-render.ts writes the CSV).
 *
 * Invariant: pure; every form of the action has a table, even with no rows.
 */
import { num, table } from '../core/text-table.js';
import { renderUsageText } from './analytics-usage.js';
import { pct } from './rows.js';

type Result = Record<string, unknown>;
type Row = Record<string, unknown>;

const n = (x: unknown): number => (typeof x === 'number' ? x : 0);
const str = (x: unknown): string => (typeof x === 'string' ? x : x === null || x === undefined ? '' : String(x));
const percent = (saved: unknown, input: unknown): string => `${pct(n(saved), n(input)).toFixed(2)}%`;
const rowsOf = (r: Result): Row[] => (Array.isArray(r.rows) ? (r.rows as Row[]) : []);

function shareRows(parts: [string, number][]): string[][] {
  const total = parts.reduce((a, [, v]) => a + v, 0);
  return parts.map(([name, saved]) => [name, num(saved), percent(saved, total)]);
}

const money = (x: unknown, currency: unknown): string =>
  `${n(x).toFixed(n(x) !== 0 && Math.abs(n(x)) < 1 ? 4 : 2)} ${str(currency)}`;

/** Where the answer looks: the project and the date range it was asked for. */
function scopeOf(r: Result): string {
  const where = r.scope === 'project' ? `project ${str(r.project)}` : 'all projects';
  const since = str(r.since);
  const until = str(r.until);
  return since || until ? `${where}, ${since || '…'} to ${until || 'today'}` : where;
}

/** The action's answer as aligned text tables. */
export function renderText(r: Result): string {
  const where = scopeOf(r);
  switch (r.period) {
    case 'day':
    case 'week':
    case 'month': {
      const key = str(r.period);
      const rows = rowsOf(r).map((x) => [
        str(x[key]),
        num(n(x.sessions)),
        num(n(x.input)),
        num(n(x.saved)),
        percent(x.saved, x.input),
      ]);
      const label = key === 'week' ? 'week (Monday)' : key;
      return `Input saved per ${key}, ${where}\n\n${table([label, 'sessions', 'input', 'input saved', '%'], rows)}\n`;
    }
    case 'recent': {
      const rows = rowsOf(r).map((x) => [
        str(x.timestamp),
        str(x.session_id),
        str(x.project_path),
        str(x.model),
        num(n(x.turns)),
        num(n(x.model_calls)),
        num(n(x.tool_calls)),
        num(n(x.session_input)),
        num(n(x.saved_tokens)),
        percent(x.saved_tokens, x.session_input),
      ]);
      return `Recent sessions, ${where}\n\n${table(['started (UTC)', 'session', 'project', 'model', 'turns', 'model calls', 'tools', 'input', 'input saved', '%'], rows)}\n`;
    }
    case 'project': {
      const rows = rowsOf(r).map((x) => [
        str(x.project_path) || '(unknown)',
        num(n(x.sessions)),
        num(n(x.input_tokens)),
        num(n(x.saved_tokens)),
        percent(x.saved_tokens, x.input_tokens),
      ]);
      return `Input saved per project\n\n${table(['project', 'sessions', 'input', 'input saved', '%'], rows)}\n`;
    }
    case 'tool':
    case 'strategy': {
      const key = str(r.period);
      const parts = rowsOf(r).map((x): [string, number] => [str(x[key]), n(x.saved)]);
      return `Input saved per ${key}, ${where}\n\n${table([key, 'input saved', '% of saved'], shareRows(parts))}\n`;
    }
    case 'model': {
      const rows = rowsOf(r).map((x) => {
        const cost = (x.cost ?? {}) as Row;
        return [
          str(x.model) || '(unknown)',
          num(n(x.sessions)),
          num(n(x.model_calls)),
          num(n(x.input)),
          num(n(x.cached_sent)),
          num(n(x.sent) - n(x.cached_sent)),
          num(n(x.saved)),
          money(cost.spent, x.currency),
          money(cost.saved, x.currency),
        ];
      });
      const total = (r.cost_saved ?? {}) as Row;
      const unknown =
        Array.isArray(total.unknown_models) && total.unknown_models.length > 0
          ? `\nunknown models, priced at pricing.default_*: ${(total.unknown_models as string[]).join(', ')}`
          : '';
      return `Cost per model (modelled: list prices, HMC's cache model of both requests), ${where}\n\n${table(
        [
          'model',
          'sessions',
          'model calls',
          'input',
          'cache read',
          'cache write',
          'input saved',
          'input cost',
          'cost saved',
        ],
        rows,
      )}\n\ncost saved in all: ${money(total.amount, total.currency)}${unknown}\n`;
    }
    case 'usage':
      return renderUsageText(r, where, table);
    case 'output': {
      const by = str(r.by) || 'tool';
      const rows = rowsOf(r).map((x) => [
        str(x.name),
        str(x.kind),
        num(n(x.outputs)),
        num(n(x.tokens_raw)),
        num(n(x.tokens_sent)),
        num(n(x.saved_per_output)),
        percent(x.saved, x.tokens_raw),
      ]);
      return `Tool outputs per ${by === 'program' ? 'shell program' : by}, ${where} (tokens as they arrived and as first sent)\n\n${table(
        [by === 'program' ? 'program' : by, 'kind', 'outputs', 'tokens in', 'tokens sent', 'saved per output', '%'],
        rows,
      )}\n`;
    }
    case 'work': {
      return `Did compression cost the agent work? ${where}\n\n${table(
        ['', 'count'],
        [
          ['tool outputs HMC shortened', num(n(r.elided))],
          ['recalls (hmc_control recall)', num(n(r.recalls))],
          ['re-reads of shortened file parts', num(n(r.rereads))],
          ['per 100 shortened outputs', n(r.per_100_elided).toFixed(2)],
          ['sessions', num(n(r.sessions))],
          ['model calls', num(n(r.model_calls))],
        ],
      )}\n`;
    }
    default: {
      const cost = r.cost_saved as Row | undefined;
      const lines = [
        `HMC savings, ${where}`,
        '',
        table(
          ['', 'tokens'],
          [
            ['input without HMC', num(n(r.total_input))],
            ['input sent', num(n(r.total_sent ?? r.total_output))],
            ['input saved', num(n(r.total_saved))],
            ['input saved %', percent(r.total_saved, r.total_input)],
            ['over model calls', num(n(r.model_calls))],
            ['sessions', num(n(r.total_sessions))],
          ],
        ),
        // Sessions recorded before HMC counted calls: named, so N is never read as covering them.
        ...(n(r.sessions_without_model_calls) > 0
          ? [
              `(${num(n(r.sessions_without_model_calls))} of the sessions were recorded before HMC counted model calls: their calls are not in the ${num(n(r.model_calls))})`,
            ]
          : []),
        ...(cost ? ['', `cost saved: ${money(cost.amount, cost.currency)} (${str(cost.basis)})`] : []),
      ];
      for (const [key, label] of [
        ['by_strategy', 'strategy'],
        ['by_tool', 'tool'],
      ] as const) {
        const parts = Object.entries((r[key] ?? {}) as Record<string, number>);
        if (parts.length > 0) lines.push('', table([label, 'input saved', '% of saved'], shareRows(parts)));
      }
      return `${lines.join('\n')}\n`;
    }
  }
}
