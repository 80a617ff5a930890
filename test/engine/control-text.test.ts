/**
 * What a person reads from `/hmc` and `hmc control` (issue 27, finding 3): aligned text, never
 * JSON (`/hmc stats` printed fifty lines of it), and `--json` the very JSON the model's
 * hmc_control tool answers. A session replayed through a real engine gives real figures; the
 * tables are checked column by column (a number column ends where its rule of dashes ends).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSession, replaySession } from '../../src/app/replay.js';
import { createRuntime, type Runtime } from '../../src/app/runtime.js';
import { defaultConfig } from '../../src/config/keys.js';
import { num } from '../../src/core/text-table.js';
import { longLog, terminal } from '../helpers/conversation.js';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'session-build-fix.json');
const S = 'build-fix';

let dir = '';
let runtime: Runtime;
const text = (raw: string) => runtime.api.command({ session_id: S, raw_args: raw });
const json = (args: Record<string, unknown>) => runtime.api.control({ session_id: S, args });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hmc-ctl-text-'));
  const config = defaultConfig();
  // As `hmc replay --record` does: the session saved and recorded, then read back as Hermes would.
  runtime = await createRuntime({ stateDir: dir, config, log: () => {} });
  replaySession(parseSession(readFileSync(FIXTURE, 'utf8'), FIXTURE), {
    sessionId: S,
    config,
    platform: 'replay',
    engine: runtime.engine,
  });
  await runtime.flush();
});
afterAll(async () => {
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The tables in a text: each is a header line, a rule of dash runs, then rows up to a blank line;
 * returns, per table, its rows cut into cells at the rule's columns (and checks nothing spills).
 */
function tables(out: string): { header: string[]; rows: string[][]; raw: string[] }[] {
  const lines = out.split('\n');
  const found: { header: string[]; rows: string[][]; raw: string[] }[] = [];
  for (let i = 1; i < lines.length; i++) {
    if (!/^-+( {2}-+)*$/.test(lines[i]!)) continue;
    const spans = [...lines[i]!.matchAll(/-+/g)].map((m) => [m.index, m.index + m[0].length] as const);
    const cut = (line: string) =>
      spans.map(([a, b], k) => {
        // A cell never runs into the gap before the next column.
        if (k < spans.length - 1)
          expect(line.slice(b, spans[k + 1]![0]).trim(), `${JSON.stringify(line)} spills`).toBe('');
        return line.slice(a, k === spans.length - 1 ? undefined : b);
      });
    const raw: string[] = [];
    for (let j = i + 1; j < lines.length && lines[j] !== ''; j++) raw.push(lines[j]!);
    found.push({ header: cut(lines[i - 1]!).map((c) => c.trim()), rows: raw.map(cut), raw });
  }
  return found;
}

/** A number column's cells end at the column's right edge: right-aligned. */
function rightAligned(t: { rows: string[][] }, col: number): boolean {
  return t.rows.every((r) => (r[col] ?? '').trim() === '' || /[0-9%]$/.test(r[col] ?? ''));
}

