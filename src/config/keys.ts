/**
 * Every config key in one table: its path, default, validator and one line of documentation.
 * Defaults, validation and the docs in `config.yaml.example` all come from here (STYLE 11).
 *
 * Invariant: a bad value is reported with its key's path and falls back to that key's default
 * alone; nothing here throws.
 */
import { LANGUAGES } from '../core/languages.js';

export interface HmcConfig {
  /** Master switch: false turns every strategy, rewrite and recording off (pass-through). */
  enabled: boolean;
  /** Verbose logging to the sidecar log. */
  debug: boolean;
  manual_mode: {
    /** New sessions start in manual mode. */
    enabled: boolean;
    /** In manual mode, still run code filter, dedup and error purge automatically. */
    automatic_strategies: boolean;
  };
  compress: {
    /** Layer 1 fires at the lower of this context use (0..1) and threshold_share of the host threshold. */
    max_context_percent: number;
    /** The original's layer-1 target; accepted, not used. */
    min_context_percent: number;
    /** Tools whose outputs are never touched by any strategy (besides write_file and patch). */
    protected_tools: string[];
  };
  strategies: {
    deduplication: {
      enabled: boolean;
      /** Tools never deduplicated. */
      protected_tools: string[];
      /** Also collapse near-identical outputs (timestamps, UUIDs, hashes, temp paths normalised). */
      normalize: boolean;
    };
    purge_errors: {
      enabled: boolean;
      /** A failed output older than this many user turns becomes a one-line placeholder. */
      turns: number;
      protected_tools: string[];
    };
    stale_reads: {
      /** Replace a file read the file later superseded (re-read, rewritten, patched) by a marker. */
      enabled: boolean;
    };
    clearing: {
      /** Clear old tool outputs once the context passes `trigger_percent` of the window. */
      enabled: boolean;
      /** Context use (0..1 of the window) above which old outputs are cleared. */
      trigger_percent: number;
      /** Context use (0..1 of the window) clearing brings it down to, oldest outputs first. */
      target_percent: number;
      /** The most recent tool results never cleared. */
      keep: number;
      /** Tools whose outputs are never cleared. */
      exclude_tools: string[];
    };
  };
  truncation: {
    enabled: boolean;
    /** Outputs longer than this many lines are cut to head + tail. */
    max_lines: number;
    head_lines: number;
    tail_lines: number;
    /** Outputs shorter than this many characters are never truncated. */
    min_content_length: number;
    /** Keep lines that matter (errors, failures, file:line locations, summaries) from the cut middle. */
    keep_important: boolean;
    /** At most this many important lines are kept from the middle. */
    max_important_lines: number;
    /** Search listings and documents (web pages, docs, help, reports) up to this many characters are never cut. */
    keep_whole_chars: number;
  };
  short_circuits: {
    enabled: boolean;
  };
  background_compression: {
    /** Layer 1: summaries of finished work by the host's auxiliary model (or `endpoint`). */
    enabled: boolean;
    /** The last user turns never summarised. */
    protect_recent_turns: number;
    /** In a long tool loop, the last model calls of the current turn never summarised. */
    protect_recent_calls: number;
    /** Fire at this share of the host's own compression threshold (Hermes: compression.threshold), so HMC's pass comes first. */
    threshold_share: number;
    /** The host's compression threshold (0..1 of the window) when the host does not say. */
    host_threshold: number;
    /** The most tokens one summary may take. */
    max_summary_tokens: number;
    /** A summary call that takes longer fails (seconds). */
    timeout_seconds: number;
    /** After a failed or unprofitable pass, wait this many model calls before the next. */
    cooldown_calls: number;
    /** A pass must save at least this share of the range's tokens, or layer 1 backs off. */
    min_savings: number;
    /** An OpenAI-compatible endpoint, used when the host offers no auxiliary model. */
    endpoint: {
      /** Base URL, e.g. http://127.0.0.1:8080/v1 (empty: the host's model only). */
      url: string;
      model: string;
      /** The environment variable holding the API key (never the key itself). */
      api_key_env: string;
    };
  };
  analytics: {
    enabled: boolean;
    /** Sessions older than this many days are deleted from the analytics database. */
    retention_days: number;
    /** Analytics database path; empty means $HMC_DB_PATH, else <state dir>/analytics.db. */
    db_path: string;
  };
  code_filter: {
    enabled: boolean;
    languages: string[];
    /** Source files shorter than this many lines are left whole. */
    min_lines: number;
    /** Keep docstrings and doc comments. */
    preserve_docstrings: boolean;
  };
  /** Glob patterns of file paths whose reads are never compressed (e.g. "**\/*.lock"). */
  protected_file_patterns: string[];
  /** Wording of placeholders: "detailed" (what, why, how many) or "minimal". */
  prune_notification: 'detailed' | 'minimal';
  cache: {
    /** No longer used (rewrites of sent messages follow the price rule); accepted so old configs load. */
    batch_turns: number;
    /** A rewrite of messages the model was already sent must remove at least this many tokens at once. */
    min_batch_tokens: number;
    /** The provider's prompt-cache lifetime: after this long without a call the cache is cold and rewrites are free. */
    ttl_seconds: number;
    /** At most this many rewrites of already-sent messages (cache breaks) per 100 model calls… */
    max_breaks_per_100_calls: number;
    /** …the first of them after this many model calls. */
    first_break_after: number;
  };
  dashboard: {
    /** First port tried; the next 99 are tried when it is taken. 0 lets the system pick. */
    port: number;
    /** At most this many live pages (SSE clients); more are refused with 503. */
    max_clients: number;
    /** Keep before/after copies of recent compressed outputs for the inspector (in the state dir, 0600). */
    inspector: boolean;
  };
  pricing: {
    /** Price of one million input tokens, for the estimated cost saved. */
    default_input_per_million: number;
    /** Per-model prices (model name substring → price per million input tokens). */
    models: Record<string, number>;
    currency: string;
  };
}

