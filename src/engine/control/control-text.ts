/**
 * The `hmc_control` actions' answers as text for a person: what `/hmc <action>` and `hmc control
 * <action>` print (issue 27, finding 3: `/hmc stats` printed fifty lines of JSON, `hermes hmc
 * control status` a JSON string with its newline escaped). Numbers line up in columns with
 * thousands separators (core/text-table.ts), in the glossary's words (docs/glossary.md). The
 * model's `hmc_control` tool keeps the JSON answers; `--json` gives a person the same.
 *
 * Invariant: pure, and never throws on an answer of an unexpected shape (it falls back to the
 * JSON); every figure shown is one of the answer's, none computed anew but shares and sums;
 * hints name commands the way the caller types them (`how`: `/hmc` or `hermes hmc control`).
 */
import { keyValues, num, table } from '../../core/text-table.js';
import { renderText as analyticsText } from '../../store/analytics-text.js';
import { breakdownText } from './control-context.js';
import { indexText } from './control-index.js';

type Answer = Record<string, unknown>;

const isRecord = (v: unknown): v is Answer => typeof v === 'object' && v !== null && !Array.isArray(v);
const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const str = (v: unknown): string => (typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v));
const plural = (k: number, word: string): string => `${num(k)} ${word}${k === 1 ? '' : 's'}`;
const share = (part: number, whole: number): string => (whole > 0 ? `${((part / whole) * 100).toFixed(2)}%` : '');
const onOff = (v: unknown): string => (v === true ? 'on' : 'off');

/** The answer to `action` as text; `how` starts the commands a hint names (`/hmc`, `hermes hmc control`). */
export function controlText(action: string, result: Answer, how = '/hmc', help: Record<string, string> = {}): string {
  if (typeof result.error === 'string') return `hmc: ${result.error}`;
  switch (action) {
    case 'status':
      if (typeof result.status === 'string') return result.status;
      break;
    case 'help':
      return [`${how} <action> [key=value…] [--json]`, keyValues(Object.entries(help), '  ')].join('\n');
    case 'context':
      return typeof result.error === 'string'
        ? `hmc: ${result.error}`
        : `${contextText(result)}\n\n${breakdownText(result)}`;
    case 'stats':
      return statsText(result);
    case 'index':
      return indexText(result, how);
    case 'recall': {
      const parts = recallParts(result, how);
      if (parts) return [parts.head, '', parts.body, ...(parts.next ? ['', parts.next] : [])].join('\n');
      break;
    }
    case 'analytics':
      return analyticsText(result).trimEnd();
    case 'dashboard':
      return dashboardText(result);
    case 'sweep':
      return n(result.swept) > 0
        ? `HMC: ${plural(n(result.swept), 'tool output')} will be replaced by a placeholder at the next model call`
        : 'HMC: nothing to sweep (no tool output since the last user message; count=N takes the last N)';
    case 'manual_set':
    case 'manual_status':
      return `HMC manual mode: ${onOff(result.manual_mode)}`;
    case 'config': {
      const issues = Array.isArray(result.issues) ? result.issues.map(str) : [];
      if (issues.length === 0) return 'HMC config: no problems found';
      return [
        `HMC config: ${plural(issues.length, 'problem')} (each key named falls back to its default)`,
        ...issues.map((i) => `  - ${i}`),
      ].join('\n');
    }
  }
  return JSON.stringify(result, null, 2);
}

function contextText(r: Answer): string {
  const tokens: string[][] = [
    ['context now', num(n(r.context_tokens_estimate))],
    ['context without HMC', num(n(r.context_tokens_raw))],
    ['context saved now', r.context_saved_tokens === null ? '' : num(n(r.context_saved_tokens))],
    ...(typeof r.context_window === 'number' ? [['context window', num(r.context_window)]] : []),
    [`input saved over ${plural(n(r.model_calls), 'model call')}`, num(n(r.input_saved_tokens))],
  ];
  const use =
    r.context_usage_percent === null || r.context_usage_percent === undefined
      ? 'unknown (no context window known)'
      : `${(n(r.context_usage_percent) * 100).toFixed(2)}% of the window`;
  return [
    `HMC context, session ${str(r.session_id)}`,
    '',
    table(['', 'tokens'], tokens),
    ...(r.context_saved_tokens === null
      ? ['(context saved now: known again after the next model call; this session was saved by an older HMC)']
      : []),
    '',
    keyValues([
      ['context use', use],
      ['tool calls tracked', num(n(r.tool_calls_tracked))],
      ['tool outputs pruned', num(n(r.pruned_tools))],
      ['manual mode', onOff(r.manual_mode)],
    ]),
  ].join('\n');
}

/** Saved tokens per name, largest first. */
function entries(v: unknown): [string, number][] {
  return isRecord(v)
    ? Object.entries(v)
        .map(([k, x]): [string, number] => [k, n(x)])
        .sort((a, b) => b[1] - a[1])
    : [];
}

