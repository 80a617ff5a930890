/**
 * Every config key in one table: its path, default, validator and one line of documentation.
 * Defaults, validation, the `HmcConfig` type and the docs in `config.yaml.example` all come from
 * here (STYLE 11).
 *
 * Invariant: a bad value is reported with its key's path and falls back to that key's default
 * alone; nothing here throws.
 */
import { LANGUAGES } from '../core/languages.js';
import { suggestKey } from './suggest.js';

/** A value accepted (possibly with a `warning` about a part of it left out), or what was expected. */
type Validator<T> = (value: unknown) => { ok: true; value: T; warning?: string } | { ok: false; expected: string };

export interface ConfigKey<P extends string = string, T = unknown> {
  /** Dotted path, e.g. "truncation.max_lines". */
  path: P;
  default: T;
  validate: Validator<T>;
  doc: string;
}

/** One row of the table; the validator decides the value's type, the default must be one. */
function key<const P extends string, T>(path: P, value: NoInfer<T>, validate: Validator<T>, doc: string): ConfigKey<P, T> {
  return { path, default: value, validate, doc };
}

const bool: Validator<boolean> = (v) => {
  if (typeof v === 'boolean') return { ok: true, value: v };
  // YAML users write `enabled: "false"`; the original treated that string as true (reference §14 F18).
  if (v === 'true' || v === 'yes' || v === 'on') return { ok: true, value: true };
  if (v === 'false' || v === 'no' || v === 'off') return { ok: true, value: false };
  return { ok: false, expected: 'true or false' };
};

const int = (min: number, max = Number.MAX_SAFE_INTEGER): Validator<number> => (v) => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max) return { ok: true, value: n };
  return { ok: false, expected: `a whole number from ${min}${max === Number.MAX_SAFE_INTEGER ? ' up' : ` to ${max}`}` };
};

const fraction: Validator<number> = (v) => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n === 'number' && Number.isFinite(n) && n > 0 && n <= 1) return { ok: true, value: n };
  return { ok: false, expected: 'a number above 0 and at most 1 (e.g. 0.8)' };
};

const nonNegative: Validator<number> = (v) => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n === 'number' && Number.isFinite(n) && n >= 0) return { ok: true, value: n };
  return { ok: false, expected: 'a number of 0 or more' };
};

const str: Validator<string> = (v) => {
  if (v === null) return { ok: true, value: '' };
  if (typeof v === 'string') return { ok: true, value: v };
  return { ok: false, expected: 'a string' };
};

const stringList: Validator<string[]> = (v) => {
  if (v === null) return { ok: true, value: [] };
  // A lone string is one item (the original split it into characters, reference §10).
  if (typeof v === 'string') return { ok: true, value: [v] };
  if (Array.isArray(v) && v.every((x): x is string => typeof x === 'string')) return { ok: true, value: [...v] };
  return { ok: false, expected: 'a list of strings' };
};

const oneOf = <T extends string>(...options: T[]): Validator<T> => (v) => {
  const found = options.find((o) => o === v);
  return found !== undefined ? { ok: true, value: found } : { ok: false, expected: `one of ${options.join(', ')}` };
};

/** A model's prices as config.yaml gives them: a number (its input price, the old form), or any of the four. */
export type PriceEntry = Partial<Record<'input' | 'cache_read' | 'cache_write' | 'output', number>>;
const PRICE_FIELDS = ['input', 'cache_read', 'cache_write', 'output'] as const;
const PRICE_EXPECTED = 'a map of model name to a price per million input tokens, or to {input, cache_read, cache_write, output} (each from 0 to 1000000; a bad entry is left out, named)';

/** No list price comes near this per million tokens; a larger one is a typo that would make every cost absurd (or Infinity). */
const MAX_PRICE = 1_000_000;

/** A price per million tokens: a number (or its digits as a string) from 0 to MAX_PRICE; else null. */
function priceValue(v: unknown): number | null {
  const n = typeof v === 'string' && /^\s*\d+(?:\.\d+)?\s*$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 && n <= MAX_PRICE ? n : null;
}

const price: Validator<number> = (v) => {
  const n = priceValue(v);
  return n !== null ? { ok: true, value: n } : { ok: false, expected: `a price per million tokens from 0 to ${MAX_PRICE}` };
};

/**
 * The user's price table (issue 26, finding 9): a model whose entry is bad (a negative price, a
 * word, an unknown field, no price at all) is left out with a warning naming it and what is wrong,
 * so it is priced from the built-in table or the defaults, never from a wrong figure; the others
 * are kept (before, one bad entry dropped the whole table).
 */