describe('/hmc stats', () => {
  it("prints aligned tables holding the JSON answer's figures", async () => {
    const out = await text('stats');
    const answer = (await json({ action: 'stats' })) as {
      context_saved: { tokens: number; context_tokens: number; by_strategy: Record<string, number> };
      input_saved: {
        tokens: number;
        model_calls: number;
        by_strategy: Record<string, number>;
        by_tool: Record<string, number>;
        input_tokens: { raw: number; sent: number };
      };
      work: { elided: number };
    };
    expect(out.split('\n')[0]).toBe(`HMC stats, session ${S} [auto]`);
    expect(out).not.toMatch(/^\s*[{}"]/m);
    const [totals, strategies, tools, counts] = tables(out);
    expect(totals!.header).toEqual(['', 'tokens', '%']);
    const row = (label: string) => totals!.rows.find((r) => r[0]!.trim() === label)!.map((c) => c.trim());
    expect(row('context now')).toEqual(['context now', num(answer.context_saved.context_tokens), '']);
    expect(row('input saved')).toEqual([
      'input saved',
      num(answer.input_saved.tokens),
      `${((answer.input_saved.tokens / answer.input_saved.input_tokens.raw) * 100).toFixed(2)}%`,
    ]);
    expect(row(`input without HMC (${answer.input_saved.model_calls} model calls)`)[1]).toBe(
      num(answer.input_saved.input_tokens.raw),
    );
    expect(rightAligned(totals!, 1) && rightAligned(totals!, 2)).toBe(true);
    // Every strategy and tool of the answer, with its figures, largest input saving first.
    expect(strategies!.header).toEqual(['strategy', 'context saved now', 'input saved']);
    expect(strategies!.rows.map((r) => r.map((c) => c.trim()))).toEqual(
      Object.entries(answer.input_saved.by_strategy)
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => [k, num(answer.context_saved.by_strategy[k] ?? 0), num(v)]),
    );
    expect(tools!.rows.map((r) => r[0]!.trim()).sort()).toEqual(Object.keys(answer.input_saved.by_tool).sort());
    expect(rightAligned(tools!, 1) && rightAligned(tools!, 2)).toBe(true);
    expect(counts!.rows.find((r) => r[0]!.trim() === 'tool outputs shortened')![1]!.trim()).toBe(
      num(answer.work.elided),
    );
  });

  it("--json is the tool's JSON, as /hmc printed it before", async () => {
    const out = await text('stats --json');
    expect(JSON.parse(out)).toEqual(await json({ action: 'stats' }));
    expect(out).toBe(JSON.stringify(await json({ action: 'stats' }), null, 2));
  });
});

describe('/hmc status, context and the small actions', () => {
  it('status is the status text itself; --json wraps it as the tool does', async () => {
    const out = await text('status');
    expect(out).toMatch(
      /^HMC \[auto\] \| ctx: -- \| input saved: [0-9.]+K tokens over \d+ model calls \(\d+\.\d%\) \| context saved now: .* \| tools: \d+ tracked, \d+ pruned\n {2}input saved by strategy: /,
    );
    expect(JSON.parse(await text('status --json'))).toEqual({ status: out });
    expect(await json({ action: 'status' })).toEqual({ status: out });
  });

  it('context lines its figures up', async () => {
    const out = await text('context');
    const answer = await json({ action: 'context' });
    const [t] = tables(out);
    expect(t!.rows.map((r) => r[0]!.trim())).toEqual([
      'context now',
      'context without HMC',
      'context saved now',
      `input saved over ${String(answer.model_calls)} model calls`,
    ]);
    expect(t!.rows[0]![1]!.trim()).toBe(num(answer.context_tokens_estimate as number));
    expect(rightAligned(t!, 1)).toBe(true);
    expect(out).toMatch(
      /\ncontext use {10}unknown \(no context window known\)\ntool calls tracked {3}\d+\ntool outputs pruned {2}\d+\nmanual mode {10}off\n\nLatest request: /,
    );
    expect(JSON.parse(await text('context --json'))).toEqual(answer);
  });

  it('manual mode, sweep, config and help answer in words; errors stay one line', async () => {
    expect(await text('manual_status')).toBe('HMC manual mode: off');
    expect(await text('manual_set enabled=true')).toBe('HMC manual mode: on');
    expect(JSON.parse(await text('manual_status --json'))).toEqual({ manual_mode: true });
    expect(await text('manual_set enabled=false')).toBe('HMC manual mode: off');
    expect(await text('config')).toBe('HMC config: no problems found');
    expect(JSON.parse(await text('config --json'))).toEqual({ issues: [], summary: null });
    expect(await text('sweep count=x')).toBe('hmc: count must be a whole number of 0 or more, got "x"');
    const help = (await text('help')).split('\n');
    expect(help[0]).toBe('/hmc <action> [key=value…] [--json]');
    // The descriptions start in one column.
    expect(new Set(help.slice(1).map((l) => /^ {2}\S+ +/.exec(l)![0].length)).size).toBe(1);
  });

  it('analytics prints the tables hmc analytics prints', async () => {
    const out = await text('analytics period=tool');
    expect(out).toMatch(/^Input saved per tool, all projects\n\ntool +input saved +% of saved\n/);
    expect(JSON.parse(await text('analytics period=tool --json'))).toEqual(
      await json({ action: 'analytics', period: 'tool' }),
    );
  });

  it('recall prints what it is, then the exact original', async () => {
    const raw = terminal(longLog(300, 150));
    const replaced = runtime.api.postToolCall({
      session_id: S,
      tool_name: 'terminal',
      args: { command: 'make' },
      result: raw,
      tool_call_id: 'recall-me',
    }).replace;
    const marker = /recall id=(r[0-9a-f]{10})/.exec(String(replaced));
    expect(marker).not.toBeNull();
    const id = marker![1]!;
    const answer = (await json({ action: 'recall', id })) as { tool: string; content: string };
    expect(answer.content).toBe(raw);
    expect(await text(`recall id=${id}`)).toBe(
      `recall ${id}: the exact original of a ${answer.tool} output\n\n${answer.content}`,
    );
    expect(JSON.parse(await text(`recall id=${id} --json`))).toEqual(answer);
  });
});
