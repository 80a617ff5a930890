/**
 * The `hmc_control` actions (reference §7.7: status, context, stats, index, analytics, dashboard,
 * sweep, manual_set, manual_status; plus help and config) and the `/hmc` slash command over them.
 * JSON shapes follow the original; its bugs are fixed (`manual_set enabled:"false"` turns manual
 * mode off, numbers given as strings work, a bad value is an error naming it, never a throw).
 * The status line and the stats answer are built in control-status.ts.
 */
import type { ConfigIssue, HmcConfig } from '../../config/keys.js';
import { problemsLine } from '../../config/problems.js';
import { moneyLine, sessionMoney, type SessionMoney } from './money.js';
import { PERIODS, SCOPES } from '../../store/action.js';
import { createPhaseIndex } from '../../store/phase-index.js';
import { NULL_PHASE_INDEX, type PhaseIndex } from '../../store/phase-types.js';
import { indexAction } from './control-index.js';
import { contextBreakdownAnswer } from './control-context.js';
import { controlText } from './control-text.js';
import { analyticsOwner, type IndexAccess } from '../session/owner.js';
import type { Layer1 } from '../layer1/layer1.js';
import type { RecallStore } from '../session/recall.js';
import { quoted, recallAction } from './control-recall.js';
import { known, statsAnswer, statusText, untouched } from './control-status.js';
import type { Session } from '../session/session.js';

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
  /** How many owners the sessions held in this process have (a gateway: one per user). */
  ownersHeld(): number;
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
  /**
   * Answers `analytics` (null when analytics is off or unavailable); `owner` given: only that
   * owner's sessions (a gateway user asking; owner.ts), absent: every session.
   */
  analytics: ((args: Record<string, unknown>, project: string, owner?: string) => Record<string, unknown>) | null;
  configIssues: () => ConfigIssue[];
  /** The config file in use (named in the problems line), null when none. */
  configFile: string | null;
  /** The session index of summarised phases (null: the state dir's files are read directly). */
  phases: PhaseIndex | null;
  /** The caller is the machine's owner at a terminal (`hmc control`): every session is theirs to read. */
  machine: boolean;
}

/** The engine's options as the actions need them (anything absent: that action is unavailable). */
export function controlDepsOf(opts: {
  log: (line: string) => void;
  stateDir: string | null;
  projectPath?: string;
  phases?: PhaseIndex;
  control?: Partial<ControlDeps>;
}): ControlDeps {
  const c = opts.control;
  return {
    log: opts.log,
    stateDir: opts.stateDir,
    projectPath: opts.projectPath ?? '',
    dashboard: c?.dashboard ?? null,
    analytics: c?.analytics ?? null,
    configIssues: c?.configIssues ?? (() => []),
    configFile: c?.configFile ?? null,
    phases: opts.phases ?? null,
    machine: c?.machine ?? false,
  };
}

const ACTIONS = [
  'status',
  'context',
  'stats',
  'index',
  'recall',
  'analytics',
  'dashboard',
  'sweep',
  'manual_set',
  'manual_status',
  'config',
  'help',
] as const;

export const CONTROL_HELP: Record<(typeof ACTIONS)[number], string> = {
  status:
    'one-line summary: mode, context use, input saved over N model calls, context saved now, tools tracked and pruned',
  context:
    'context tokens, window and use of the current session, and where they go: the latest request by part (system prompt, tool schemas per tool with their calls over days=N, default 30, tool outputs, tool-call arguments, user, assistant), raw and sent; advice',
  stats: 'context saved (now) and input saved over N model calls, per strategy and per tool; recalls and re-reads',
  index:
    "phases summarised by layer 1: this session's list; query=words searches (scope=global: all sessions, limit=N); phase=N one phase's whole summary; session=ID another session",
  recall:
    'the exact original of a shortened tool output: id=<the id a marker prints> [lines=A-B, the lines a marker names]; of a cleared call, its exact arguments; of a summarised phase, its messages a page at a time [messages=A-B; message=N lines=A-B]',
  analytics: `savings history: scope=${SCOPES.join('|')} period=${PERIODS.join('|')} limit=N since=YYYY-MM-DD until=YYYY-MM-DD by=tool|kind|program`,
  dashboard: 'the live dashboard: sub_action (or action) = start | stop | status',
  sweep:
    'replace recent tool outputs by a placeholder at the next model call: count=N (default: since the last user message)',
  manual_set: 'enabled=true|false: in manual mode automatic strategies stop (unless manual_mode.automatic_strategies)',
  manual_status: 'whether manual mode is on',
  config: 'problems found in config.yaml (each names its key)',
  help: 'this list',
};

