import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CONFIG_KEYS, defaultConfig, resolveConfig } from '../../src/config/keys.js';
import { ConfigSource, loadConfigFile, parseConfigText } from '../../src/config/load.js';
import { LANGUAGES as CODE_FILTER_LANGUAGES } from '../../src/strategies/single/code-filter/languages.js';
import { resolveDbPath, safeFileName } from '../../src/config/paths.js';
import { resolveStateDir } from '../../src/hosts/state-dir.js';

describe('config keys', () => {
  it('gives the original defaults for an empty file', () => {
    const { config, issues } = parseConfigText('');
    expect(issues).toEqual([]);
    expect(config.truncation).toMatchObject({
      enabled: true,
      max_lines: 50,
      head_lines: 10,
      tail_lines: 10,
      min_content_length: 500,
    });
    expect(config.strategies.purge_errors.turns).toBe(4);
    expect(config.compress.protected_tools).toEqual(['write_file', 'patch']);
    expect(config.analytics).toEqual({ enabled: true, retention_days: 90, db_path: '' });
  });

  it.each([
    ['truncation:\n  max_lines: abc', 'truncation.max_lines', 50],
    ['strategies:\n  purge_errors:\n    turns: -2', 'strategies.purge_errors.turns', 4],
    ['compress:\n  max_context_percent: 80%', 'compress.max_context_percent', 0.8],
    ['code_filter:\n  min_lines: null', 'code_filter.min_lines', 30],
    ['prune_notification: loud', 'prune_notification', 'detailed'],
  ])('reports %j by its key and falls back for that key alone', (yaml, path, fallback) => {
    const { config, issues } = parseConfigText(`${yaml}\nanalytics:\n  retention_days: 7\n`);
    expect(issues.map((i) => i.path)).toContain(path);
    expect(issues.find((i) => i.path === path)?.message).toContain(path);
    const value = path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], config);
    expect(value).toEqual(fallback);
    expect(config.analytics.retention_days).toBe(7);
  });

  it('reads "false" as false (the original treated it as true) and a lone string as a one-item list', () => {
    const { config, issues } = parseConfigText('enabled: "false"\ncode_filter:\n  languages: python\n');
    expect(issues).toEqual([]);
    expect(config.enabled).toBe(false);
    expect(config.code_filter.languages).toEqual(['python']);
  });

  it('reports unknown keys and invalid YAML without throwing', () => {
    expect(parseConfigText('truncaton:\n  max_lines: 5').issues[0]?.message).toMatch(/truncaton: unknown key/);
    const broken = parseConfigText('a: [1, 2\nb: }');
    expect(broken.issues[0]?.message).toMatch(/not valid YAML/);
    expect(broken.config).toEqual(defaultConfig());
    expect(resolveConfig([1, 2]).issues[0]?.path).toBe('(root)');
  });

  it('documents every key in config.yaml.example', () => {
    const example = readFileSync(join(import.meta.dirname, '..', '..', 'config.yaml.example'), 'utf8');
    const parsed = parseConfigText(example);
    expect(parsed.issues).toEqual([]);
    for (const key of CONFIG_KEYS) expect(example).toContain(key.path.split('.').at(-1) as string);
  });
});

describe('config file watching', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('applies an edit to config.yaml while running, without a restart', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hmc-config-'));
    const file = join(dir, 'config.yaml');
    writeFileSync(file, 'truncation:\n  max_lines: 40\n');
    const source = new ConfigSource(file);
    await source.watch();
    expect(source.config.truncation.max_lines).toBe(40);
    const changed = new Promise<void>((resolve) => source.onChange(() => resolve()));
    writeFileSync(file, 'truncation:\n  max_lines: 80\n');
    await changed;
    expect(source.config.truncation.max_lines).toBe(80);
    await source.close();
  });
});

describe('paths', () => {
  it('resolves the state dir and database from options, then the environment, then Hermes home', () => {
    expect(resolveStateDir('/x/state', {})).toBe('/x/state');
    expect(resolveStateDir(undefined, { HMC_STATE_DIR: '/y' })).toBe('/y');
    expect(resolveStateDir(undefined, { HERMES_HOME: '/h' })).toBe('/h/hmc_state');
    expect(resolveDbPath('', '/h/hmc_state', {})).toBe('/h/hmc_state/analytics.db');
    expect(resolveDbPath('', '/s', { HMC_DB_PATH: '/db/a.db' })).toBe('/db/a.db');
    expect(resolveDbPath('/c.db', '/s', { HMC_DB_PATH: '/db/a.db' })).toBe('/c.db');
  });

  it('makes any session id a safe file name', () => {
    expect(safeFileName('../../etc/passwd')).toBe('__.._etc_passwd');
    expect(safeFileName('')).toBe('_');
    expect(safeFileName('abc-123_x.y')).toBe('abc-123_x.y');
  });
});