/** A value accepted (possibly with a `warning` about a part of it left out), or what was expected. */
type Validator = (value: unknown) => { ok: true; value: unknown; warning?: string } | { ok: false; expected: string };

export interface ConfigKey {
  /** Dotted path, e.g. "truncation.max_lines". */
  path: string;
  default: unknown;
  validate: Validator;
  doc: string;
}

const bool: Validator = (v) => {
  if (typeof v === 'boolean') return { ok: true, value: v };
  // YAML users write `enabled: "false"`; the original treated that string as true (reference §14 F18).
  if (v === 'true' || v === 'yes' || v === 'on') return { ok: true, value: true };
  if (v === 'false' || v === 'no' || v === 'off') return { ok: true, value: false };
  return { ok: false, expected: 'true or false' };
};

const int = (min: number, max = Number.MAX_SAFE_INTEGER): Validator => (v) => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max) return { ok: true, value: n };
  return { ok: false, expected: `a whole number from ${min}${max === Number.MAX_SAFE_INTEGER ? ' up' : ` to ${max}`}` };
};

const fraction: Validator = (v) => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n === 'number' && Number.isFinite(n) && n > 0 && n <= 1) return { ok: true, value: n };
  return { ok: false, expected: 'a number above 0 and at most 1 (e.g. 0.8)' };
};

const nonNegative: Validator = (v) => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n === 'number' && Number.isFinite(n) && n >= 0) return { ok: true, value: n };
  return { ok: false, expected: 'a number of 0 or more' };
};

const str: Validator = (v) => {
  if (v === null) return { ok: true, value: '' };
  if (typeof v === 'string') return { ok: true, value: v };
  return { ok: false, expected: 'a string' };
};

const stringList: Validator = (v) => {
  if (v === null) return { ok: true, value: [] };
  // A lone string is one item (the original split it into characters, reference §10).
  if (typeof v === 'string') return { ok: true, value: [v] };
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return { ok: true, value: [...v] };
  return { ok: false, expected: 'a list of strings' };
};

const oneOf = (...options: string[]): Validator => (v) =>
  typeof v === 'string' && options.includes(v) ? { ok: true, value: v } : { ok: false, expected: `one of ${options.join(', ')}` };

const priceTable: Validator = (v) => {
  if (v === null) return { ok: true, value: {} };
  if (typeof v === 'object' && !Array.isArray(v)) {
    const out: Record<string, number> = {};
    for (const [k, price] of Object.entries(v as Record<string, unknown>)) {
      if (typeof price !== 'number' || !Number.isFinite(price) || price < 0) return { ok: false, expected: 'a map of model name to a price of 0 or more' };
      out[k] = price;
    }
    return { ok: true, value: out };
  }
  return { ok: false, expected: 'a map of model name to a price of 0 or more' };
};

/**
 * Languages as the code filter names them (its own list, so a language added there is accepted
 * here without a second copy). Unknown names are reported and left out; when none is known the
 * key falls back to its default (issue 11: `languages: [cobol]` was accepted silently).
 */