export async function controlAction(
  engine: ControlTarget,
  sessionId: string | undefined,
  args: Record<string, unknown>,
  deps: ControlDeps,
): Promise<Record<string, unknown>> {
  const action = String(args.action ?? '')
    .trim()
    .toLowerCase();
  switch (action) {
    case 'help':
      return { actions: CONTROL_HELP };
    case 'config':
      return {
        issues: deps.configIssues().map((i) => i.message),
        summary: problemsLine(deps.configIssues(), deps.configFile),
      };
    case 'dashboard':
      return { action: 'dashboard', ...(await dashboardAction(args, deps)) };
    case 'index': {
      // A search across sessions needs no current session.
      const s = engine.resolveSession(sessionId);
      return indexAction(phaseIndexOf(deps), s?.id ?? null, args, accessOf(engine, s, deps));
    }
    case 'analytics': {
      if (!deps.analytics) return { error: 'analytics is disabled (analytics.enabled: false)' };
      const s = engine.resolveSession(sessionId);
      // Who asks is unknown (no session named, several users served here): nobody's figures.
      if (!s && !deps.machine && engine.ownersHeld() > 1) return { error: UNKNOWN_ASKER };
      const owner = analyticsOwner(accessOf(engine, s, deps));
      return deps.analytics(args, s?.meta.projectPath || deps.projectPath, ...(owner !== undefined ? [owner] : []));
    }
    case '':
      return { error: `action is required; one of ${ACTIONS.join(', ')}` };
  }
  if (!(ACTIONS as readonly string[]).includes(action))
    return { error: `Unknown action: ${quoted(action)}; one of ${ACTIONS.join(', ')}` };
  const s = engine.resolveSession(sessionId);
  if ((!s || untouched(s)) && action === 'status') return { status: statusText(engine, s) };
  if (!s) return { error: 'Could not determine session for hmc_control (no session has started in this process yet).' };
  engine.settle();
  switch (action) {
    case 'status':
      return { status: statusText(engine, s) + moneyLine(money(engine, s, deps)) };
    case 'context': {
      const t = s.ledger.totals();
      const window = s.meta.contextWindow || 0;
      const other = typeof args.session === 'string' && args.session.trim() !== '' && args.session.trim() !== s.id;
      if (other)
        return {
          error: `context shows this session only; \`hmc control context --session ${quoted(String(args.session).trim(), 40)}\` in a terminal reads another saved one`,
        };
      const breakdown = contextBreakdownAnswer(s, args, deps.analytics);
      if (typeof breakdown.error === 'string') return breakdown;
      return {
        session_id: s.id,
        context_tokens_estimate: t.contextTokens,
        context_tokens_raw: t.contextRawTokens,
        context_window: window || null,
        context_usage_percent: window ? round(t.contextTokens / window, 4) : null,
        context_saved_tokens: known(s.ledger.contextSavings()).total,
        input_saved_tokens: t.inputRaw - t.inputHmc,
        model_calls: t.modelCalls,
        tool_calls_tracked: s.held.records.size,
        pruned_tools: s.pruning.pruned.size,
        manual_mode: s.meta.manual,
        ...breakdown,
      };
    }
    case 'stats':
      return { ...statsAnswer(engine, s), money: money(engine, s, deps) };
    case 'recall':
      return recallAction(engine.recall, s, args);
    case 'sweep':
      return sweepAction(s, args);
    case 'manual_status':
      return { manual_mode: s.meta.manual };
    case 'manual_set': {
      const enabled = parseBool(args.enabled);
      if (enabled === null) return { error: `enabled must be true or false, got ${quoted(args.enabled)}` };
      s.meta.switchManual(enabled);
      return { status: 'ok', manual_mode: s.meta.manual };
    }
  }
  return { error: `Unknown action: ${quoted(action)}` };
}

