/**
 * What HMC takes from Hermes' own config.yaml: the model's window (`model.context_length`) and
 * where Hermes' compressor fires (`compression.threshold`, a share of the window; none when
 * `compression.enabled` is off). The bridge names the file in its `hello`; the answer carries
 * these figures back, and the bridge sends them with every `pre_llm_call` and `pre_model_call`
 * (layer 1 fires below Hermes' threshold, docs/hermes.md "Layer 1 beside Hermes' compressor").
 * Hermes' own floors on that share (a small window, a 64 K minimum) differ by version and are
 * applied by the bridge with Hermes' own code.
 *
 * Invariant: never throws. A missing, unreadable or broken file gives no window and the default
 * share; a value of the wrong kind is ignored, never guessed from.
 */
import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import type { HostConfigFacts } from '../../core/host-api.js';

/** Hermes' default `compression.threshold`. */
export const HERMES_DEFAULT_THRESHOLD = 0.5;

/** `model.context_length` and `compression.threshold` (absent when the compressor is off). */
export type HermesConfigFacts = HostConfigFacts;

const OFF = /^(false|no|off)$/i; // Hermes reads its YAML as 1.1: no and off are false too

/** The facts of one config file's text (null: no file). */
export function parseHermesConfig(text: string | null): HermesConfigFacts {
  let doc: unknown = null;
  try {
    // As Hermes' YAML reader does: a repeated key takes the last value; a syntax error, nothing.
    const parsed = text === null ? null : parseDocument(text, { uniqueKeys: false });
    doc = parsed && parsed.errors.length === 0 ? parsed.toJS() : null;
  } catch {
    doc = null;
  }
  const facts: HermesConfigFacts = {};
  const model = field(doc, 'model');
  const window = field(model, 'context_length');
  if (typeof window === 'number' && Number.isInteger(window) && window > 0) facts.context_length = window;
  const compression = field(doc, 'compression');
  const enabled = field(compression, 'enabled');
  if (enabled === false || (typeof enabled === 'string' && OFF.test(enabled.trim()))) return facts;
  const share = field(compression, 'threshold');
  facts.compression_threshold = typeof share === 'number' && share > 0 && share <= 1 ? share : HERMES_DEFAULT_THRESHOLD;
  return facts;
}

/** The facts of the config file at `path`, read now. */
export function readHermesConfig(path: string): HermesConfigFacts {
  let text: string | null = null;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    text = null;
  }
  return parseHermesConfig(text);
}

/** `value[key]` when `value` is a mapping that has it (never an inherited property). */
function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, key)
    ? Reflect.get(value, key)
    : undefined;
}