const languageList: Validator = (v) => {
  const listed = stringList(v);
  if (!listed.ok) return { ok: false, expected: `a list of languages from ${LANGUAGES.join(', ')}` };
  const names = (listed.value as string[]).map((x) => x.trim().toLowerCase());
  const known = names.filter((x) => (LANGUAGES as readonly string[]).includes(x));
  const unknown = names.filter((x) => !(LANGUAGES as readonly string[]).includes(x));
  if (unknown.length === 0) return { ok: true, value: known };
  if (known.length === 0) return { ok: false, expected: `a list of languages from ${LANGUAGES.join(', ')}` };
  const them = unknown.map((x) => JSON.stringify(x)).join(', ');
  return { ok: true, value: known, warning: `${them} ${unknown.length === 1 ? 'is not a language' : 'are not languages'} the code filter knows (${LANGUAGES.join(', ')}); ignored` };
};

export const CONFIG_KEYS: readonly ConfigKey[] = [
  { path: 'enabled', default: true, validate: bool, doc: 'Master switch: false makes HMC pass everything through untouched and record nothing.' },
  { path: 'debug', default: false, validate: bool, doc: 'Verbose logging to the sidecar log in the state dir.' },
  { path: 'manual_mode.enabled', default: false, validate: bool, doc: 'New sessions start in manual mode (see automatic_strategies).' },
  { path: 'manual_mode.automatic_strategies', default: true, validate: bool, doc: 'In manual mode, still run code filter, dedup and error purge.' },
  { path: 'compress.max_context_percent', default: 0.8, validate: fraction, doc: "Layer 1 fires at the lower of this context use (0..1) and background_compression.threshold_share of the host's own threshold." },
  { path: 'compress.min_context_percent', default: 0.4, validate: fraction, doc: 'The original\'s target for layer 1; not used (layer 1 summarises finished ranges, see docs/engine.md). Accepted so old configs load.' },
  { path: 'compress.protected_tools', default: ['write_file', 'patch'], validate: stringList, doc: 'Tools whose outputs no strategy ever touches (write_file and patch always are).' },
  { path: 'strategies.deduplication.enabled', default: true, validate: bool, doc: 'Replace older identical tool calls by a one-line placeholder, keeping the latest.' },
  { path: 'strategies.deduplication.protected_tools', default: [], validate: stringList, doc: 'Tools never deduplicated.' },
  { path: 'strategies.deduplication.normalize', default: true, validate: bool, doc: 'Also collapse near-identical outputs (timestamps, UUIDs, hashes, temp paths normalised).' },
  { path: 'strategies.purge_errors.enabled', default: true, validate: bool, doc: 'Replace failed outputs older than `turns` user turns by a one-line placeholder.' },
  { path: 'strategies.purge_errors.turns', default: 4, validate: int(1, 1000), doc: 'Age in user turns after which a failed output is purged.' },
  { path: 'strategies.purge_errors.protected_tools', default: [], validate: stringList, doc: 'Tools whose failures are never purged.' },
  { path: 'strategies.stale_reads.enabled', default: true, validate: bool, doc: 'Replace a file read that a later read, write or patch of the same file superseded by a marker naming the path, lines and the newer call.' },
  { path: 'strategies.clearing.enabled', default: true, validate: bool, doc: 'Clear old tool outputs (a marker with a recall id, or how to read the file again) once the context passes trigger_percent.' },
  { path: 'strategies.clearing.trigger_percent', default: 0.1, validate: fraction, doc: 'Context use (0..1 of the window) above which old outputs are cleared (at the next pass the cache-break budget allows).' },
  { path: 'strategies.clearing.target_percent', default: 0.02, validate: fraction, doc: 'Context use clearing brings the context down to, oldest outputs first.' },
  { path: 'strategies.clearing.keep', default: 4, validate: int(0, 10_000), doc: 'The most recent tool results never cleared.' },
  { path: 'strategies.clearing.exclude_tools', default: [], validate: stringList, doc: 'Tools whose outputs are never cleared.' },
  { path: 'truncation.enabled', default: true, validate: bool, doc: 'Cut long outputs to head + tail with a gap marker.' },
  { path: 'truncation.max_lines', default: 50, validate: int(3, 1_000_000), doc: 'Outputs longer than this many lines are truncated.' },
  { path: 'truncation.head_lines', default: 10, validate: int(1, 1_000_000), doc: 'Lines kept from the start.' },
  { path: 'truncation.tail_lines', default: 10, validate: int(0, 1_000_000), doc: 'Lines kept from the end.' },
  { path: 'truncation.min_content_length', default: 500, validate: int(0), doc: 'Outputs shorter than this many characters are never truncated.' },
  { path: 'truncation.keep_important', default: true, validate: bool, doc: 'Keep errors, failures, warnings, file:line locations and summaries from the cut middle.' },
  { path: 'truncation.max_important_lines', default: 20, validate: int(0, 10_000), doc: 'At most this many important lines are kept from the middle (failing-test titles and one line per failure word are kept beyond it).' },
  { path: 'truncation.keep_whole_chars', default: 32_000, validate: int(0), doc: 'Search listings and documents (web pages, docs, help texts, reports, data) up to this many characters are never cut; longer ones are cut to about this size.' },
  { path: 'short_circuits.enabled', default: true, validate: bool, doc: 'Collapse outputs that are wholly a known success (tests passed, clean git…) to one line.' },
  { path: 'background_compression.enabled', default: true, validate: bool, doc: "Layer 1: summarise finished work (the host's auxiliary model, else `endpoint`) into the session index; recall gives the exact messages back." },
  { path: 'background_compression.protect_recent_turns', default: 3, validate: int(1, 1000), doc: 'User turns layer 1 never summarises (the latest user message never is).' },
  { path: 'background_compression.protect_recent_calls', default: 30, validate: int(1, 100_000), doc: "In a long tool loop, the current turn's last model calls layer 1 never summarises." },
  { path: 'background_compression.threshold_share', default: 0.8, validate: fraction, doc: "Fire at this share of the host's own compression threshold, so HMC's cheaper pass comes first." },
  { path: 'background_compression.host_threshold', default: 0.5, validate: fraction, doc: "The host's compression threshold (0..1 of the window) when the host does not send it (Hermes' default: 0.5)." },
  { path: 'background_compression.max_summary_tokens', default: 1500, validate: int(100, 100_000), doc: 'The most tokens one summary may take.' },
  { path: 'background_compression.timeout_seconds', default: 120, validate: int(1, 3600), doc: 'A summary call that takes longer fails (an explicit marker; layer 1 cools down).' },
  { path: 'background_compression.cooldown_calls', default: 20, validate: int(0, 100_000), doc: 'After a failed or unprofitable pass, model calls to wait before the next.' },
  { path: 'background_compression.min_savings', default: 0.3, validate: fraction, doc: "A pass must save at least this share of its range's tokens, else layer 1 backs off." },
  { path: 'background_compression.endpoint.url', default: '', validate: str, doc: 'An OpenAI-compatible base URL (e.g. http://127.0.0.1:8080/v1) for summaries when the host offers no auxiliary model.' },
  { path: 'background_compression.endpoint.model', default: '', validate: str, doc: 'The model name sent to `endpoint.url`.' },
  { path: 'background_compression.endpoint.api_key_env', default: '', validate: str, doc: 'The environment variable holding the endpoint API key (the key itself never goes in the config).' },
  { path: 'analytics.enabled', default: true, validate: bool, doc: 'Record sessions in SQLite; false creates no database file.' },
  { path: 'analytics.retention_days', default: 90, validate: int(1, 36_500), doc: 'Sessions older than this many days are deleted.' },
  { path: 'analytics.db_path', default: '', validate: str, doc: 'Database path; empty means $HMC_DB_PATH, else <state dir>/analytics.db.' },
  { path: 'code_filter.enabled', default: true, validate: bool, doc: 'Elide function bodies in source files read by the agent, keeping signatures.' },
  { path: 'code_filter.languages', default: LANGUAGES, validate: languageList, doc: `Languages filtered (any of ${LANGUAGES.join(', ')}).` },
  { path: 'code_filter.min_lines', default: 30, validate: int(1), doc: 'Source shorter than this many lines is left whole.' },
  { path: 'code_filter.preserve_docstrings', default: true, validate: bool, doc: 'Keep docstrings and doc comments.' },
  { path: 'protected_file_patterns', default: [], validate: stringList, doc: 'Glob patterns of file paths whose reads are never compressed (e.g. "**/*.lock").' },
  { path: 'prune_notification', default: 'detailed', validate: oneOf('detailed', 'minimal'), doc: 'Placeholder wording: "detailed" or "minimal".' },
  { path: 'cache.batch_turns', default: 3, validate: int(1, 1000), doc: 'No longer used: rewrites of messages already sent follow the price rule (docs/engine.md). Accepted so old configs load.' },
  { path: 'cache.min_batch_tokens', default: 2000, validate: int(0), doc: 'A rewrite of messages the model was already sent (dedup, error purge, stale reads, clearing) must remove at least this many tokens at once, and pay for the cache break it causes.' },
  { path: 'cache.max_breaks_per_100_calls', default: 1, validate: nonNegative, doc: 'The cache-break budget: at most this many rewrites of already-sent messages per 100 model calls (0: only when the cache is cold, the user sweeps, or the context would overflow).' },
  { path: 'cache.first_break_after', default: 55, validate: int(0, 1_000_000), doc: 'Model calls before the first budgeted rewrite of already-sent messages; waiting ones go together then.' },
  { path: 'cache.ttl_seconds', default: 300, validate: int(0, 86_400), doc: "The provider's prompt-cache lifetime: after this long without a model call the cache is cold, and waiting rewrites are made at once." },
  { path: 'dashboard.port', default: 48800, validate: int(0, 65535), doc: 'First port tried (the next 99 are tried when taken); 0 lets the system pick.' },
  { path: 'dashboard.max_clients', default: 32, validate: int(1, 1000), doc: 'At most this many open pages; more are refused.' },
  { path: 'dashboard.inspector', default: true, validate: bool, doc: 'Keep before/after copies of recent compressed outputs for the inspector (state dir, files 0600).' },
  { path: 'pricing.default_input_per_million', default: 3.0, validate: nonNegative, doc: 'Price of one million input tokens, for the estimated cost saved.' },
  { path: 'pricing.models', default: {}, validate: priceTable, doc: 'Per-model prices: model-name substring → price per million input tokens.' },
  { path: 'pricing.currency', default: 'USD', validate: str, doc: 'Currency label of the prices.' },
];