const priceTable: Validator<Record<string, PriceEntry>> = (v) => {
  if (v === null) return { ok: true, value: {} };
  if (typeof v !== 'object' || Array.isArray(v)) return { ok: false, expected: PRICE_EXPECTED };
  const out: Record<string, PriceEntry> = {};
  const problems: string[] = [];
  for (const [k, entry] of Object.entries(v as Record<string, unknown>)) {
    const name = JSON.stringify(k.length > 60 ? `${k.slice(0, 60)}…` : k);
    const whole = priceValue(entry);
    if (whole !== null) {
      out[k.toLowerCase()] = { input: whole };
      continue;
    }
    const problem = entryProblem(entry);
    if (typeof problem === 'string') problems.push(`${name} ${problem}`);
    else out[k.toLowerCase()] = problem;
  }
  if (problems.length === 0) return { ok: true, value: out };
  const more = problems.length > 3 ? ` (and ${problems.length - 3} more)` : '';
  return { ok: true, value: out, warning: `left out ${problems.slice(0, 3).join('; ')}${more}; those models are priced from the built-in table or pricing.default_*` };
};

/** One model's entry as prices, or what is wrong with it. */
function entryProblem(entry: unknown): PriceEntry | string {
  const shown = (x: unknown): string => JSON.stringify(typeof x === 'string' && x.length > 40 ? `${x.slice(0, 40)}…` : x) ?? String(x);
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return `must be a price per million input tokens (0 to ${MAX_PRICE}) or {input, cache_read, cache_write, output}, got ${shown(entry)}`;
  const fields = entry as Record<string, unknown>;
  const unknown = Object.keys(fields).find((f) => !(PRICE_FIELDS as readonly string[]).includes(f));
  if (unknown !== undefined) return `has an unknown field ${shown(unknown)} (allowed: ${PRICE_FIELDS.join(', ')})`;
  const clean: PriceEntry = {};
  for (const f of PRICE_FIELDS) {
    if (fields[f] === undefined || fields[f] === null) continue;
    const n = priceValue(fields[f]);
    if (n === null) return `${f} must be a price per million tokens from 0 to ${MAX_PRICE}, got ${shown(fields[f])}`;
    clean[f] = n;
  }
  if (Object.keys(clean).length === 0) return 'names no price (give input, cache_read, cache_write or output)';
  return clean;
}

/**
 * Languages as the code filter names them (its own list, so a language added there is accepted
 * here without a second copy). Unknown names are reported and left out; when none is known the
 * key falls back to its default (issue 11: `languages: [cobol]` was accepted silently).
 */
const languageList: Validator<string[]> = (v) => {
  const listed = stringList(v);
  if (!listed.ok) return { ok: false, expected: `a list of languages from ${LANGUAGES.join(', ')}` };
  const names = listed.value.map((x) => x.trim().toLowerCase());
  const known = names.filter((x) => (LANGUAGES as readonly string[]).includes(x));
  const unknown = names.filter((x) => !(LANGUAGES as readonly string[]).includes(x));
  if (unknown.length === 0) return { ok: true, value: known };
  if (known.length === 0) return { ok: false, expected: `a list of languages from ${LANGUAGES.join(', ')}` };
  const them = unknown.map((x) => JSON.stringify(x)).join(', ');
  return { ok: true, value: known, warning: `${them} ${unknown.length === 1 ? 'is not a language' : 'are not languages'} the code filter knows (${LANGUAGES.join(', ')}); ignored` };
};