/**
 * `/hmc <action> key=value… [--json]`: the same actions, answered as text for a person
 * (control-text.ts); `--json` anywhere among the words answers the JSON the tool gives the model.
 */
export async function commandText(
  engine: ControlTarget,
  sessionId: string | undefined,
  rawArgs: string,
  deps: ControlDeps,
): Promise<string> {
  const all = rawArgs.trim().split(/\s+/).filter(Boolean);
  const json = all.includes('--json');
  const words = all.filter((w) => w !== '--json');
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
  if (json) return JSON.stringify(result, null, 2);
  const text = controlText(action, result, '/hmc', CONTROL_HELP);
  return action === 'status' && typeof result.status === 'string' ? text + configLine(deps) : text;
}

/** The config's problems under `/hmc status` for the person reading it (issue 27, finding 2). */
function configLine(deps: ControlDeps): string {
  const line = problemsLine(deps.configIssues(), deps.configFile);
  return line ? `\n  ${line}` : '';
}

const UNKNOWN_ASKER =
  'analytics answers for the session it is asked from, and this call names none while this process serves several users; ask from a session, or run `hmc analytics` in a terminal';

/**
 * Who asks (the owner of the session the call comes from; owner.ts) and how others' owners are
 * found; the machine's owner at a terminal reads every session.
 */
function accessOf(engine: ControlTarget, s: Session | null, deps: ControlDeps): IndexAccess {
  if (deps.machine) return { requester: '', acrossUsers: true, ownerOf: (id) => engine.ownerOf(id) };
  return {
    requester: s ? (engine.ownerOf(s.id) ?? '') : '',
    acrossUsers: engine.config.background_compression.index_across_users,
    ownerOf: (id) => engine.ownerOf(id),
  };
}

/** The session's money, the provider's side from the analytics store when there is one (never failing the answer). */
function money(engine: ControlTarget, s: Session, deps: ControlDeps): SessionMoney {
  let usage: Record<string, unknown> | null = null;
  try {
    usage = deps.analytics
      ? deps.analytics({ period: 'usage', session: s.id }, s.meta.projectPath || deps.projectPath)
      : null;
  } catch {
    usage = null;
  }
  return sessionMoney(s, engine.config.pricing, usage && !('error' in usage) ? usage : null);
}

async function dashboardAction(args: Record<string, unknown>, deps: ControlDeps): Promise<Record<string, unknown>> {
  // Both spellings work: sub_action=start (the original's code) and action=start as its docs say,
  // given as a nested value once `action` names the dashboard.
  const sub = String(args.sub_action ?? args.command ?? 'status')
    .trim()
    .toLowerCase();
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

function sweepAction(s: Session, args: Record<string, unknown>): Record<string, unknown> {
  const count = parseCount(args.count);
  if (count === null) return { error: `count must be a whole number of 0 or more, got ${quoted(args.count)}` };
  const tools = s.held.messages.filter((m) => m.role === 'tool');
  let candidates: string[];
  if (count > 0) candidates = tools.slice(-count).map((m) => m.key);
  else {
    let lastUser = -1;
    s.held.messages.forEach((m, i) => {
      if (m.role === 'user') lastUser = i;
    });
    candidates = s.held.messages.filter((m, i) => m.role === 'tool' && i > lastUser).map((m) => m.key);
  }
  // Results that arrived after the last model call are not in the conversation yet: use the records.
  if (candidates.length === 0 && count === 0)
    candidates = [...s.held.records].filter(([, r]) => r.turn === s.counts.turn).map(([k]) => k);
  const sweep = new Set<string>();
  for (const key of candidates) {
    const tool = (
      s.held.messages.find((m) => m.key === key)?.tool ??
      s.held.records.get(key)?.tool ??
      ''
    ).toLowerCase();
    if (tool === 'hmc_control' || s.pruning.swept.has(key) || sweep.has(key) || s.pruning.pruned.has(key)) continue;
    sweep.add(key);
  }
  s.pruning.requestSweep([...sweep]);
  return { status: 'ok', swept: sweep.size };
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
