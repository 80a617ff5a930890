/**
 * The `hmc_control` actions (reference §7.7: status, context, stats, index, analytics, dashboard,
 * sweep, manual_set, manual_status; plus help and config) and the `/hmc` slash command over them.
 * JSON shapes follow the original; its bugs are fixed (`manual_set enabled:"false"` turns manual
 * mode off, numbers given as strings work, a bad value is an error naming it, never a throw).
 */
import type { ConfigIssue, HmcConfig } from '../config/keys.js';
import { moneyLine, sessionMoney, type SessionMoney } from './money.js';
import type { Saved } from '../core/savings.js';
import { PERIODS, SCOPES } from '../store/action.js';
import { createPhaseIndex } from '../store/phase-index.js';
import { NULL_PHASE_INDEX, type PhaseIndex } from '../store/phase-types.js';
import { indexAction, indexText } from './control-index.js';
import type { IndexAccess } from './owner.js';
import { parseEnvelope } from '../hosts/outputs/envelope.js';
import type { Layer1 } from './layer1.js';
import { ARGUMENTS_TOOL_PREFIX, lineRange, type RecallStore } from './recall.js';
import type { Session } from './session.js';

/** What the actions need of the engine (the engine is one; tests may pass less). */
export interface ControlTarget {
  readonly config: HmcConfig;
  /** The session a call means (control.ts never reaches past it). */
  resolveSession(id: string | undefined): Session | null;
  /** Runs the queued accounting, so the figures shown are complete. */
  settle(): boolean;
  readonly recall: Pick<RecallStore, 'get'>;
  readonly layer1: Pick<Layer1, 'stats'>;
  /** Whose a session is (owner.ts), from memory or its saved file; null when nothing is known of it. */
  ownerOf(sessionId: string): string | null;
}

export interface DashboardControl {
  start(): Promise<Record<string, unknown>>;
  stop(): Promise<Record<string, unknown>>;
  status(): Promise<Record<string, unknown>>;
  /** The runtime is closing: an in-process dashboard stops, a shared background one stays. */
  release(): Promise<void>;
}

export interface ControlDeps {
  log: (line: string) => void;
  stateDir: string | null;
  projectPath: string;
  dashboard: DashboardControl | null;
  /** Answers `analytics` (null when analytics is off or unavailable). */
  analytics: ((args: Record<string, unknown>, project: string) => Record<string, unknown>) | null;
  configIssues: () => ConfigIssue[];
  /** The session index of summarised phases (null: the state dir's files are read directly). */
  phases: PhaseIndex | null;
}

/** The engine's options as the actions need them (anything absent: that action is unavailable). */
export function controlDepsOf(opts: { log: (line: string) => void; stateDir: string | null; projectPath?: string; phases?: PhaseIndex; control?: Partial<ControlDeps> }): ControlDeps {
  const c = opts.control;
  return {
    log: opts.log, stateDir: opts.stateDir, projectPath: opts.projectPath ?? '', dashboard: c?.dashboard ?? null,
    analytics: c?.analytics ?? null, configIssues: c?.configIssues ?? (() => []), phases: opts.phases ?? null,
  };
}

const ACTIONS = ['status', 'context', 'stats', 'index', 'recall', 'analytics', 'dashboard', 'sweep', 'manual_set', 'manual_status', 'config', 'help'] as const;

export const CONTROL_HELP: Record<(typeof ACTIONS)[number], string> = {
  status: 'one-line summary: mode, context use, input saved over N model calls, context saved now, tools tracked and pruned',
  context: 'context tokens, window and use of the current session',
  stats: 'context saved (now) and input saved over N model calls, per strategy and per tool; recalls and re-reads',
  index: 'phases summarised by layer 1: this session\'s list; query=words searches (scope=global: all sessions, limit=N); phase=N one phase\'s whole summary; session=ID another session',
  recall: 'the exact original of a shortened tool output: id=<the id a marker prints> [lines=A-B, the lines a marker names]; of a cleared call, its exact arguments; of a summarised phase, its messages a page at a time [messages=A-B; message=N lines=A-B]',
  analytics: `savings history: scope=${SCOPES.join('|')} period=${PERIODS.join('|')} limit=N since=YYYY-MM-DD until=YYYY-MM-DD by=tool|kind|program`,
  dashboard: 'the live dashboard: sub_action (or action) = start | stop | status',
  sweep: 'replace recent tool outputs by a placeholder at the next model call: count=N (default: since the last user message)',
  manual_set: 'enabled=true|false: in manual mode automatic strategies stop (unless manual_mode.automatic_strategies)',
  manual_status: 'whether manual mode is on',
  config: 'problems found in config.yaml (each names its key)',
  help: 'this list',
};

