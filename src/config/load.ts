/**
 * Reads `config.yaml` and keeps it current: the file is watched (chokidar) and every edit applies
 * to the next hook, no restart. A missing file means the defaults; an unreadable or invalid one is
 * reported (each problem names its key) and only the bad keys fall back to their defaults.
 *
 * Invariant: nothing here throws; a broken edit never replaces a working config with nothing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse } from 'yaml';
import { defaultConfig, resolveConfig, type ConfigIssue, type HmcConfig } from './keys.js';

export interface LoadedConfig {
  config: HmcConfig;
  issues: ConfigIssue[];
}

/** Parses one config file; a missing or empty path gives the defaults. */
export function loadConfigFile(path: string | null | undefined): LoadedConfig {
  if (!path || !existsSync(path)) return { config: defaultConfig(), issues: [] };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    return { config: defaultConfig(), issues: [{ path: '(file)', message: `cannot read ${path}: ${err instanceof Error ? err.message : String(err)}; using the defaults` }] };
  }
  return parseConfigText(text, path);
}

export function parseConfigText(text: string, label = 'config.yaml'): LoadedConfig {
  let raw: unknown;
  try {
    raw = text.trim() === '' ? {} : parse(text);
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    return { config: defaultConfig(), issues: [{ path: '(file)', message: `${label} is not valid YAML (${reason}); using the defaults` }] };
  }
  return resolveConfig(raw ?? {});
}

/** The config in force for a running process, reloaded when its file changes. */
export class ConfigSource {
  private current: LoadedConfig;
  private watcher: { close(): Promise<void> } | null = null;
  private readonly listeners = new Set<(loaded: LoadedConfig) => void>();

  constructor(
    readonly path: string | null,
    private readonly log: (line: string) => void = () => {},
    initial?: LoadedConfig,
  ) {
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

  /** Re-reads the file now (also what the watcher calls). */
  reload(): LoadedConfig {
    this.current = loadConfigFile(this.path);
    this.report(this.current);
    for (const listener of this.listeners) listener(this.current);
    return this.current;
  }

  /** Starts watching the file (its folder, so a file created later is seen too). */
  async watch(): Promise<void> {
    if (!this.path || this.watcher) return;
    const { watch } = await import('chokidar');
    const file = resolve(this.path);
    const folder = dirname(file);
    if (!existsSync(folder)) return;
    const watcher = watch(folder, {
      ignoreInitial: true,
      depth: 0,
      ignored: (p: string) => p !== folder && resolve(p) !== file,
      awaitWriteFinish: { stabilityThreshold: 50, pollInterval: 20 },
    });
    watcher.on('all', (_event: string, changed: string) => {
      if (resolve(changed) !== file) return;
      this.log(`hmc: ${file} changed; reloading the config`);
      this.reload();
    });
    watcher.on('error', (err: unknown) => this.log(`hmc: cannot watch ${this.path}: ${err instanceof Error ? err.message : String(err)}`));
    this.watcher = watcher;
    // Edits made before the first scan finished would be missed.
    await new Promise<void>((done) => watcher.once('ready', () => done()));
  }

  async close(): Promise<void> {
    await this.watcher?.close();
    this.watcher = null;
  }

  private report(loaded: LoadedConfig): void {
    for (const issue of loaded.issues) this.log(`hmc: config: ${issue.message}`);
  }
}