export const CONFIG_KEYS = [
  key('enabled', true, bool, 'Master switch: false makes HMC pass everything through untouched and record nothing.'),
  key('debug', false, bool, 'Verbose logging to the sidecar log in the state dir.'),
  key('manual_mode.enabled', false, bool, 'New sessions start in manual mode (see automatic_strategies).'),
  key('manual_mode.automatic_strategies', true, bool, 'In manual mode, still run code filter, dedup and error purge.'),
  key('compress.max_context_percent', 0.8, fraction, "Layer 1 fires at the lower of this context use (0..1) and background_compression.threshold_share of the host's own threshold."),
  key('compress.min_context_percent', 0.4, fraction, 'The original\'s target for layer 1; not used (layer 1 summarises finished ranges, see docs/engine.md). Accepted so old configs load.'),
  key('compress.protected_tools', ['write_file', 'patch'], stringList, 'Tools whose outputs no strategy ever touches (write_file and patch always are).'),
  key('strategies.deduplication.enabled', true, bool, 'Replace older identical tool calls by a one-line placeholder, keeping the latest.'),
  key('strategies.deduplication.protected_tools', [], stringList, 'Tools never deduplicated.'),
  key('strategies.deduplication.normalize', true, bool, 'Also collapse near-identical outputs (timestamps, UUIDs, hashes, temp paths normalised).'),
  key('strategies.purge_errors.enabled', true, bool, 'Replace failed outputs older than `turns` user turns by a one-line placeholder.'),
  key('strategies.purge_errors.turns', 4, int(1, 1000), 'Age in user turns after which a failed output is purged.'),
  key('strategies.purge_errors.protected_tools', [], stringList, 'Tools whose failures are never purged.'),
  key('strategies.stale_reads.enabled', true, bool, 'Replace a file read that a later read, write or patch of the same file superseded by a marker naming the path, lines and the newer call.'),
  key('strategies.edit_echo.enabled', true, bool, "Send an answered edit's or write's output without the snippet of the file it echoes (its success line, path and notes kept, a marker with a recall id instead) once the file was touched again or the call is older than the last keep_calls; never a failed edit, never the current step."),
  key('strategies.edit_echo.keep_calls', 3, int(0, 100_000), 'The most recent tool results whose echoed snippets are always sent whole (a superseded edit loses its snippet earlier, never in the current step).'),
  key('strategies.clearing.enabled', true, bool, 'Clear old tool outputs (a marker with a recall id, or how to read the file again) once the context passes trigger_percent.'),
  key('strategies.clearing.trigger_percent', 0.1, fraction, 'Context use (0..1 of the window) above which old outputs are cleared (at the next pass the cache-break budget allows).'),
  key('strategies.clearing.target_percent', 0.02, fraction, 'Context use clearing brings the context down to, oldest outputs first.'),
  key('strategies.clearing.keep', 3, int(0, 10_000), 'The most recent tool results never cleared (nor ever the current step\'s, however many calls it made).'),
  key('strategies.clearing.exclude_tools', [], stringList, 'Tools whose outputs are never cleared.'),
  key('strategies.input_clearing.enabled', true, bool, "Send answered file writes, edits and here-document shell commands with short arguments (path, size, a recall id) once the file was touched again or the call is older than the last keep_calls; only to hosts that apply tool_calls edits, never in the stored history."),
  key('strategies.input_clearing.keep_calls', 2, int(0, 100_000), 'The most recent tool calls whose arguments are always sent whole (a superseded write or edit is cleared earlier, never in the current step).'),
  key('strategies.input_clearing.min_chars', 400, int(0), 'A call is cleared only when its arguments get at least this many characters shorter.'),
  key('strategies.input_clearing.exclude_tools', [], stringList, 'Tools whose arguments are never cleared (compress.protected_tools never are either).'),
  key('truncation.enabled', true, bool, 'Cut long outputs to head + tail with a gap marker.'),
  key('truncation.max_lines', 50, int(3, 1_000_000), 'Outputs longer than this many lines are truncated.'),
  key('truncation.head_lines', 10, int(1, 1_000_000), 'Lines kept from the start.'),
  key('truncation.tail_lines', 10, int(0, 1_000_000), 'Lines kept from the end.'),
  key('truncation.min_content_length', 500, int(0), 'Outputs shorter than this many characters are never truncated.'),
  key('truncation.keep_important', true, bool, 'Keep errors, failures, warnings, file:line locations and summaries from the cut middle.'),
  key('truncation.max_important_lines', 20, int(0, 10_000), 'At most this many important lines are kept from the middle (failing-test titles and one line per failure word are kept beyond it).'),
  key('truncation.keep_whole_chars', 32_000, int(0), 'Search listings and documents (web pages, docs, help texts, reports, data) up to this many characters are never cut; longer ones are cut to about this size.'),
  key('short_circuits.enabled', true, bool, 'Collapse outputs that are wholly a known success (tests passed, clean git…) to one line.'),
  key('background_compression.enabled', true, bool, "Layer 1: summarise finished work (the host's auxiliary model, else `endpoint`) into the session index; recall gives the exact messages back."),
  key('background_compression.protect_recent_turns', 3, int(1, 1000), 'User turns layer 1 never summarises (the latest user message never is).'),
  key('background_compression.protect_recent_calls', 30, int(1, 100_000), "In a long tool loop, the current turn's last model calls layer 1 never summarises."),
  key('background_compression.threshold_share', 0.8, fraction, "Fire at this share of the host's own compression threshold, so HMC's cheaper pass comes first."),
  key('background_compression.host_threshold', 0.5, fraction, "The host's compression threshold (0..1 of the window) when the host does not send it (Hermes' default: 0.5)."),
  key('background_compression.max_summary_tokens', 1500, int(100, 100_000), 'The most tokens one summary may take.'),
  key('background_compression.timeout_seconds', 120, int(1, 3600), 'A summary call that takes longer fails (an explicit marker; layer 1 cools down).'),
  key('background_compression.cooldown_calls', 20, int(0, 100_000), 'After a failed or unprofitable pass, model calls to wait before the next.'),
  key('background_compression.min_savings', 0.3, fraction, "A pass must save at least this share of its range's tokens, else layer 1 backs off."),
  key('background_compression.summariser_price.input', 1.25, nonNegative, "Price of one token the summariser reads, in main-model input tokens (1.25: the main model's own price, written to its cache). A host that knows its auxiliary model's price says so instead."),
  key('background_compression.summariser_price.output', 5, nonNegative, 'Price of one token the summariser writes, in main-model input tokens (5: a typical output price of the main model).'),
  key('background_compression.min_return', 2, nonNegative, "A summary is asked for only when its expected saving under the prompt cache is at least this multiple of its price (docs/engine.md, 'Layer 1 net of its price')."),
  key('background_compression.index_across_users', false, bool, "hmc_control index reads another session's phases, and scope=global searches them, only when that session is the same user's (the platform and sender the host names; every CLI session is the machine's own). True: every session's, whoever's (one person on several platforms)."),
  key('background_compression.endpoint.url', '', str, 'An OpenAI-compatible base URL (e.g. http://127.0.0.1:8080/v1) for summaries when the host offers no auxiliary model.'),
  key('background_compression.endpoint.model', '', str, 'The model name sent to `endpoint.url`.'),
  key('background_compression.endpoint.api_key_env', '', str, 'The environment variable holding the endpoint API key (the key itself never goes in the config).'),
  key('analytics.enabled', true, bool, 'Record sessions in SQLite; false creates no database file.'),
  key('analytics.retention_days', 90, int(1, 36_500), 'Sessions older than this many days are deleted.'),
  key('analytics.db_path', '', str, 'Database path; empty means $HMC_DB_PATH, else <state dir>/analytics.db.'),
  key('code_filter.enabled', true, bool, 'Elide function bodies in source files read by the agent, keeping signatures.'),
  key('code_filter.languages', [...LANGUAGES], languageList, `Languages filtered (any of ${LANGUAGES.join(', ')}).`),
  key('code_filter.min_lines', 30, int(1), 'Source shorter than this many lines is left whole.'),
  key('code_filter.preserve_docstrings', true, bool, 'Keep docstrings and doc comments.'),
  key('protected_file_patterns', [], stringList, 'Glob patterns of file paths whose reads are never compressed (e.g. "**/*.lock").'),
  key('prune_notification', 'detailed', oneOf('detailed', 'minimal'), 'Placeholder wording: "detailed" or "minimal".'),
  key('cache.batch_turns', 3, int(1, 1000), 'No longer used: rewrites of messages already sent follow the price rule (docs/engine.md). Accepted so old configs load.'),
  key('cache.min_batch_tokens', 2000, int(0), 'A rewrite of messages the model was already sent (dedup, error purge, stale reads, clearing) must remove at least this many tokens at once, and pay for the cache break it causes.'),
  key('cache.max_breaks_per_100_calls', 2, nonNegative, 'The cache-break budget: at most this many rewrites of already-sent messages per 100 model calls (0: only when the cache is cold, the user sweeps, or the context would overflow). Lower it for fewer breaks (docs/engine.md: a break costs latency once, a bigger context on every call).'),
  key('cache.first_break_after', 35, int(0, 1_000_000), 'Model calls before the first budgeted rewrite of already-sent messages; waiting ones go together then.'),
  key('cache.ttl_seconds', 300, int(0, 86_400), "The provider's prompt-cache lifetime: after this long without a model call the cache is cold, and waiting rewrites are made at once."),
  key('dashboard.port', 48800, int(0, 65535), 'First port tried (the next 99 are tried when taken); 0 lets the system pick.'),
  key('dashboard.max_clients', 32, int(1, 1000), 'At most this many open pages; more are refused.'),
  key('dashboard.inspector', true, bool, 'Keep before/after copies of recent compressed outputs for the inspector (state dir, files 0600).'),
  key('dashboard.otlp.endpoint', '', str, 'An OpenTelemetry collector (OTLP/HTTP, e.g. http://127.0.0.1:4318) the running dashboard pushes the lifetime savings to as JSON metrics (docs/dashboard.md), and `hmc analytics --push` once; empty: none. Headers come from $OTEL_EXPORTER_OTLP_HEADERS; no log line shows a user:pass@, query value or header.'),
  key('dashboard.otlp.interval_seconds', 60, int(5, 86_400), 'Seconds between OTLP exports (the first is sent when the dashboard starts).'),
  key('pricing.default_input_per_million', 3.0, price, 'Price of one million input tokens (neither read from nor written to a prompt cache) of a model no price table names.'),
  key('pricing.default_cache_read_per_million', 0.3, price, 'Price of one million input tokens read from the prompt cache, for a model no price table names.'),
  key('pricing.default_cache_write_per_million', 3.75, price, 'Price of one million input tokens written to the prompt cache, for a model no price table names.'),
  key('pricing.default_output_per_million', 15.0, price, 'Price of one million output tokens, for a model no price table names.'),
  key('pricing.models', {}, priceTable, 'Your prices per million tokens, by model name, added to the built-in table (docs/configuration.md) and replacing its entry of the same name: `name: 2.5` (input) or `name: {input: 3, cache_read: 0.3, cache_write: 3.75, output: 15}` (a price left out is derived from input: read 0.1×, write 1.25×, output 5×). A name matches a model named with it at word boundaries (`claude-sonnet-4` matches `anthropic/claude-sonnet-4-20250514`); the longest match wins.'),
  key('pricing.currency', 'USD', str, 'Currency label of the prices.'),
] as const;