export async function controlAction(engine: ControlTarget, sessionId: string | undefined, args: Record<string, unknown>, deps: ControlDeps): Promise<Record<string, unknown>> {
  const action = String(args.action ?? '').trim().toLowerCase();
  switch (action) {
    case 'help':
      return { actions: CONTROL_HELP };
    case 'config':
      return { issues: deps.configIssues().map((i) => i.message) };
    case 'dashboard':
      return { action: 'dashboard', ...(await dashboardAction(args, deps)) };
    case 'index': {
      // A search across sessions needs no current session.
      const s = engine.resolveSession(sessionId);
      const access: IndexAccess = {
        requester: s ? (engine.ownerOf(s.id) ?? '') : '',
        acrossUsers: engine.config.background_compression.index_across_users,
        ownerOf: (id) => engine.ownerOf(id),
      };
      return indexAction(phaseIndexOf(deps), s?.id ?? null, args, access);
    }
    case 'analytics': {
      if (!deps.analytics) return { error: 'analytics is disabled (analytics.enabled: false)' };
      const s = engine.resolveSession(sessionId);
      return deps.analytics(args, s?.projectPath || deps.projectPath);
    }
    case '':
      return { error: `action is required; one of ${ACTIONS.join(', ')}` };
  }
  if (!(ACTIONS as readonly string[]).includes(action)) return { error: `Unknown action: ${quoted(action)}; one of ${ACTIONS.join(', ')}` };
  const s = engine.resolveSession(sessionId);
  // A brand-new session (nothing held or saved for it yet): say so, never an older session's figures.
  if ((!s || untouched(s)) && action === 'status') return { status: `HMC [${s?.manual ?? engine.config.manual_mode.enabled ? 'manual' : 'auto'}] | no model call in this session yet (figures appear after the first message)` };
  if (!s) return { error: 'Could not determine session for hmc_control (no session has started in this process yet).' };
  engine.settle();
  switch (action) {
    case 'status':
      return { status: statusText(s) + moneyLine(money(engine, s, deps)) + layer1Line(engine, s) };
    case 'context': {
      const t = s.ledger.totals();
      const window = s.contextWindow || 0;
      return {
        session_id: s.id,
        context_tokens_estimate: t.contextTokens,
        context_tokens_raw: t.contextRawTokens,
        context_window: window || null,
        context_usage_percent: window ? round(t.contextTokens / window, 4) : null,
        context_saved_tokens: known(s.ledger.contextSavings()).total,
        input_saved_tokens: t.inputRaw - t.inputHmc,
        model_calls: t.modelCalls,
        tool_calls_tracked: s.records.size,
        pruned_tools: s.pruned.size,
        manual_mode: s.manual,
      };
    }
    case 'stats':
      return { ...statsAnswer(engine, s), money: money(engine, s, deps) };
    case 'recall':
      return recallAction(engine, s, args);
    case 'sweep':
      return sweepAction(s, args);
    case 'manual_status':
      return { manual_mode: s.manual };
    case 'manual_set': {
      const enabled = parseBool(args.enabled);
      if (enabled === null) return { error: `enabled must be true or false, got ${quoted(args.enabled)}` };
      s.manual = enabled;
      return { status: 'ok', manual_mode: s.manual };
    }
  }
  return { error: `Unknown action: ${quoted(action)}` };
}