/** A config problem, named by key path, for logs and `hmc doctor`. */
export interface ConfigIssue {
  path: string;
  message: string;
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (typeof next !== 'object' || next === null) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts[parts.length - 1] as string] = value;
}

function getPath(source: unknown, path: string): { found: boolean; value: unknown } {
  let node: unknown = source;
  for (const part of path.split('.')) {
    if (typeof node !== 'object' || node === null || Array.isArray(node) || !(part in node)) return { found: false, value: undefined };
    node = (node as Record<string, unknown>)[part];
  }
  return { found: true, value: node };
}

function clone<T>(value: T): T {
  return value === null || typeof value !== 'object' ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/** The defaults, freshly built (callers may mutate their copy). */
export function defaultConfig(): HmcConfig {
  const out: Record<string, unknown> = {};
  for (const key of CONFIG_KEYS) setPath(out, key.path, clone(key.default));
  return out as unknown as HmcConfig;
}

/**
 * Builds a config from parsed YAML (or anything): each key validated on its own, a bad one
 * reported by path and replaced by its default; unknown keys reported too (typos are common).
 */
export function resolveConfig(raw: unknown): { config: HmcConfig; issues: ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  const out: Record<string, unknown> = {};
  if (raw !== null && raw !== undefined && (typeof raw !== 'object' || Array.isArray(raw))) {
    issues.push({ path: '(root)', message: 'config must be a mapping of keys; using the defaults' });
    raw = {};
  }
  for (const key of CONFIG_KEYS) {
    const { found, value } = getPath(raw, key.path);
    if (!found || value === undefined) {
      setPath(out, key.path, clone(key.default));
      continue;
    }
    const checked = key.validate(value);
    if (checked.ok) {
      setPath(out, key.path, checked.value);
      if (checked.warning) issues.push({ path: key.path, message: `${key.path}: ${checked.warning}` });
    }
    else {
      issues.push({ path: key.path, message: `${key.path}: expected ${checked.expected}, got ${JSON.stringify(value)}; using the default ${JSON.stringify(key.default)}` });
      setPath(out, key.path, clone(key.default));
    }
  }
  for (const unknownPath of unknownKeys(raw, '')) {
    issues.push({ path: unknownPath, message: `${unknownPath}: unknown key, ignored` });
  }
  const config = out as unknown as HmcConfig;
  if (config.truncation.head_lines + config.truncation.tail_lines >= config.truncation.max_lines) {
    issues.push({ path: 'truncation.max_lines', message: 'truncation.max_lines: should exceed head_lines + tail_lines; the window is scaled to fit' });
  }
  return { config, issues };
}

const KNOWN_PREFIXES = new Set(CONFIG_KEYS.flatMap((k) => k.path.split('.').map((_, i, parts) => parts.slice(0, i + 1).join('.'))));
const LEAF_KEYS = new Set(CONFIG_KEYS.map((k) => k.path));

function unknownKeys(raw: unknown, prefix: string): string[] {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return [];
  const found: string[] = [];
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (!KNOWN_PREFIXES.has(path)) found.push(path);
    else if (!LEAF_KEYS.has(path)) found.push(...unknownKeys(v, path));
  }
  return found;
}