/** One key's path and the type of its value. */
type Leaf = (typeof CONFIG_KEYS)[number] extends infer K ? (K extends ConfigKey<infer P, infer T> ? { path: P; value: T } : never) : never;
type Head<P extends string> = P extends `${infer H}.${string}` ? H : P;
type Under<L, H extends string> = L extends { path: `${H}.${infer R}`; value: infer V } ? { path: R; value: V } : never;
/** The nested object the dotted paths describe: `truncation.max_lines` → `{ truncation: { max_lines } }`. */
type Tree<L extends { path: string; value: unknown }> = {
  [H in Head<L['path']>]: [Extract<L, { path: H }>] extends [never] ? Tree<Under<L, H>> : Extract<L, { path: H }>['value'];
};

/**
 * The config, derived from the table above (a key added there is typed here, with no second
 * copy). Each key's meaning is its row's `doc` (also in docs/configuration.md).
 */
export type HmcConfig = Tree<Leaf>;

/** A dotted path of the table whose keys include an `enabled` switch: a strategy's section. */
export type SwitchedSection = Leaf['path'] extends infer P ? (P extends `${infer S}.enabled` ? S : never) : never;

/** The config's value at a dotted path (`strategies.clearing` → that section). */
export type ConfigAt<P extends string, T = HmcConfig> = P extends `${infer H}.${infer R}`
  ? H extends keyof T ? ConfigAt<R, T[H]> : never
  : P extends keyof T ? T[P] : never;

