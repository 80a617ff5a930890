/**
 * Reads `config.yaml` and keeps it current: the file is watched (chokidar) and every edit applies
 * to the next hook, no restart. A missing file means the defaults; a bad key is reported (by its
 * path, its line, and the key it most likely meant) and falls back to its default alone; a file
 * that cannot be used at all (not YAML, unreadable) means the defaults at the first load, said as
 * a problem, and leaves the last good config in force at a reload (keepLastGood).
 *
 * Invariants: nothing here throws; a broken edit never replaces a working config with nothing;
 * YAML warnings become issues (never raw lines on stderr); the watcher survives its file being
 * deleted, replaced by a directory and recreated (issue 11: it died after file → deleted →
 * directory → file and ignored every later edit, `enabled: false` included). A cheap stat every
 * `pollMs` backs chokidar up: whenever the file's identity changes unseen, the config is reloaded
 * and the watcher started afresh.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { isMap, isScalar, parseDocument, type Document } from 'yaml';
import { defaultConfig, resolveConfig, type ConfigIssue, type HmcConfig } from './keys.js';
import { errorLine } from '../core/errors.js';

export interface LoadedConfig {
  config: HmcConfig;
  /** Problems found, in the order they appear in the file (a whole-file problem first). */
  issues: ConfigIssue[];
  /** The file could not be used at all (unreadable, not YAML, not a mapping): the defaults
   * stand in for every key. A running process keeps its last good config instead (ConfigSource). */
  unusable?: boolean;
}

/** Parses one config file; a missing or empty path gives the defaults. */
export function loadConfigFile(path: string | null | undefined): LoadedConfig {
  if (!path) return { config: defaultConfig(), issues: [] };
  const kind = pathKind(path);
  if (kind === 'missing') return { config: defaultConfig(), issues: [] };
  if (kind === 'directory') {
    return {
      config: defaultConfig(),
      issues: [
        {
          path: '(file)',
          message: `${path} is a directory, not a config file; using the defaults (remove it, or point --config / $HMC_CONFIG at a file)`,
        },
      ],
      unusable: true,
    };
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    return {
      config: defaultConfig(),
      issues: [{ path: '(file)', message: `cannot read ${path}: ${errorLine(err)}; using the defaults` }],
      unusable: true,
    };
  }
  return parseConfigText(text, path);
}

export function parseConfigText(text: string, label = 'config.yaml'): LoadedConfig {
  if (text.trim() === '') return resolveConfig({});
  let raw: unknown;
  let doc: Document | null = null;
  const warnings: ConfigIssue[] = [];
  try {
    // parseDocument collects warnings instead of printing them (the yaml package's `parse` writes
    // them to stderr, where they reached Hermes' terminal raw).
    doc = parseDocument(text, { prettyErrors: false });
    const error = doc.errors[0];
    if (error) throw error;
    for (const w of doc.warnings) warnings.push({ path: '(file)', message: `${label}: YAML warning: ${errorLine(w)}` });
    raw = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    const pos = (err as { pos?: unknown }).pos;
    const at =
      Array.isArray(pos) && typeof pos[0] === 'number' ? ` at line ${text.slice(0, pos[0]).split('\n').length}` : '';
    return {
      config: defaultConfig(),
      issues: [
        {
          path: '(file)',
          message: `${label} is not valid YAML${at} (${errorLine(err)}); using the defaults for every key`,
        },
      ],
      unusable: true,
    };
  }
  const resolved = resolveConfig(raw ?? {});
  const unusable = resolved.issues.some((i) => i.path === '(root)');
  return {
    config: resolved.config,
    issues: [...warnings, ...inFileOrder(resolved.issues, doc, text)],
    ...(unusable ? { unusable } : {}),
  };
}

/** The issues in the order their keys appear in the file, each with its line ("(line 4)"). */
function inFileOrder(issues: ConfigIssue[], doc: Document | null, text: string): ConfigIssue[] {
  const offsets = new Map<string, number>();
  const walk = (node: unknown, prefix: string): void => {
    if (!isMap(node)) return;
    for (const pair of node.items) {
      if (!isScalar(pair.key)) continue;
      const path = prefix ? `${prefix}.${String(pair.key.value)}` : String(pair.key.value);
      if (pair.key.range) offsets.set(path, pair.key.range[0]);
      walk(pair.value, path);
    }
  };
  walk(doc?.contents, '');
  const lineOf = (offset: number): number => text.slice(0, offset).split('\n').length;
  const placed = issues.map((issue, i) => ({ issue, at: offsets.get(issue.path), i }));
  placed.sort((a, b) => (a.at ?? Infinity) - (b.at ?? Infinity) || a.i - b.i);
  return placed.map(({ issue, at }) =>
    at === undefined ? issue : { ...issue, message: `${issue.message} (line ${lineOf(at)})` },
  );
}

/**
 * What a running process uses after a reload: the new load, unless the file became unusable while
 * the config in force came from a usable one; then that config stays, its problems with it, and
 * the first problem says why (issue 27, finding 2: a broken edit meant all defaults, silently).
 */
