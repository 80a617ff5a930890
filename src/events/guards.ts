/**
 * Guards for events and inspector records read back from JSON lines (the state dir is shared by
 * several processes and may hold truncated or foreign lines).
 *
 * Invariant: nothing parsed from disk is used before one of these guards accepts it; a line that
 * fails a guard is skipped, never cast.
 */
import type { InputTokens } from '../core/savings.js';
import type { HmcEvent, InspectRecord } from './types.js';

type Obj = Record<string, unknown>;

export function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isStr = (v: unknown): v is string => typeof v === 'string';

export function isNumberRecord(v: unknown): v is Record<string, number> {
  return isObject(v) && Object.values(v).every(isNum);
}

function isInput(v: unknown): v is InputTokens {
  return isObject(v) && isNum(v.raw) && isNum(v.hmc);
}

/** Absent, or a share of the window (0..1]: the turn event's thresholds. */
function optionalShare(v: unknown): boolean {
  return v === undefined || (isNum(v) && v > 0 && v <= 1);
}

function hasBase(v: Obj): boolean {
  return isStr(v.id) && isStr(v.source) && isNum(v.time) && isStr(v.session_id);
}

/** True when `v` is a complete turn, tool, session_end, session_idle or phase event. */
export function isHmcEvent(v: unknown): v is HmcEvent {
  if (!isObject(v) || !hasBase(v)) return false;
  switch (v.type) {
    case 'turn':
      return (
        isNum(v.turn) &&
        isStr(v.model) &&
        isStr(v.platform) &&
        isStr(v.project_path) &&
        isNum(v.context_tokens) &&
        isNum(v.context_window) &&
        isNum(v.context_percent) &&
        isNum(v.delta_saved) &&
        isNum(v.cumulative_saved) &&
        isNumberRecord(v.by_strategy) &&
        isNumberRecord(v.by_tool) &&
        isInput(v.input_tokens) &&
        isNum(v.tool_calls) &&
        isNum(v.cache_breaks) &&
        optionalShare(v.summarise_at) &&
        optionalShare(v.host_compress_at)
      );
    case 'tool':
      return (
        isNum(v.turn) &&
        isStr(v.tool_name) &&
        isStr(v.tool_call_id) &&
        typeof v.is_error === 'boolean' &&
        isNum(v.tokens_before) &&
        isNum(v.tokens_after) &&
        Array.isArray(v.strategies) &&
        v.strategies.every(isStr) &&
        isNum(v.delta_saved) &&
        isNum(v.cumulative_saved) &&
        isNumberRecord(v.by_strategy) &&
        isNum(v.context_tokens) &&
        isNum(v.context_percent) &&
        (v.inspect_id === undefined || isStr(v.inspect_id))
      );
    case 'session_end':
    case 'session_idle':
      return (
        isNum(v.turns) &&
        isNum(v.tool_calls) &&
        isNum(v.total_saved) &&
        isNumberRecord(v.by_strategy) &&
        isNumberRecord(v.by_tool) &&
        isInput(v.input_tokens)
      );
    case 'phase':
      return (
        isNum(v.phase_id) &&
        isStr(v.topic) &&
        isNum(v.turn_from) &&
        isNum(v.turn_to) &&
        isNum(v.tokens_before) &&
        isNum(v.tokens_after) &&
        isStr(v.recall_id) &&
        typeof v.updated === 'boolean'
      );
    default:
      return false;
  }
}

/** True when `v` is a complete inspector record. */
export function isInspectRecord(v: unknown): v is InspectRecord {
  return (
    isObject(v) &&
    isStr(v.id) &&
    isStr(v.session_id) &&
    isStr(v.tool_call_id) &&
    isStr(v.tool_name) &&
    isNum(v.time) &&
    Array.isArray(v.strategies) &&
    v.strategies.every(isStr) &&
    isNum(v.tokens_before) &&
    isNum(v.tokens_after) &&
    isStr(v.before) &&
    isStr(v.after) &&
    typeof v.before_truncated === 'boolean'
  );
}

/** Parses one JSON line; undefined when it is not JSON (a partial or corrupt line). */
export function parseLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