describe('config.yaml.example', () => {
  it('is exactly what the key table renders (regenerate with `npm run config:example`)', async () => {
    const { renderExample } = await import('../../src/config/example.js');
    expect(readFileSync(join(import.meta.dirname, '..', '..', 'config.yaml.example'), 'utf8')).toBe(renderExample());
  });
});

describe('docs/configuration.md', () => {
  it('is exactly what the key table renders (regenerate with `npm run config:example`)', async () => {
    const { renderReference } = await import('../../src/config/reference.js');
    expect(readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'configuration.md'), 'utf8')).toBe(
      renderReference(),
    );
  });

  it('documents every key with its default and what it accepts', async () => {
    const { renderReference } = await import('../../src/config/reference.js');
    const doc = renderReference();
    for (const key of CONFIG_KEYS) expect(doc).toContain(`| \`${key.path}\` | \`${JSON.stringify(key.default)}\` |`);
    expect(doc).toContain('| `truncation.max_lines` | `50` | a whole number from 3 to 1000000 |');
    expect(doc).toContain('| `prune_notification` | `"detailed"` | one of detailed, minimal |');
  });
});

describe('config path', () => {
  it('takes --config, else $HMC_CONFIG, else config.yaml at the package root', async () => {
    const { resolveConfigPath } = await import('../../src/config/paths.js');
    expect(resolveConfigPath('/etc/hmc.yaml', {})).toBe('/etc/hmc.yaml');
    expect(resolveConfigPath(undefined, { HMC_CONFIG: '/x/c.yaml' })).toBe('/x/c.yaml');
    expect(resolveConfigPath(undefined, {})).toBe(join(import.meta.dirname, '..', '..', 'config.yaml'));
  });
});

describe('config faults (issue 11)', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const until = async (pred: () => boolean, ms = 5000): Promise<void> => {
    const end = Date.now() + ms;
    while (!pred()) {
      if (Date.now() > end) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  it('the watcher survives file → deleted → directory → file (regression: every later edit was ignored)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hmc-config-'));
    const file = join(dir, 'config.yaml');
    writeFileSync(file, 'truncation:\n  max_lines: 40\n');
    const logs: string[] = [];
    const source = new ConfigSource(file, (l) => logs.push(l));
    await source.watch({ pollMs: 50 });
    unlinkSync(file);
    await until(() => source.config.truncation.max_lines === 50);
    mkdirSync(file);
    await until(() => source.issues.some((i) => i.message.includes('is a directory')));
    rmSync(file, { recursive: true });
    writeFileSync(file, 'truncation:\n  max_lines: 70\n');
    await until(() => source.config.truncation.max_lines === 70);
    writeFileSync(file, 'enabled: false\n');
    await until(() => source.config.enabled === false);
    await source.close();
  });

  it('reports a directory at the config path as a directory, not as bad YAML', () => {
    dir = mkdtempSync(join(tmpdir(), 'hmc-config-'));
    const loaded = loadConfigFile(dir);
    expect(loaded.issues).toHaveLength(1);
    expect(loaded.issues[0]?.message).toContain(`${dir} is a directory, not a config file`);
    expect(loaded.issues[0]?.message).not.toMatch(/YAML/);
    expect(loaded.config).toEqual(defaultConfig());
  });

  it('turns YAML warnings into issues and never writes them to stderr', () => {
    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(w.message);
    process.on('warning', onWarning);
    process.stderr.write = ((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      const loaded = parseConfigText('enabled: !weird true\ntruncation:\n  max_lines: 60\n');
      expect(loaded.issues.some((i) => /YAML warning: Unresolved tag: !weird/.test(i.message))).toBe(true);
      expect(loaded.config.truncation.max_lines).toBe(60);
    } finally {
      process.stderr.write = write;
    }
    return new Promise<void>((done) =>
      setImmediate(() => {
        process.off('warning', onWarning);
        expect(written).toEqual([]);
        expect(warnings).toEqual([]);
        done();
      }),
    );
  });

  it('checks code_filter.languages against the languages the code filter knows (regression: [cobol] was accepted)', () => {
    const cobol = parseConfigText('code_filter:\n  languages: [cobol]\n');
    expect(cobol.issues.map((i) => i.path)).toEqual(['code_filter.languages']);
    expect(cobol.issues[0]?.message).toContain('"cobol"');
    expect(cobol.config.code_filter.languages).toEqual([...CODE_FILTER_LANGUAGES]);
    const mixed = parseConfigText('code_filter:\n  languages: [Python, cobol]\n');
    expect(mixed.config.code_filter.languages).toEqual(['python']);
    expect(mixed.issues[0]?.message).toMatch(/"cobol" is not a language the code filter knows .*; ignored/);
    // Every language the code filter exports is accepted as is.
    const all = parseConfigText(`code_filter:\n  languages: [${CODE_FILTER_LANGUAGES.join(', ')}]\n`);
    expect(all.issues).toEqual([]);
  });
});