/** `/hmc <action> key=value…`: the same actions, answered as text for a person. */
export async function commandText(engine: ControlTarget, sessionId: string | undefined, rawArgs: string, deps: ControlDeps): Promise<string> {
  const words = rawArgs.trim().split(/\s+/).filter(Boolean);
  const action = (words.shift() ?? 'status').toLowerCase();
  const args: Record<string, unknown> = { action };
  for (const word of words) {
    const eq = word.indexOf('=');
    // `/hmc index auth bug`, `/hmc index query=auth bug`: bare words are search words.
    if (eq <= 0 && action === 'index') {
      args.query = typeof args.query === 'string' && args.query ? `${args.query} ${word}` : word;
      continue;
    }
    if (eq <= 0) return `hmc: expected key=value, got ${quoted(word)}. Try /hmc help`;
    const key = word.slice(0, eq);
    // `/hmc dashboard action=start`: the documented form; the action word stays "dashboard".
    args[action === 'dashboard' && key === 'action' ? 'sub_action' : key] = word.slice(eq + 1);
  }
  const result = await controlAction(engine, sessionId, args, deps);
  if (action === 'status' && typeof result.status === 'string') return result.status;
  if (action === 'help' && typeof result.actions === 'object') {
    return ['/hmc <action> [key=value…]', ...Object.entries(CONTROL_HELP).map(([k, v]) => `  ${k.padEnd(14)} ${v}`)].join('\n');
  }
  if (action === 'index') return indexText(result);
  if (action === 'dashboard' && typeof result.url === 'string') return `HMC dashboard: ${result.url} (${result.running ? 'running' : 'stopped'})`;
  if (typeof result.error === 'string') return `hmc: ${result.error}`;
  return JSON.stringify(result, null, 2);
}

/** Nothing happened in the session yet: no turn, no tool call, no model call (here or saved). */
/** The session's money, the provider's side from the analytics store when there is one (never failing the answer). */
function money(engine: ControlTarget, s: Session, deps: ControlDeps): SessionMoney {
  let usage: Record<string, unknown> | null = null;
  try {
    usage = deps.analytics ? deps.analytics({ period: 'usage', session: s.id }, s.projectPath || deps.projectPath) : null;
  } catch {
    usage = null;
  }
  return sessionMoney(s, engine.config.pricing, usage && !('error' in usage) ? usage : null);
}

function untouched(s: Session): boolean {
  return s.turn === 0 && s.records.size === 0 && s.ledger.totals().modelCalls === 0;
}

function layer1Stats(engine: ControlTarget, s: Session): Record<string, unknown> {
  const l = engine.layer1.stats(s);
  return { phases: l.phases, passes: l.passes, failures: l.failures, last_failure: l.lastFailure || null, in_progress: l.inFlight, summariser_tokens: { in: l.tokensIn, out: l.tokensOut }, summariser_cost: Math.round(l.spent), declined: l.declined };
}

/** Layer 1 in one line, once it did something: phases, passes, failures, what the summaries cost. */
function layer1Line(engine: ControlTarget, s: Session): string {
  const l = engine.layer1.stats(s);
  if (l.phases === 0 && l.failures === 0 && !l.inFlight) return '';
  const failed = l.failures > 0 ? `, ${l.failures} failed (last: ${l.lastFailure.slice(0, 80)})` : '';
  const busy = l.inFlight ? ', one summary in progress' : '';
  return `\n  layer 1: ${l.phases} phase${l.phases === 1 ? '' : 's'} summarised${failed}${busy}; summariser tokens ${fmt(l.tokensIn)} in, ${fmt(l.tokensOut)} out`;
}

/**
 * The two savings, named as docs/glossary.md names them (issue 17, finding 3: the original's
 * `tokens_saved_estimate` beside `tokens_kept_out_estimate` read as one figure twice): context saved
 * (the context now, against the same context without HMC) and input saved over N model calls.
 */