function statsText(r: Answer): string {
  const now = isRecord(r.context_saved) ? r.context_saved : {};
  const input = isRecord(r.input_saved) ? r.input_saved : {};
  const sent = isRecord(input.input_tokens) ? input.input_tokens : {};
  const work = isRecord(r.work) ? r.work : {};
  const l1 = isRecord(r.background_compression) ? r.background_compression : {};
  const nowKnown = now.tokens !== null && now.tokens !== undefined;
  const calls = n(input.model_calls);
  const out = [
    `HMC stats, session ${str(r.session_id)} [${r.manual_mode === true ? 'manual' : 'auto'}]`,
    '',
    table(
      ['', 'tokens', '%'],
      [
        ['context now', num(n(now.context_tokens)), ''],
        ['context without HMC', num(n(now.context_tokens_raw)), ''],
        [
          'context saved now',
          nowKnown ? num(n(now.tokens)) : '',
          nowKnown ? share(n(now.tokens), n(now.context_tokens_raw)) : '',
        ],
        [`input without HMC (${plural(calls, 'model call')})`, num(n(sent.raw)), ''],
        ['input sent', num(n(sent.sent)), ''],
        ['input saved', num(n(input.tokens)), share(n(input.tokens), n(sent.raw))],
      ],
    ),
  ];
  if (!nowKnown)
    out.push('(context saved now: known again after the next model call; this session was saved by an older HMC)');
  // One row per strategy with either figure: what it saves in the context now, and over all calls.
  const byNow = new Map(entries(now.by_strategy));
  const byInput = entries(input.by_strategy);
  const names = [...new Set([...byInput.map(([k]) => k), ...byNow.keys()])];
  if (names.length > 0) {
    const inputOf = new Map(byInput);
    out.push(
      '',
      table(
        ['strategy', 'context saved now', 'input saved'],
        names.map((k) => [k, nowKnown ? num(byNow.get(k) ?? 0) : '', num(inputOf.get(k) ?? 0)]),
      ),
    );
  }
  const tools = entries(input.by_tool);
  if (tools.length > 0) {
    const total = tools.reduce((a, [, v]) => a + v, 0);
    out.push(
      '',
      table(
        ['tool', 'input saved', '% of saved'],
        tools.map(([k, v]) => [k, num(v), share(v, total) || '0.00%']),
      ),
    );
  }
  out.push(
    '',
    table(
      ['', 'count'],
      [
        ['tool outputs shortened', num(n(work.elided))],
        ['recalls', num(n(work.recalls))],
        ['re-reads of shortened parts', num(n(work.rereads))],
        ['tool outputs pruned', num(n(r.total_prune_count))],
        ['cache breaks', num(n(r.cache_breaks))],
      ],
    ),
  );
  if (n(l1.phases) > 0 || n(l1.failures) > 0 || l1.in_progress === true) {
    const tok = isRecord(l1.summariser_tokens) ? l1.summariser_tokens : {};
    out.push(
      '',
      keyValues([
        [
          'layer 1',
          `${plural(n(l1.phases), 'phase')} summarised in ${plural(n(l1.passes), 'pass')}${l1.in_progress === true ? ', one in progress' : ''}`,
        ],
        ['summariser tokens', `${num(n(tok.in))} in, ${num(n(tok.out))} out`],
        ...(n(l1.failures) > 0
          ? [['failed', `${num(n(l1.failures))} (last: ${str(l1.last_failure).slice(0, 80)})`] as [string, string]]
          : []),
        ...(n(l1.declined) > 0 ? [['declined', num(n(l1.declined))] as [string, string]] : []),
      ]),
    );
  }
  return out.join('\n');
}

/** A message of a summarised phase, as a person reads it: who said it, then what. */
function messageText(m: unknown, i: number): string {
  if (!isRecord(m)) return `[${i}]\n${JSON.stringify(m)}`;
  const who = [str(m.role) || '?', str(m.name) || str(m.tool_name)].filter(Boolean).join(' ');
  const calls = Array.isArray(m.tool_calls) ? `\n(tool calls: ${JSON.stringify(m.tool_calls)})` : '';
  const content = typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? null);
  return `[${i}] ${who}\n${content}${calls}`;
}

/**
 * A recall answer in three parts: what it is (`head`), the text itself (`body`: a tool output's
 * exact original, or the arguments, or the lines asked for), and the command for the next page.
 * `hmc control recall` writes the body alone on stdout, so `> file` is the exact original.
 */
export function recallParts(r: Answer, how = '/hmc'): { head: string; body: string; next: string } | null {
  const id = str(r.id);
  const next = typeof r.next === 'string' ? `next: ${how} ${r.next}` : '';
  if (r.phase === true) {
    const total = n(r.total_messages);
    if (typeof r.content === 'string') {
      return {
        head: `recall ${id}: message ${num(n(r.message))} of ${num(total)} of a summarised phase (${str(r.role) || '?'}), lines ${str(r.lines)} of ${num(n(r.total_lines))}`,
        body: r.content,
        next,
      };
    }
    const messages = Array.isArray(r.messages) ? r.messages : [];
    if (messages.length === 0)
      return {
        head: `recall ${id}: ${total === 0 ? 'a summarised phase with no messages' : `a summarised phase of ${num(total)} messages; the next is too big for one page`}`,
        body: '',
        next,
      };
    const from = Number(str(r.shown).split('-')[0]) || 1;
    return {
      head: `recall ${id}: messages ${str(r.shown)} of ${num(total)} of a summarised phase (--json: the exact messages)`,
      body: messages.map((m, i) => messageText(m, from + i)).join('\n\n'),
      next,
    };
  }
  if (typeof r.arguments === 'string')
    return { head: `recall ${id}: the exact arguments of a cleared ${str(r.tool)} call`, body: r.arguments, next };
  if (typeof r.content !== 'string') return null;
  const part = typeof r.lines === 'string' ? `lines ${r.lines} of ${num(n(r.total_lines))} of ` : '';
  return { head: `recall ${id}: ${part}the exact original of a ${str(r.tool)} output`, body: r.content, next };
}

function dashboardText(r: Answer): string {
  if (typeof r.url === 'string') return `HMC dashboard: ${r.url} (${r.running === true ? 'running' : 'stopped'})`;
  if (typeof r.stopped === 'number') return `HMC dashboard: stopped (pid ${r.stopped})`;
  return `HMC dashboard: not running${typeof r.stale === 'string' ? ` (a stale record: ${r.stale})` : ''}`;
}
