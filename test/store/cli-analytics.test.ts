/**
 * `hmc analytics`: tables for people, the action's JSON for --json, RFC 4180 CSV for scripts, and
 * a clear line (never a new file) when there is no database yet.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { command, csvField } from '../../src/cli/analytics.js';
import { main } from '../../src/cli/main.js';
import { openStore } from '../../src/store/index.js';
import { FIVE, rec, tempDb, tempDir } from './helpers.js';

let out: string;
let err: string;

beforeEach(() => {
  out = '';
  err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    err += String(chunk);
    return true;
  });
});

afterEach(() => vi.restoreAllMocks());

function seeded(extra = FIVE): string {
  const path = tempDb();
  const store = openStore(path);
  store.recordSessions(extra);
  store.close();
  return path;
}

describe('hmc analytics', () => {
  it('prints the totals as aligned tables with thousands separators and percentages', async () => {
    expect(await command.run(['--db', seeded()])).toBe(0);
    expect(out).toContain('input without HMC   4,600');
    expect(out).toContain('input saved %      43.26%');
    expect(out).toContain('over model calls        5');
    expect(out).toMatch(/cost saved: 0\.0\d+ USD \(estimate: /);
    expect(out).toMatch(/background_compression\s+1,000\s+50\.25%/);
    expect(err).toBe('');
  });

  it('prints the same object as the analytics action for --json', async () => {
    expect(await command.run(['--db', seeded(), '--period', 'project', '--limit', '1', '--json'])).toBe(0);
    expect(JSON.parse(out)).toEqual({
      scope: 'global',
      period: 'project',
      rows: [{ project_path: '/home/u/proj', saved_tokens: 1400, input_tokens: 2000, sessions: 2 }],
    });
  });

  it('filters by --project, which implies scope=project', async () => {
    expect(await command.run(['--db', seeded(), '--project', '/home/u/proj/sub', '--json'])).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ scope: 'project', project: '/home/u/proj/sub', total_saved: 500 });
  });

  it('writes CSV with a header row and RFC 4180 quoting', async () => {
    const path = seeded([
      rec({ session_id: 'q', project_path: '/a,"b"\nc', input_tokens_raw: 10, input_tokens_hmc: 4 }),
    ]);
    expect(await command.run(['--db', path, '--period', 'project', '--csv'])).toBe(0);
    expect(out).toBe('project_path,saved_tokens,input_tokens,sessions\r\n"/a,""b""\nc",6,10,1\r\n');
    expect(csvField('plain')).toBe('plain');
  });

  it('says there is no database yet, exits 0 and creates nothing', async () => {
    const path = join(tempDir(), 'none', 'analytics.db');
    expect(await command.run(['--db', path])).toBe(0);
    expect(err).toBe(`no analytics database at ${path} yet\n`);
    expect(out).toBe('');
    expect(existsSync(path)).toBe(false);
  });

  it('prints the zero shapes for --json and a header for --csv when there is no database', async () => {
    const path = join(tempDir(), 'analytics.db');
    expect(await command.run(['--db', path, '--json'])).toBe(0);
    expect(JSON.parse(out)).toEqual({
      scope: 'global',
      period: 'all',
      project: '',
      total_saved: 0,
      total_sessions: 0,
      total_input: 0,
      total_sent: 0,
      total_output: 0,
      savings_pct: 0,
      model_calls: 0,
      sessions_without_model_calls: 0,
      by_strategy: {},
      by_tool: {},
      cost_saved: {
        amount: 0,
        currency: 'USD',
        estimate: true,
        basis: expect.stringContaining('estimate'),
        unknown_models: [],
      },
    });
    out = '';
    expect(await command.run(['--db', path, '--csv', '--period', 'tool'])).toBe(0);
    expect(out).toBe('tool,saved\r\n');
    expect(existsSync(path)).toBe(false);
  });

  it('finds the database in --state-dir', async () => {
    const path = seeded();
    expect(await command.run(['--state-dir', join(path, '..'), '--json', '--period', 'tool'])).toBe(0);
    expect(JSON.parse(out).rows).toEqual([
      { tool: 'read_file', saved: 650 },
      { tool: 'terminal', saved: 340 },
    ]);
  });

  it('exits 2 with one line for a bad limit or an unknown option', async () => {
    expect(await command.run(['--db', seeded(), '--limit', 'abc'])).toBe(2);
    expect(err).toBe('hmc analytics: limit must be a whole number, got "abc"\n');
    // Unknown options are reported by main.ts, the same way for every command (docs/cli.md).
    err = '';
    expect(await main(['analytics', '--bogus'])).toBe(2);
    expect(err).toMatch(/^hmc analytics: unknown option '--bogus'\nusage: hmc analytics/);
  });

  it('an unknown period is a usage error with or without a database, checked before it is opened (issue 27, finding 6)', async () => {
    const none = join(tempDir(), 'none', 'analytics.db');
    expect(await command.run(['--db', none, '--period', 'yearly'])).toBe(2);
    expect(err).toBe(
      'hmc analytics: unknown period "yearly" (allowed: all, day, week, month, recent, project, tool, strategy, model, output, work, usage)\n',
    );
    expect(out).toBe('');
    err = '';
    expect(await command.run(['--db', seeded(), '--period', 'yearly'])).toBe(2);
    expect(err).toMatch(/^hmc analytics: unknown period "yearly" \(allowed: all, day,/);
    err = '';
    expect(await command.run(['--db', none, '--period', 'day', '--since', '2026-13-01'])).toBe(2);
    expect(err).toMatch(/since must be a calendar day/);
    expect(existsSync(none)).toBe(false);
  });

  it('says when --limit is more than the period lists, on stderr and under the table; exit 0 (issue 26, finding 4)', async () => {
    const path = seeded();
    expect(await command.run(['--db', path, '--period', 'recent', '--limit', '1000000'])).toBe(0);
    expect(err).toBe('hmc analytics: --limit 1,000,000 is more than period=recent lists: at most 10,000 rows\n');
    expect(out).toMatch(/\n\n\(--limit 1,000,000 is more than period=recent lists: at most 10,000 rows\)\n$/);
    out = '';
    err = '';
    expect(await command.run(['--db', path, '--period', 'recent', '--limit', '1000000', '--json'])).toBe(0);
    expect(JSON.parse(out).rows).toHaveLength(5);
    expect(err).toMatch(/at most 10,000 rows/);
    err = '';
    expect(await command.run(['--db', path, '--period', 'recent', '--limit', '10000', '--csv'])).toBe(0);
    expect(err).toBe('');
  });

  it('defuses a formula in a project, tool or model name in --csv (issue 26, finding 4)', async () => {
    const path = seeded([
      rec({
        session_id: 'f',
        project_path: '=HYPERLINK("http://x.example","a")',
        model: '@evil',
        input_tokens_raw: 10,
        input_tokens_hmc: 4,
      }),
    ]);
    expect(await command.run(['--db', path, '--period', 'project', '--csv'])).toBe(0);
    expect(out).toBe(
      `project_path,saved_tokens,input_tokens,sessions\r\n"'=HYPERLINK(""http://x.example"",""a"")",6,10,1\r\n`,
    );
    out = '';
    expect(await command.run(['--db', path, '--period', 'model', '--csv'])).toBe(0);
    expect(out.split('\r\n')[1]).toMatch(/^'@evil,/);
  });
});