export function keepLastGood(previous: LoadedConfig, next: LoadedConfig): LoadedConfig {
  if (!next.unusable || previous.unusable) return next;
  const why = (next.issues[0]?.message ?? 'the file cannot be used').replace(/; using the defaults.*$/, '');
  const kept = previous.issues.filter((i) => !i.message.includes('keeping the config in force'));
  return {
    config: previous.config,
    issues: [
      {
        path: '(file)',
        message: `${why}; keeping the config in force (the last one that parsed) until the file is fixed`,
      },
      ...kept,
    ],
  };
}

type PathKind = 'missing' | 'file' | 'directory' | 'other';

function pathKind(path: string): PathKind {
  try {
    const st = statSync(path);
    return st.isDirectory() ? 'directory' : st.isFile() ? 'file' : 'other';
  } catch {
    return 'missing';
  }
}

/** What the file is now, cheaply: a change means it must be read again. */
function identity(path: string): string {
  try {
    const st = statSync(path);
    return `${st.isDirectory() ? 'dir' : 'file'}:${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return 'missing';
  }
}

export interface WatchOptions {
  /** How often the file's identity is checked behind chokidar's back (default 2000 ms). */
  pollMs?: number;
}

/** The config in force for a running process, reloaded when its file changes. */
export class ConfigSource {
  private current: LoadedConfig;
  private watcher: { close(): Promise<void> } | null = null;
  private poll: NodeJS.Timeout | null = null;
  private seen = 'missing';
  private watching = false;
  private restarting: Promise<void> | null = null;
  private readonly listeners = new Set<(loaded: LoadedConfig) => void>();

  constructor(
    readonly path: string | null,
    private readonly log: (line: string) => void = () => {},
    initial?: LoadedConfig,
  ) {
    if (path) this.seen = identity(path);
    this.current = initial ?? loadConfigFile(path);
    this.report(this.current);
  }

  /** A fixed config (tests, `hmc filter`): nothing to watch. */
  static fixed(config: HmcConfig): ConfigSource {
    return new ConfigSource(null, () => {}, { config, issues: [] });
  }

  get config(): HmcConfig {
    return this.current.config;
  }

  get issues(): ConfigIssue[] {
    return this.current.issues;
  }

  onChange(listener: (loaded: LoadedConfig) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Re-reads the file now (also what the watcher calls). A file that stopped being usable (an
   * edit half typed, broken YAML) leaves the config in force as it was, and says so. */
  reload(): LoadedConfig {
    if (this.path) this.seen = identity(this.path);
    this.current = keepLastGood(this.current, loadConfigFile(this.path));
    this.report(this.current);
    for (const listener of this.listeners) {
      try {
        listener(this.current);
      } catch (err) {
        this.log(`hmc: config listener failed: ${errorLine(err)}`);
      }
    }
    return this.current;
  }

  /** Starts watching the file (its folder, so a file created later is seen too). */
  async watch(opts: WatchOptions = {}): Promise<void> {
    if (!this.path || this.watching) return;
    this.watching = true;
    await this.startWatcher();
    const path = this.path;
    this.poll = setInterval(() => {
      if (identity(path) === this.seen || this.restarting) return;
      this.log(`hmc: ${resolve(path)} changed; reloading the config`);
      this.reload();
      // chokidar may have lost the path (a directory came and went): start it afresh.
      this.restarting = this.restartWatcher().finally(() => {
        this.restarting = null;
      });
    }, opts.pollMs ?? 2000);
    this.poll.unref();
  }

  async close(): Promise<void> {
    this.watching = false;
    if (this.poll) clearInterval(this.poll);
    this.poll = null;
    await this.restarting;
    await this.watcher?.close();
    this.watcher = null;
  }

  private async restartWatcher(): Promise<void> {
    const old = this.watcher;
    this.watcher = null;
    await old?.close().catch(() => undefined);
    if (this.watching) await this.startWatcher();
  }

  private async startWatcher(): Promise<void> {
    if (!this.path) return;
    const file = resolve(this.path);
    const folder = dirname(file);
    // No folder yet: the poll notices when the file appears.
    if (pathKind(folder) !== 'directory') return;
    try {
      const { watch } = await import('chokidar');
      const watcher = watch(folder, {
        ignoreInitial: true,
        depth: 0,
        ignored: (p: string) => p !== folder && resolve(p) !== file,
        awaitWriteFinish: { stabilityThreshold: 50, pollInterval: 20 },
      });
      watcher.on('all', (_event: string, changed: string) => {
        if (resolve(changed) !== file || identity(file) === this.seen) return;
        this.log(`hmc: ${file} changed; reloading the config`);
        this.reload();
      });
      watcher.on('error', (err: unknown) =>
        this.log(`hmc: cannot watch ${file}: ${errorLine(err)}; checking it every few seconds instead`),
      );
      this.watcher = watcher;
      // Edits made before the first scan finished would be missed.
      await new Promise<void>((done) => watcher.once('ready', () => done()));
    } catch (err) {
      this.log(`hmc: cannot watch ${file}: ${errorLine(err)}; checking it every few seconds instead`);
    }
  }

  private report(loaded: LoadedConfig): void {
    for (const issue of loaded.issues) this.log(`hmc: config: ${issue.message}`);
  }
}
