/**
 * How `hmc analytics` shows the action's answers to people: aligned text tables (thousands
 * separators, a `%` column) in the glossary's words (docs/glossary.md), and RFC 4180 CSV.
 *
 * Invariant: pure; every form of the action has a table and a CSV header, even with no rows.
 */
import { pct } from '../store/rows.js';
import { num } from './io.js';
import { renderUsageText, usageCsv } from './analytics-usage.js';

type Result = Record<string, unknown>;
type Row = Record<string, unknown>;

const n = (x: unknown): number => (typeof x === 'number' ? x : 0);
const str = (x: unknown): string => (typeof x === 'string' ? x : x === null || x === undefined ? '' : String(x));
const percent = (saved: unknown, input: unknown): string => `${pct(n(saved), n(input)).toFixed(2)}%`;
const rowsOf = (r: Result): Row[] => (Array.isArray(r.rows) ? (r.rows as Row[]) : []);

/** An aligned text table: text columns left, number columns (digits, separators, a % sign) right. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const numeric = header.map((_, i) => rows.length > 0 && rows.every((r) => /^-?[0-9][0-9,.]*%?$/.test(r[i] ?? '')));
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

function shareRows(parts: [string, number][]): string[][] {
  const total = parts.reduce((a, [, v]) => a + v, 0);
  return parts.map(([name, saved]) => [name, num(saved), percent(saved, total)]);
}

const money = (x: unknown, currency: unknown): string => `${n(x).toFixed(n(x) !== 0 && Math.abs(n(x)) < 1 ? 4 : 2)} ${str(currency)}`;

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
      const rows = rowsOf(r).map((x) => [str(x[key]), num(n(x.sessions)), num(n(x.input)), num(n(x.saved)), percent(x.saved, x.input)]);
      const label = key === 'week' ? 'week (Monday)' : key;
      return `Input saved per ${key}, ${where}\n\n${table([label, 'sessions', 'input', 'input saved', '%'], rows)}\n`;
    }
    case 'recent': {
      const rows = rowsOf(r).map((x) => [
        str(x.timestamp), str(x.session_id), str(x.project_path), str(x.model), num(n(x.turns)), num(n(x.model_calls)), num(n(x.tool_calls)),
        num(n(x.session_input)), num(n(x.saved_tokens)), percent(x.saved_tokens, x.session_input),
      ]);
      return `Recent sessions, ${where}\n\n${table(['started (UTC)', 'session', 'project', 'model', 'turns', 'model calls', 'tools', 'input', 'input saved', '%'], rows)}\n`;
    }
    case 'project': {
      const rows = rowsOf(r).map((x) => [str(x.project_path) || '(unknown)', num(n(x.sessions)), num(n(x.input_tokens)), num(n(x.saved_tokens)), percent(x.saved_tokens, x.input_tokens)]);
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
        return [str(x.model) || '(unknown)', num(n(x.sessions)), num(n(x.model_calls)), num(n(x.input)), num(n(x.cached_sent)), num(n(x.sent) - n(x.cached_sent)),
          num(n(x.saved)), money(cost.spent, x.currency), money(cost.saved, x.currency)];
      });
      const total = (r.cost_saved ?? {}) as Row;
      const unknown = Array.isArray(total.unknown_models) && total.unknown_models.length > 0 ? `\nunknown models, priced at pricing.default_*: ${(total.unknown_models as string[]).join(', ')}` : '';
      return `Cost per model (modelled: list prices, HMC's cache model of both requests), ${where}\n\n${table(
        ['model', 'sessions', 'model calls', 'input', 'cache read', 'cache write', 'input saved', 'input cost', 'cost saved'], rows)}\n\ncost saved in all: ${money(total.amount, total.currency)}${unknown}\n`;
    }
    case 'output': {
      const by = str(r.by) || 'tool';
      const rows = rowsOf(r).map((x) => [str(x.name), str(x.kind), num(n(x.outputs)), num(n(x.tokens_raw)), num(n(x.tokens_sent)), num(n(x.saved_per_output)), percent(x.saved, x.tokens_raw)]);
      return `Tool outputs per ${by === 'program' ? 'shell program' : by}, ${where} (tokens as they arrived and as first sent)\n\n${table(
        [by === 'program' ? 'program' : by, 'kind', 'outputs', 'tokens in', 'tokens sent', 'saved per output', '%'], rows)}\n`;
    }
    case 'usage':
      return renderUsageText(r, where, table);
    case 'work': {
      return `Did compression cost the agent work? ${where}\n\n${table(['', 'count'], [
        ['tool outputs HMC shortened', num(n(r.elided))],
        ['recalls (hmc_control recall)', num(n(r.recalls))],
        ['re-reads of shortened file parts', num(n(r.rereads))],
        ['per 100 shortened outputs', n(r.per_100_elided).toFixed(2)],
        ['sessions', num(n(r.sessions))],
        ['model calls', num(n(r.model_calls))],
      ])}\n`;
    }
    default: {
      const cost = r.cost_saved as Row | undefined;
      const lines = [
        `HMC savings, ${where}`,
        '',
        table(['', 'tokens'], [
          ['input without HMC', num(n(r.total_input))],
          ['input sent', num(n(r.total_sent ?? r.total_output))],
          ['input saved', num(n(r.total_saved))],
          ['input saved %', percent(r.total_saved, r.total_input)],
          ['over model calls', num(n(r.model_calls))],
          ['sessions', num(n(r.total_sessions))],
        ]),
        // Sessions recorded before HMC counted calls: named, so N is never read as covering them.
        ...(n(r.sessions_without_model_calls) > 0 ? [`(${num(n(r.sessions_without_model_calls))} of the sessions were recorded before HMC counted model calls: their calls are not in the ${num(n(r.model_calls))})`] : []),
        ...(cost ? ['', `cost saved: ${money(cost.amount, cost.currency)} (${str(cost.basis)})`] : []),
      ];
      for (const [key, label] of [['by_strategy', 'strategy'], ['by_tool', 'tool']] as const) {
        const parts = Object.entries((r[key] ?? {}) as Record<string, number>);
        if (parts.length > 0) lines.push('', table([label, 'input saved', '% of saved'], shareRows(parts)));
      }
      return `${lines.join('\n')}\n`;
    }
  }
}

/** One CSV field (RFC 4180): quoted when it holds a comma, a quote, CR or LF; quotes doubled. */
export function csvField(value: unknown): string {
  const text = str(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The action's answer as CSV: a header row, then one record per row, CRLF line ends. */
export function renderCsv(r: Result): string {
  let header: string[];
  let records: unknown[][];
  if (r.period === 'model') {
    header = ['model', 'sessions', 'model_calls', 'input', 'sent', 'saved', 'cached_input', 'cached_sent', 'cost_spent', 'cost_without_hmc', 'cost_saved', 'currency', 'price_source'];
    records = rowsOf(r).map((x) => {
      const cost = (x.cost ?? {}) as Row;
      const price = (x.price ?? {}) as Row;
      return [x.model, x.sessions, x.model_calls, x.input, x.sent, x.saved, x.cached_input, x.cached_sent, cost.spent, cost.without_hmc, cost.saved, x.currency, price.source];
    });
  } else if (r.period === 'usage') {
    ({ header, records } = usageCsv(r));
  } else if (r.period === 'work') {
    header = ['sessions', 'model_calls', 'tool_calls', 'elided', 'recalls', 'rereads', 'per_100_elided'];
    records = [[r.sessions, r.model_calls, r.tool_calls, r.elided, r.recalls, r.rereads, r.per_100_elided]];
  } else if (Array.isArray(r.rows)) {
    const rows = rowsOf(r);
    header = rows[0] ? Object.keys(rows[0]) : csvColumns(str(r.period));
    records = rows.map((x) => header.map((h) => x[h]));
  } else {
    header = ['kind', 'name', 'saved', 'input', 'sent', 'sessions', 'savings_pct', 'model_calls'];
    records = [['total', '', r.total_saved, r.total_input, r.total_sent ?? r.total_output, r.total_sessions, r.savings_pct, r.model_calls]];
    for (const [key, kind] of [['by_strategy', 'strategy'], ['by_tool', 'tool']] as const) {
      for (const [name, saved] of Object.entries((r[key] ?? {}) as Record<string, number>)) records.push([kind, name, saved, '', '', '', '', '']);
    }
  }
  return [header, ...records].map((rec) => rec.map(csvField).join(',')).join('\r\n') + '\r\n';
}

/** Column names of an empty answer, so scripts always get a header. */
function csvColumns(period: string): string[] {
  switch (period) {
    case 'day': return ['day', 'saved', 'input', 'sessions'];
    case 'week': return ['week', 'saved', 'input', 'sessions'];
    case 'month': return ['month', 'saved', 'input', 'sessions'];
    case 'recent': return ['session_id', 'timestamp', 'project_path', 'saved_tokens', 'session_input', 'session_sent', 'session_output', 'model_calls', 'model', 'platform', 'turns', 'tool_calls', 'started_at', 'ended_at'];
    case 'project': return ['project_path', 'saved_tokens', 'input_tokens', 'sessions'];
    case 'tool': return ['tool', 'saved'];
    case 'output': return ['name', 'kind', 'outputs', 'tokens_raw', 'tokens_sent', 'saved', 'saved_per_output', 'savings_pct'];
    default: return ['strategy', 'saved'];
  }
}
