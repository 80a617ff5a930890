/**
 * `hmc analytics --csv`: the action's answers as RFC 4180 CSV (the text tables are
 * src/store/analytics-text.ts).
 *
 * Invariant: pure; every form of the action has a CSV header, even with no rows.
 */
import { usageCsv } from '../store/analytics-usage.js';

type Result = Record<string, unknown>;
type Row = Record<string, unknown>;

const str = (x: unknown): string => (typeof x === 'string' ? x : x === null || x === undefined ? '' : String(x));
const rowsOf = (r: Result): Row[] => (Array.isArray(r.rows) ? (r.rows as Row[]) : []);

/** A text field starting like a formula: `=`, `+`, `-`, `@`, tab or CR (web/src/csv.ts: the same set). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, a quote, CR or LF; quotes doubled. A
 * text field that starts like a formula gets a leading `'`, so a spreadsheet shows a project, tool
 * or model named `=HYPERLINK(…)` as text instead of running it (issue 26, finding 4); numbers are
 * written as numbers, never prefixed; a number that is not finite, null and undefined are empty.
 * The page's csvField (web/src/csv.ts, a separate build that cannot import this one) does the
 * same: test/cli/csv-defuse.test.ts runs both over the same cases.
 */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  const raw = str(value);
  const text = FORMULA_START.test(raw) ? `'${raw}` : raw;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The action's answer as CSV: a header row, then one record per row, CRLF line ends. */
export function renderCsv(r: Result): string {
  let header: string[];
  let records: unknown[][];
  if (r.period === 'model') {
    header = [
      'model',
      'sessions',
      'model_calls',
      'input',
      'sent',
      'saved',
      'cached_input',
      'cached_sent',
      'cost_spent',
      'cost_without_hmc',
      'cost_saved',
      'currency',
      'price_source',
    ];
    records = rowsOf(r).map((x) => {
      const cost = (x.cost ?? {}) as Row;
      const price = (x.price ?? {}) as Row;
      return [
        x.model,
        x.sessions,
        x.model_calls,
        x.input,
        x.sent,
        x.saved,
        x.cached_input,
        x.cached_sent,
        cost.spent,
        cost.without_hmc,
        cost.saved,
        x.currency,
        price.source,
      ];
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
    records = [
      [
        'total',
        '',
        r.total_saved,
        r.total_input,
        r.total_sent ?? r.total_output,
        r.total_sessions,
        r.savings_pct,
        r.model_calls,
      ],
    ];
    for (const [key, kind] of [
      ['by_strategy', 'strategy'],
      ['by_tool', 'tool'],
    ] as const) {
      for (const [name, saved] of Object.entries((r[key] ?? {}) as Record<string, number>))
        records.push([kind, name, saved, '', '', '', '', '']);
    }
  }
  return [header, ...records].map((rec) => rec.map(csvField).join(',')).join('\r\n') + '\r\n';
}

/** Column names of an empty answer, so scripts always get a header. */
function csvColumns(period: string): string[] {
  switch (period) {
    case 'day':
      return ['day', 'saved', 'input', 'sessions'];
    case 'week':
      return ['week', 'saved', 'input', 'sessions'];
    case 'month':
      return ['month', 'saved', 'input', 'sessions'];
    case 'recent':
      return [
        'session_id',
        'timestamp',
        'project_path',
        'saved_tokens',
        'session_input',
        'session_sent',
        'session_output',
        'model_calls',
        'model',
        'platform',
        'turns',
        'tool_calls',
        'started_at',
        'ended_at',
      ];
    case 'project':
      return ['project_path', 'saved_tokens', 'input_tokens', 'sessions'];
    case 'tool':
      return ['tool', 'saved'];
    case 'output':
      return ['name', 'kind', 'outputs', 'tokens_raw', 'tokens_sent', 'saved', 'saved_per_output', 'savings_pct'];
    default:
      return ['strategy', 'saved'];
  }
}