function statsAnswer(engine: ControlTarget, s: Session): Record<string, unknown> {
  const t = s.ledger.totals();
  const now = known(s.ledger.contextSavings());
  return {
    session_id: s.id,
    context_saved: { tokens: now.total, by_strategy: now.byStrategy, context_tokens: t.contextTokens, context_tokens_raw: t.contextRawTokens },
    input_saved: { tokens: t.inputRaw - t.inputHmc, model_calls: t.modelCalls, by_strategy: t.byStrategy, by_tool: t.byTool, input_tokens: { raw: t.inputRaw, sent: t.inputHmc } },
    work: { recalls: s.work.recalls, rereads: s.work.rereads, elided: s.elidedCount() },
    total_prune_count: s.pruneCount,
    cache_breaks: s.cacheBreaks,
    manual_mode: s.manual,
    background_compression: layer1Stats(engine, s),
  };
}

/**
 * `HMC [auto] | ctx: 42% | input saved: 15.0K tokens over 12 model calls (38.1%) | context saved now:
 * 3.1K tokens | tools: 20 tracked, 4 pruned` + a breakdown line.
 */
export function statusText(s: Session): string {
  const t = s.ledger.totals();
  const saved = t.inputRaw - t.inputHmc;
  const pct = s.contextWindow ? `${Math.round((t.contextTokens / s.contextWindow) * 100)}%` : '--';
  const share = t.inputRaw > 0 ? ` (${((saved / t.inputRaw) * 100).toFixed(1)}%)` : '';
  const calls = `${t.modelCalls} model call${t.modelCalls === 1 ? '' : 's'}`;
  const now = known(s.ledger.contextSavings()).total;
  const context = now === null ? '--' : `${fmt(now)} tokens`;
  const lines = [`HMC [${s.manual ? 'manual' : 'auto'}] | ctx: ${pct} | input saved: ${fmt(saved)} tokens over ${calls}${share} | context saved now: ${context} | tools: ${s.records.size} tracked, ${s.pruneCount} pruned`];
  const parts = Object.entries(t.byStrategy).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k}: ${fmt(v)}`);
  lines.push(`  input saved by strategy: ${parts.length ? parts.join(', ') : 'none yet'}`);
  return lines.join('\n');
}

export function fmt(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(2)}M`;
  if (n >= 1000) return `${(n / 1000).toFixed(1)}K`;
  return String(Math.round(n));
}

async function dashboardAction(args: Record<string, unknown>, deps: ControlDeps): Promise<Record<string, unknown>> {
  // Both spellings work: sub_action=start (the original's code) and action=start as its docs say,
  // given as a nested value once `action` names the dashboard.
  const sub = String(args.sub_action ?? args.command ?? 'status').trim().toLowerCase();
  if (!deps.dashboard) return { sub, running: false, error: 'the dashboard is not available in this process' };
  if (sub === 'start') return { sub, ...(await deps.dashboard.start()) };
  if (sub === 'stop') return { sub, ...(await deps.dashboard.stop()) };
  if (sub !== 'status') return { error: `sub_action must be start, stop or status, got ${quoted(sub)}` };
  return { sub, ...(await deps.dashboard.status()) };
}

/** The runtime's index, else the state dir's files read directly (a bare engine), else none. */
function phaseIndexOf(deps: ControlDeps): PhaseIndex {
  if (deps.phases) return deps.phases;
  return deps.stateDir ? createPhaseIndex({ stateDir: deps.stateDir, log: deps.log }) : NULL_PHASE_INDEX;
}

