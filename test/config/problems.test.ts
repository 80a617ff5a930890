// Config mistakes said where the user looks (issue 27, finding 2): "did you mean", the problems in
// file order with their lines, one summary line, and the last good config kept when an edit breaks
// the file.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CONFIG_KEYS, defaultConfig } from '../../src/config/keys.js';
import { ConfigSource, keepLastGood, parseConfigText } from '../../src/config/load.js';
import { problemsLine } from '../../src/config/problems.js';
import { editDistance, suggestKey } from '../../src/config/suggest.js';
import { NULL_SINK } from '../../src/events/types.js';

const KNOWN = new Set(
  CONFIG_KEYS.flatMap((k) => k.path.split('.').map((_, i, parts) => parts.slice(0, i + 1).join('.'))),
);

describe('did you mean', () => {
  it.each([
    ['enabeld', 'enabled'],
    ['Enabled', 'enabled'],
    ['truncaton', 'truncation'],
    ['truncation.max_line', 'truncation.max_lines'],
    ['truncation.maxlines', 'truncation.max_lines'],
    ['strategies.dedup', null],
    ['strategies.deduplicaiton.enabled', null],
    ['strategies.deduplicaiton', 'strategies.deduplication'],
    ['max_lines', 'truncation.max_lines'],
    ['retention_days', 'analytics.retention_days'],
    ['colour', null],
    ['debgu', 'debug'],
  ])('%s → %s', (unknown, meant) => {
    expect(suggestKey(unknown, KNOWN)).toBe(meant);
  });

  it('counts a swap of neighbours as one edit, and ignores case', () => {
    expect(editDistance('enabeld', 'enabled')).toBe(1);
    expect(editDistance('ENABLED', 'enabled')).toBe(0);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it("puts the suggestion in the unknown key's message", () => {
    const { issues } = parseConfigText('enabeld: true\n');
    expect(issues.map((i) => i.message)).toEqual(['enabeld: unknown key, ignored; did you mean `enabled`? (line 1)']);
  });
});

describe('problems in file order, in one line', () => {
  const text = 'truncation:\n  max_lines: lots\nenabeld: false\nanalytics:\n  retention_days: -1\n';

  it('orders the problems as the file does and names each line', () => {
    const messages = parseConfigText(text).issues.map((i) => i.message);
    expect(messages).toEqual([
      'truncation.max_lines: expected a whole number from 3 to 1000000, got "lots"; using the default 50 (line 2)',
      'enabeld: unknown key, ignored; did you mean `enabled`? (line 3)',
      expect.stringMatching(/^analytics\.retention_days: expected .* \(line 5\)$/),
    ]);
  });

  it('summarises them: the count, the file and the first problem whole', () => {
    const { issues } = parseConfigText(text);
    expect(problemsLine(issues, '/h/config.yaml')).toBe(
      'config: 3 problems in /h/config.yaml: truncation.max_lines: expected a whole number from 3 to 1000000, got "lots"; using the default 50 (line 2) (/hmc config lists all)',
    );
    expect(problemsLine(parseConfigText('debgu: 1\n').issues, null)).toBe(
      'config: 1 problem: debgu: unknown key, ignored; did you mean `debug`? (line 1)',
    );
    expect(problemsLine([], '/h/config.yaml')).toBeNull();
  });

  it('says loudly that a file that is not YAML means the defaults at the first load', () => {
    const loaded = parseConfigText('truncation: [1, 2\nb: }', 'config.yaml');
    expect(loaded.unusable).toBe(true);
    expect(loaded.config).toEqual(defaultConfig());
    expect(problemsLine(loaded.issues, null)).toMatch(
      /^config: 1 problem: config\.yaml is not valid YAML at line 2 \(.+\); using the defaults for every key$/,
    );
  });
});

describe('the last good config', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('stays in force when a reload finds the file broken, and gives way to the next good edit', () => {
    dir = mkdtempSync(join(tmpdir(), 'hmc-lastgood-'));
    const file = join(dir, 'config.yaml');
    writeFileSync(file, 'truncation:\n  max_lines: 40\nenabeld: true\n');
    const lines: string[] = [];
    const source = new ConfigSource(file, (l) => lines.push(l));
    expect(source.config.truncation.max_lines).toBe(40);

    writeFileSync(file, 'truncation:\n  max_lines: 80\n  - broken: [\n');
    source.reload();
    expect(source.config.truncation.max_lines).toBe(40);
    expect(source.issues[0]?.message).toMatch(
      /is not valid YAML at line 3 \(.+\); keeping the config in force \(the last one that parsed\) until the file is fixed$/,
    );
    expect(source.issues[1]?.message).toMatch(/^enabeld: unknown key/);
    expect(lines.some((l) => l.includes('keeping the config in force'))).toBe(true);

    writeFileSync(file, '{{{');
    source.reload();
    expect(source.config.truncation.max_lines).toBe(40);
    expect(source.issues.filter((i) => i.message.includes('keeping')).length).toBe(1);

    writeFileSync(file, 'truncation:\n  max_lines: 80\n');
    source.reload();
    expect(source.config.truncation.max_lines).toBe(80);
    expect(source.issues).toEqual([]);
  });

  it('lets a deleted file mean the defaults (a removal is meant, a broken edit is not)', () => {
    const good = parseConfigText('truncation:\n  max_lines: 40\n');
    expect(keepLastGood(good, { config: defaultConfig(), issues: [] }).config.truncation.max_lines).toBe(50);
    const broken = parseConfigText('a: [', 'config.yaml');
    expect(keepLastGood(good, broken).config.truncation.max_lines).toBe(40);
    // Broken from the start: nothing good to keep, the defaults stand, said as a problem.
    expect(keepLastGood(broken, parseConfigText('b: {', 'config.yaml')).config).toEqual(defaultConfig());
  });
});

describe('/hmc status and hmc_control config', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('shows the problems line under /hmc status, and the summary in the config action', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hmc-status-'));
    const { Engine } = await import('../../src/engine/engine.js');
    const loaded = parseConfigText('enabeld: true\ntruncation:\n  max_lines: lots\n');
    const e = new Engine({
      config: () => loaded.config,
      stateDir: dir,
      log: () => {},
      sink: NULL_SINK,
      recorder: { record: () => {} },
      control: { configIssues: () => loaded.issues, configFile: '/p/config.yaml' },
    });
    const status = await e.command({ session_id: 's1', raw_args: 'status' });
    expect(status).toMatch(/^HMC \[auto\] \| no model call in this session yet/);
    expect(status).toContain(
      '\n  config: 2 problems in /p/config.yaml: enabeld: unknown key, ignored; did you mean `enabled`? (line 1) (/hmc config lists all)',
    );
    const answer = await e.control({ session_id: 's1', args: { action: 'config' } });
    expect(answer).toMatchObject({
      issues: [expect.stringMatching(/^enabeld/), expect.stringMatching(/^truncation\.max_lines/)],
      summary: expect.stringMatching(/^config: 2 problems/),
    });
    await e.flushSaves();
  });
});
