/**
 * Compresses one tool output when it first appears: the registry's single-output strategies in
 * order (short-circuit, code filter, truncation), each inside the tool's envelope. A strategy whose
 * answer replaces the whole text ends the chain when it is kept; one that keeps lines plans over
 * what the ones before it kept. The result lists every step so savings can be credited per
 * strategy without double counting.
 *
 * Invariants (DESIGN §4): protected tools and files pass through; each step is kept only when it
 * makes the output shorter; a failing strategy is skipped (logged once), never fatal.
 */
import type { HmcConfig } from '../../config/keys.js';
import { errorText } from '../../core/errors.js';
import type { LinePlanItem, OutputKind, StrategyResult, ToolOutput } from '../../core/strategy.js';
import { SINGLE_STRATEGIES, type StrategyName } from '../../strategies/index.js';
import { parseEnvelope, type CallInfo, type Envelope } from '../../hosts/outputs/envelope.js';
import { isShorter } from '../../core/tokens.js';
import type { Protection } from '../session/protection.js';
import type { Compression, CompressStep } from '../session/held.js';

export interface CompressContext {
  config: HmcConfig;
  protection: Protection;
  /** The session is in manual mode (automatic strategies may be off). */
  manual: boolean;
  log: (line: string) => void;
  /**
   * The recall id this output is kept under (DESIGN §6): markers of anything but a file read name it
   * with the lines they stand for. Absent where nothing is kept (e.g. `hmc filter`).
   */
  recallId?: string;
  /**
   * The envelope of this same raw text and call, parsed on the first question and shared with the
   * other reader of the output (post_tool_call: the work tally, session/work.ts). Absent: parsed here.
   */
  envelope?: () => Envelope;
}

export function compressOutput(raw: string, call: CallInfo, ctx: CompressContext): Compression {
  const { config } = ctx;
  const none = (isError: boolean, kind: OutputKind): Compression => ({ raw, content: raw, steps: [], isError, kind });
  if (!config.enabled || raw.length === 0) return none(call.hostError === true, 'text');
  const env = ctx.envelope ? ctx.envelope() : parseEnvelope(raw, call);
  const output = env.output;
  if (ctx.protection.tool(call.tool) || ctx.protection.file(output.path)) return none(output.isError, output.kind);
  if (ctx.manual && !config.manual_mode.automatic_strategies) return none(output.isError, output.kind);

  const steps: CompressStep[] = [];
  let best = raw;
  const keep = (strategy: StrategyName, content: string): void => {
    if (isShorter(content, best)) {
      steps.push({ strategy, content });
      best = content;
    }
  };

  // A file read is recovered by reading the file again; anything else by its recall id.
  const recall = output.kind === 'file' ? undefined : ctx.recallId;
  let plan: LinePlanItem[] | null = null;
  let current: ToolOutput = output;
  for (const strategy of SINGLE_STRATEGIES) {
    if (!strategy.enabled(config)) continue;
    const weights = plan ? planWeights(plan, output.lines.length) : undefined;
    const result = run(strategy.name, () => strategy.run(current, config, weights), ctx);
    if (result.kind === 'text') {
      const before = steps.length;
      keep(strategy.name, env.withText(recall ? `${result.text} ${recallNote(recall)}` : result.text));
      if (steps.length > before) break;
    } else if (result.kind === 'lines') {
      plan = plan ? compose(plan, result.lines) : result.lines;
      keep(strategy.name, env.withPlan(recall ? withRecall(plan, recall, output.lines.length) : plan));
      current = planned(output, plan);
    }
  }
  return { raw, content: best, steps, isError: output.isError, kind: output.kind };
}

/** The output a later strategy sees after an earlier plan: kept lines and markers as lines. */
function planned(output: ToolOutput, plan: readonly LinePlanItem[]): ToolOutput {
  const lines = plan.map((item) => (typeof item === 'number' ? (output.lines[item] as string) : item.marker));
  return { ...output, lines, text: lines.join('\n') };
}

/**
 * How many original lines each line of a planned output stands for: a kept line 1, a marker the
 * lines between its kept neighbours (so a later strategy's gap marker counts original lines).
 */
export function planWeights(plan: readonly LinePlanItem[], lineCount: number): number[] {
  const weights = plan.map(() => 1);
  let prevKept = -1;
  let firstMarker = -1;
  const settle = (nextKept: number): void => {
    if (firstMarker >= 0) weights[firstMarker] = Math.max(0, nextKept - prevKept - 1);
    firstMarker = -1;
  };
  plan.forEach((item, k) => {
    if (typeof item === 'number') {
      settle(item);
      prevKept = item;
    } else if (firstMarker < 0) firstMarker = k;
    else weights[k] = 0; // a second marker in the same gap: the first one already counts it
  });
  settle(lineCount);
  return weights;
}

/** A plan over a planned output, expressed over the original lines. */
export function compose(first: readonly LinePlanItem[], second: readonly LinePlanItem[]): LinePlanItem[] {
  return second.map((item) => (typeof item === 'number' ? (first[item] as LinePlanItem) : item));
}

/** How a marker names what it stands for: `(recall id=r… lines=41-160)`. */
export function recallNote(id: string, from?: number, to?: number): string {
  return from !== undefined && to !== undefined ? `(recall id=${id} lines=${from}-${to})` : `(recall id=${id})`;
}

/**
 * The plan with each run of markers naming the input lines it stands for (1-based, inclusive), so
 * `hmc_control action=recall` can give exactly those lines back. A marker never claims a line
 * that is kept.
 */
export function withRecall(plan: readonly LinePlanItem[], id: string, lineCount: number): LinePlanItem[] {
  const out: LinePlanItem[] = [];
  let lastKept = -1;
  for (let k = 0; k < plan.length; k++) {
    const item = plan[k] as LinePlanItem;
    if (typeof item === 'number') {
      lastKept = item;
      out.push(item);
      continue;
    }
    const next = plan[k + 1];
    if (next !== undefined && typeof next !== 'number') {
      out.push(item);
      continue;
    }
    const nextKept = next ?? lineCount;
    const from = lastKept + 2;
    const to = nextKept;
    out.push(to >= from ? { marker: `${item.marker} ${recallNote(id, from, to)}` } : item);
  }
  return out;
}

const reported = new Set<string>();

function run(name: StrategyName, fn: () => StrategyResult, ctx: CompressContext): StrategyResult {
  try {
    const result = fn();
    return isValidResult(result) ? result : { kind: 'skipped', reason: 'invalid result' };
  } catch (err) {
    const message = errorText(err);
    if (!reported.has(name + message)) {
      reported.add(name + message);
      ctx.log(`hmc: strategy ${name} failed and was skipped: ${message}`);
    }
    return { kind: 'skipped', reason: `failed: ${message}` };
  }
}

function isValidResult(result: StrategyResult): boolean {
  if (result.kind !== 'lines') return true;
  let last = -1;
  for (const item of result.lines) {
    if (typeof item === 'number') {
      if (!Number.isInteger(item) || item <= last) return false;
      last = item;
    } else if (typeof item.marker !== 'string') return false;
  }
  return true;
}