/** The kept original (or the lines a marker names) of one of this session's outputs; never another session's. */
function recallAction(engine: ControlTarget, s: Session, args: Record<string, unknown>): Record<string, unknown> {
  const id = String(args.id ?? '').trim();
  if (!id) return { error: 'id is required: the id a marker prints, e.g. recall id=r0123456789' };
  // A recall reads only the session it is asked from (never another session's data); a person
  // reads another one's copies from a terminal (issue 17, finding 5: session= was ignored).
  const other = typeof args.session === 'string' && args.session.trim() !== '' && args.session.trim() !== s.id ? args.session.trim() : null;
  const elsewhere = `\`hmc control recall id=${id.slice(0, 40)} --session <its id>\` in a terminal (in Hermes: \`hermes hmc control …\`) reads another session's copy`;
  if (other) return { error: `recall reads only this session (${s.id}), not session=${other.slice(0, 80)}; ${elsewhere}` };
  const entry = engine.recall.get(s.id, id);
  if (!entry) return { error: `nothing is kept under id ${JSON.stringify(id.slice(0, 40))} for this session (copies are kept for 7 days); ${elsewhere}` };
  // A layer-1 phase: the exact messages its summary stands for, a page at a time.
  if (entry.tool === '(phase)') return phaseRecall(id, JSON.parse(entry.content) as unknown[], args);
  // A cleared call's arguments: the exact text the call was made with (a JSON object).
  if (entry.tool.startsWith(ARGUMENTS_TOOL_PREFIX)) return { id, tool: entry.tool.slice(ARGUMENTS_TOOL_PREFIX.length), arguments: entry.content };
  if (args.lines === undefined || args.lines === null || args.lines === '') return { id, tool: entry.tool, content: entry.content };
  const range = parseRange(args.lines);
  if (!range) return { error: `lines must look like 41-160 (or one line number), got ${JSON.stringify(String(args.lines).slice(0, 40))}` };
  // Marker line numbers count the lines of the text inside the tool's envelope.
  const text = parseEnvelope(entry.content, { tool: entry.tool, args: {} }).rawLines.join('\n');
  const part = lineRange(text, range[0], range[1]);
  return { id, tool: entry.tool, lines: `${part.from}-${part.to}`, total_lines: part.total, content: part.text };
}

/**
 * A phase's messages fit in one answer only when small: a host cuts a long tool result (Hermes
 * keeps 15% of a small window, 38,400 characters of a 64 K one), which would lose the very
 * messages asked for. So an answer holds whole messages up to PHASE_PAGE_CHARS and says how to ask
 * for the next ones (`messages=A-B`); one message bigger than a page is read by its lines
 * (`message=N lines=A-B`). Every message given back is exact.
 */
export const PHASE_PAGE_CHARS = 24_000;

function phaseRecall(id: string, messages: unknown[], args: Record<string, unknown>): Record<string, unknown> {
  const total = messages.length;
  const given = (v: unknown): boolean => v !== undefined && v !== null && v !== '';
  if (given(args.message)) {
    const n = Number(args.message);
    if (!Number.isInteger(n) || n < 1 || n > total) return { error: `message must be a number from 1 to ${total}, got ${quoted(args.message)}` };
    const m = messages[n - 1] as Record<string, unknown>;
    const content = typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? null);
    const range: [number, number] | null = given(args.lines) ? parseRange(args.lines) : [1, Number.MAX_SAFE_INTEGER];
    if (!range) return { error: `lines must look like 41-160 (or one line number), got ${quoted(args.lines)}` };
    const part = lineRange(content, range[0], pageEnd(content, range[0], range[1]));
    const more = part.to < part.total ? { next: `recall id=${id} message=${n} lines=${part.to + 1}-${part.total}` } : {};
    const fields = Object.fromEntries(Object.entries(m).filter(([k]) => k !== 'content'));
    return { id, phase: true, total_messages: total, message: n, ...fields, lines: `${part.from}-${part.to}`, total_lines: part.total, content: part.text, ...more };
  }
  if (total === 0) return { id, phase: true, total_messages: 0, messages: [] };
  const range: [number, number] | null = given(args.messages) ? parseRange(args.messages) : [1, total];
  if (!range) return { error: `messages must look like 1-20 (or one message number), got ${quoted(args.messages)}` };
  const from = Math.min(range[0], total);
  const last = Math.min(range[1], total);
  const page: unknown[] = [];
  let size = 0;
  for (let i = from; i <= last; i++) {
    const length = answerChars(JSON.stringify(messages[i - 1]));
    if (page.length > 0 && size + length > PHASE_PAGE_CHARS) break;
    if (length > PHASE_PAGE_CHARS) {
      if (page.length > 0) break;
      // Too big for one answer alone: read it by its lines.
      const m = messages[i - 1] as Record<string, unknown>;
      const content = typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? null);
      return { id, phase: true, total_messages: total, messages: [], next: `recall id=${id} message=${i} lines=1-${pageEnd(content, 1, Number.MAX_SAFE_INTEGER)}` };
    }
    page.push(messages[i - 1]);
    size += length;
  }
  const to = from + page.length - 1;
  const more = to < last ? { next: `recall id=${id} messages=${to + 1}-${last}` } : {};
  return { id, phase: true, total_messages: total, shown: `${from}-${to}`, messages: page, ...more };
}