/** The section at `path` (the strategy registry reads each strategy's own section this way). */
export function sectionOf<P extends SwitchedSection>(config: HmcConfig, path: P): ConfigAt<P> & { enabled: boolean } {
  let node: unknown = config;
  for (const part of path.split('.')) node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[part] : undefined;
  // `path` is one of the table's switched sections, so a config built from the table has it there.
  return node as ConfigAt<P> & { enabled: boolean };
}

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
    const meant = suggestKey(unknownPath, KNOWN_PREFIXES);
    issues.push({ path: unknownPath, message: `${unknownPath}: unknown key, ignored${meant ? `; did you mean \`${meant}\`?` : ''}` });
  }
  const config = out as unknown as HmcConfig;
  if (config.truncation.head_lines + config.truncation.tail_lines >= config.truncation.max_lines) {
    issues.push({ path: 'truncation.max_lines', message: 'truncation.max_lines: should exceed head_lines + tail_lines; the window is scaled to fit' });
  }
  return { config, issues };
}

const KNOWN_PREFIXES = new Set(CONFIG_KEYS.flatMap((k) => k.path.split('.').map((_, i, parts) => parts.slice(0, i + 1).join('.'))));
const LEAF_KEYS = new Set<string>(CONFIG_KEYS.map((k) => k.path));

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