/** Characters of JSON text once a host escapes it to ASCII (Hermes: `json.dumps`, each UTF-16 unit beyond ASCII six characters). */
function answerChars(json: string): number {
  let wide = 0;
  for (let i = 0; i < json.length; i++) if (json.charCodeAt(i) > 0x7f) wide++;
  return json.length + 5 * wide;
}

/** The last line from `from` on that keeps the text within one page (at least `from` itself). */
function pageEnd(text: string, from: number, to: number): number {
  const lines = text.split('\n');
  let size = 0;
  let end = from;
  for (let i = from; i <= Math.min(to, lines.length); i++) {
    size += answerChars(JSON.stringify(lines[i - 1] as string));
    if (size > PHASE_PAGE_CHARS && i > from) break;
    end = i;
  }
  return end;
}

function parseRange(value: unknown): [number, number] | null {
  const m = /^\s*(\d+)\s*(?:[-–:]\s*(\d+))?\s*$/.exec(String(value));
  if (!m) return null;
  const from = Number(m[1]);
  const to = m[2] === undefined ? from : Number(m[2]);
  return from >= 1 && to >= from ? [from, to] : null;
}

function sweepAction(s: Session, args: Record<string, unknown>): Record<string, unknown> {
  const count = parseCount(args.count);
  if (count === null) return { error: `count must be a whole number of 0 or more, got ${quoted(args.count)}` };
  const tools = s.messages.filter((m) => m.role === 'tool');
  let candidates: string[];
  if (count > 0) candidates = tools.slice(-count).map((m) => m.key);
  else {
    let lastUser = -1;
    s.messages.forEach((m, i) => {
      if (m.role === 'user') lastUser = i;
    });
    candidates = s.messages.filter((m, i) => m.role === 'tool' && i > lastUser).map((m) => m.key);
  }
  // Results that arrived after the last model call are not in the conversation yet: use the records.
  if (candidates.length === 0 && count === 0) candidates = [...s.records].filter(([, r]) => r.turn === s.turn).map(([k]) => k);
  let swept = 0;
  for (const key of candidates) {
    const tool = (s.messages.find((m) => m.key === key)?.tool ?? s.records.get(key)?.tool ?? '').toLowerCase();
    if (tool === 'hmc_control' || s.swept.has(key) || s.pruned.has(key)) continue;
    s.swept.add(key);
    swept++;
  }
  if (swept > 0) s.sweepPending = true;
  return { status: 'ok', swept };
}

/**
 * The context savings to show: with their breakdown, or neither when only an old session file's
 * total is known (then the figures return at the next model call in this process).
 */
function known(now: { total: number; byStrategy: Saved | null }): { total: number | null; byStrategy: Saved | null } {
  return now.byStrategy === null ? { total: null, byStrategy: null } : now;
}

/**
 * A value from the user, quoted for an error message and cut at 60 characters (issue 11: a 100 KB
 * unknown action was echoed back whole).
 */
export function quoted(value: unknown, max = 60): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text) + (text.length > max ? ` (${text.length} characters)` : '');
}

export function parseBool(value: unknown): boolean | null {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') {
    const v = value.trim().toLowerCase();
    if (['true', 'yes', 'on', '1'].includes(v)) return true;
    if (['false', 'no', 'off', '0'].includes(v)) return false;
  }
  return null;
}

function parseCount(value: unknown): number | null {
  if (value === undefined || value === null || value === '') return 0;
  const n = typeof value === 'string' ? Number(value.trim()) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : null;
}

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}
