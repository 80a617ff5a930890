/**
 * The provider's own numbers on /metrics and in the OTLP push (issue 24, part 6): a real SQLite
 * file with provider usage rows (calls HMC counted, an auxiliary call it never saw, a model no
 * price names, a model name that needs escaping) gives those exact sums, money by kind and basis
 * with the sent side measured where the provider reported the call, the unpriced model named and
 * not priced, and the OTLP push carries the same figures as the scrape.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { reconcile } from '../../src/store/reconcile.js';
import type { UsageRecord } from '../../src/store/usage.js';
import { rec } from '../store/fixtures/five.js';
import { rawRequest } from './helpers.js';
import { PRICING, rig, type Rig } from './setup.js';

type Point = { attributes: { key: string; value: { stringValue: string } }[]; asInt?: string; asDouble?: number };
type Metric = {
  name: string;
  unit: string;
  description: string;
  sum?: { dataPoints: Point[] };
  gauge?: { dataPoints: Point[] };
};
type Body = { resourceMetrics: { scopeMetrics: { metrics: Metric[] }[] }[] };

const WEIRD = 'we"ird\\model\nx';
const T = Date.UTC(2026, 10, 1, 12, 0, 0);

/** A provider usage row with the defaults of a call HMC never counted. */
const call = (r: Partial<UsageRecord> & Pick<UsageRecord, 'session_id' | 'seq' | 'model'>): UsageRecord => ({
  at: T + r.seq * 1000,
  provider: 'p',
  prompt_tokens: 0,
  completion_tokens: 0,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  reasoning_tokens: 0,
  hmc_input: null,
  raw_input: null,
  hmc_cached: null,
  source: 'hook',
  ...r,
});

const USAGE: UsageRecord[] = [
  // Session m1: two calls HMC counted, and a title-generation call it never saw (another model).
  call({
    session_id: 'm1',
    seq: 1,
    model: 'claude-sonnet-4',
    prompt_tokens: 10_000,
    cache_write_tokens: 9_000,
    completion_tokens: 500,
    hmc_input: 9_500,
    raw_input: 12_000,
    hmc_cached: 0,
    raw_cached: 0,
    seen: true,
    call_id: 'a1',
    turn: 1,
  }),
  call({
    session_id: 'm1',
    seq: 2,
    model: 'claude-sonnet-4',
    prompt_tokens: 11_000,
    cache_read_tokens: 9_000,
    cache_write_tokens: 1_500,
    completion_tokens: 300,
    reasoning_tokens: 100,
    hmc_input: 10_000,
    raw_input: 15_000,
    hmc_cached: 9_000,
    raw_cached: 11_000,
    seen: true,
    call_id: 'a2',
    turn: 2,
  }),
  call({ session_id: 'm1', seq: 3, model: 'gpt-4o-mini', prompt_tokens: 800, completion_tokens: 20, seen: false }),
  // Session m3: a model no price table names, and an unseen call under a name that needs escaping.
  call({
    session_id: 'm3',
    seq: 1,
    model: 'mystery-model-x',
    prompt_tokens: 5_000,
    cache_read_tokens: 1_000,
    completion_tokens: 50,
    hmc_input: 4_000,
    raw_input: 6_000,
    hmc_cached: 800,
    raw_cached: 900,
    seen: true,
    call_id: 'b1',
    turn: 1,
  }),
  call({ session_id: 'm3', seq: 2, model: WEIRD, prompt_tokens: 100, completion_tokens: 5, seen: false }),
  // A call whose host named no model: shown as every other surface shows it, never as an empty label.
  call({ session_id: 'm3', seq: 3, model: '', prompt_tokens: 7, seen: false }),
];

/** Prometheus label text (`k="v",…`, values escaped) as `k=v,…` with the values unescaped. */
function unescapeLabels(text: string): string {
  const out: string[] = [];
  const re = /(\w+)="((?:[^"\\]|\\.)*)"/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    out.push(`${m[1]}=${(m[2] ?? '').replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c))}`);
  }
  return out.join(',');
}

/** One family's samples of a /metrics text, as unescaped `k=v,…` → value. */
function samples(text: string, name: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (m?.[1] === name) out[unescapeLabels(m[2] ?? '')] = Number(m[3]);
  }
  return out;
}

/** One OTLP metric's points, as `k=v,…` → value. */
function points(body: Body, name: string): Record<string, number> {
  const m = body.resourceMetrics[0]?.scopeMetrics[0]?.metrics.find((x) => x.name === name);
  return Object.fromEntries(
    ((m?.gauge ?? m?.sum)?.dataPoints ?? []).map((p) => [
      p.attributes.map((a) => `${a.key}=${a.value.stringValue}`).join(','),
      p.asDouble ?? Number(p.asInt),
    ]),
  );
}

const tokens = (model: string, calls: string, t: [number, number, number, number, number]): Record<string, number> =>
  Object.fromEntries(
    (['prompt', 'cache_read', 'cache_write', 'output', 'reasoning'] as const).map((type, i) => [
      `model=${model},type=${type},calls=${calls}`,
      t[i] as number,
    ]),
  );
const cost = (model: string, kind: string, basis: string, calls: string): string =>
  `model=${model},kind=${kind},basis=${basis},calls=${calls},currency=USD`;

describe('measured series on /metrics and OTLP', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hmc-measured-'));
  const dbPath = join(dir, 'analytics.db');
  let r: Rig;
  let server: Server;
  const got: Body[] = [];
  let text = '';

  beforeAll(async () => {
    const store = openStore(dbPath);
    store.recordSessions([
      rec({
        session_id: 'm1',
        model: 'claude-sonnet-4',
        input_tokens_raw: 27_000,
        input_tokens_hmc: 19_500,
        model_calls: 2,
        cached_raw: 11_000,
        cached_hmc: 9_000,
        plain_raw: 0,
        plain_hmc: 0,
      }),
      // No provider usage for m2: its money is HMC's model on both sides.
      rec({
        session_id: 'm2',
        model: 'claude-sonnet-4',
        input_tokens_raw: 2_000,
        input_tokens_hmc: 1_500,
        model_calls: 2,
        cached_raw: 1_000,
        cached_hmc: 500,
        plain_raw: 0,
        plain_hmc: 0,
      }),
      rec({
        session_id: 'm3',
        model: 'mystery-model-x',
        input_tokens_raw: 6_000,
        input_tokens_hmc: 4_000,
        model_calls: 1,
        cached_raw: 900,
        cached_hmc: 800,
        plain_raw: 0,
        plain_hmc: 0,
      }),
    ]);
    store.recordUsage(USAGE);
    store.close();
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => void (body += c.toString()));
      req.on('end', () => {
        got.push(JSON.parse(body) as Body);
        res.writeHead(200).end('{}');
      });
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const port = (server.address() as { port: number }).port;
    r = await rig({ dbPath, extra: { otlp: { endpoint: `http://127.0.0.1:${port}`, intervalSeconds: 3600 } } });
    text = (await rawRequest(r.dash.port, '/metrics')).body;
  });
  afterAll(async () => {
    await r.done();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the provider's own tokens and calls per model, calls HMC counted apart from those it never saw", () => {
    expect(samples(text, 'hmc_provider_tokens_total')).toEqual({
      ...tokens('claude-sonnet-4', 'seen', [21_000, 9_000, 10_500, 800, 100]),
      ...tokens('gpt-4o-mini', 'unseen', [800, 0, 0, 20, 0]),
      ...tokens('mystery-model-x', 'seen', [5_000, 1_000, 0, 50, 0]),
      ...tokens(WEIRD, 'unseen', [100, 0, 0, 5, 0]),
      ...tokens('(unknown)', 'unseen', [7, 0, 0, 0, 0]),
    });
    expect(samples(text, 'hmc_provider_calls_total')).toEqual({
      'model=claude-sonnet-4,calls=seen': 2,
      'model=gpt-4o-mini,calls=unseen': 1,
      'model=mystery-model-x,calls=seen': 1,
      [`model=${WEIRD},calls=unseen`]: 1,
      'model=(unknown),calls=unseen': 1,
    });
    expect(text).toContain('# TYPE hmc_provider_tokens_total counter\n');
    expect(text).toMatch(/# HELP hmc_provider_tokens_total Measured: the provider's own/);
    // Escaped on the wire: one line per sample, the quote and backslash escaped.
    expect(text).toContain('hmc_provider_calls_total{model="we\\"ird\\\\model\\nx",calls="unseen"} 1\n');
  });

  it('money by kind and basis: sent measured where the provider reported the call, modelled where it reported none; raw modelled', () => {
    // claude-sonnet-4: input 3, cache read 0.3, cache write 3.75, output 15 per million (built-in).
    // m1, measured: 1,500 plain + 9,000 read + 10,500 written; 800 output.
    // m1, raw in the provider's tokens (each call's ratio): 12,000 x 10,000/9,500 all written; 16,500 of which 12,100 read.
    // m2, HMC's model: raw 1,000 written + 1,000 read; sent 1,000 written + 500 read.
    const m1Raw = (12_000 * (10_000 / 9_500) * 3.75 + (16_500 - 12_100) * 3.75 + 12_100 * 0.3) / 1e6;
    const got = samples(text, 'hmc_cost_usd');
    expect(Object.keys(got).sort()).toEqual(
      [
        cost('claude-sonnet-4', 'output', 'measured', 'seen'),
        cost('claude-sonnet-4', 'raw', 'modelled', 'seen'),
        cost('claude-sonnet-4', 'sent', 'measured', 'seen'),
        cost('claude-sonnet-4', 'sent', 'modelled', 'seen'),
        cost('gpt-4o-mini', 'output', 'measured', 'unseen'),
        cost('gpt-4o-mini', 'sent', 'measured', 'unseen'),
      ].sort(),
    );
    expect(got[cost('claude-sonnet-4', 'sent', 'measured', 'seen')]).toBeCloseTo(
      (1_500 * 3 + 9_000 * 0.3 + 10_500 * 3.75) / 1e6,
      8,
    );
    expect(got[cost('claude-sonnet-4', 'output', 'measured', 'seen')]).toBeCloseTo((800 * 15) / 1e6, 8);
    expect(got[cost('claude-sonnet-4', 'raw', 'modelled', 'seen')]).toBeCloseTo(
      m1Raw + (1_000 * 3.75 + 1_000 * 0.3) / 1e6,
      8,
    );
    expect(got[cost('claude-sonnet-4', 'sent', 'modelled', 'seen')]).toBeCloseTo((1_000 * 3.75 + 500 * 0.3) / 1e6, 8);
    // The auxiliary call: the provider's figures priced (gpt-4o-mini: input 0.15, output 0.6), no raw, in no saving.
    expect(got[cost('gpt-4o-mini', 'sent', 'measured', 'unseen')]).toBeCloseTo((800 * 0.15) / 1e6, 8);
    expect(got[cost('gpt-4o-mini', 'output', 'measured', 'unseen')]).toBeCloseTo((20 * 0.6) / 1e6, 8);
    expect(text).toContain('# TYPE hmc_cost_usd gauge\n');
    expect(text).toMatch(/# HELP hmc_cost_usd .*measured = the provider's own usage.*modelled = HMC's count/);
  });

  it("the measured side is reconcile's: the same session's calls give the Provider vs HMC card's figures", () => {
    const store = openStore(dbPath, { readonly: true });
    const calls = store.usage('m1')?.calls ?? [];
    store.close();
    const rc = reconcile(calls, PRICING);
    const got = samples(text, 'hmc_cost_usd');
    expect(got[cost('claude-sonnet-4', 'sent', 'measured', 'seen')]).toBeCloseTo(rc.cost.seen_measured_input, 8);
    // raw over seen = m1's calls (reconcile's modelled without HMC) + m2 (HMC's model, no provider usage).
    expect(
      (got[cost('claude-sonnet-4', 'raw', 'modelled', 'seen')] ?? 0) - (1_000 * 3.75 + 1_000 * 0.3) / 1e6,
    ).toBeCloseTo(rc.cost.modelled_without_hmc, 7);
  });

  it('a model no price names is named and priced at no default', () => {
    expect(samples(text, 'hmc_model_unpriced')).toEqual({
      'model=mystery-model-x': 1,
      [`model=${WEIRD}`]: 1,
      'model=(unknown)': 1,
    });
    expect(
      Object.keys(samples(text, 'hmc_cost_usd')).filter(
        (k) => k.includes('mystery') || k.includes('ird') || k.includes('(unknown)'),
      ),
    ).toEqual([]);
    // Its tokens are still counted.
    expect(samples(text, 'hmc_provider_tokens_total')['model=mystery-model-x,type=prompt,calls=seen']).toBe(5_000);
  });

  it('input tokens: kind="sent" as the other families say it, kind="hmc" kept (deprecated) with the same figure', () => {
    const input = samples(text, 'hmc_input_tokens_total');
    expect(input).toEqual({ 'kind=raw': 35_000, 'kind=sent': 25_000, 'kind=hmc': 25_000 });
    expect(text).toMatch(/# HELP hmc_input_tokens_total .*kind="hmc" is the same figure as sent.*deprecated/);
  });

  it('OTLP carries the same figures as /metrics', async () => {
    await expect.poll(() => got.length, { timeout: 5000 }).toBeGreaterThan(0);
    const body = got[0] as Body;
    const pairs: [string, string][] = [
      ['hmc_provider_tokens_total', 'hmc.provider.tokens'],
      ['hmc_provider_calls_total', 'hmc.provider.calls'],
      ['hmc_cost_usd', 'hmc.cost'],
      ['hmc_model_unpriced', 'hmc.model.unpriced'],
    ];
    for (const [prom, otlp] of pairs) {
      const scraped = samples(text, prom);
      expect(Object.keys(scraped).length, prom).toBeGreaterThan(0);
      expect(points(body, otlp), otlp).toEqual(scraped);
    }
    const m = body.resourceMetrics[0]?.scopeMetrics[0]?.metrics.find((x) => x.name === 'hmc.cost');
    expect(m?.gauge).toBeDefined();
    expect(m?.unit).toBe('{USD}');
    expect(m?.description).toContain("measured = the provider's own usage");
  });

  it('another currency names the family after it; a label that is no ISO code gives hmc_cost with the currency label', async () => {
    for (const [currency, family] of [
      ['EUR', 'hmc_cost_eur'],
      ['US$', 'hmc_cost'],
    ] as const) {
      const other = await rig({ dbPath, extra: { pricing: { ...PRICING, currency } } });
      try {
        const t = (await rawRequest(other.dash.port, '/metrics')).body;
        expect(t).toContain(`# TYPE ${family} gauge\n`);
        expect(t).not.toContain('# TYPE hmc_cost_usd ');
        expect(Object.keys(samples(t, family)).every((k) => k.endsWith(`currency=${currency}`))).toBe(true);
      } finally {
        await other.done();
      }
    }
  });

  it('a call recorded after a scrape is in the next one (the figures are kept only while the file is unchanged)', async () => {
    const key = 'model=claude-sonnet-4,type=prompt,calls=seen';
    expect(samples((await rawRequest(r.dash.port, '/metrics')).body, 'hmc_provider_tokens_total')[key]).toBe(21_000);
    // Another connection (the sidecar's) writes; then this very connection writes and reads back.
    const writer = openStore(dbPath);
    writer.recordUsage([
      call({
        session_id: 'm1',
        seq: 4,
        model: 'claude-sonnet-4',
        prompt_tokens: 1_000,
        hmc_input: 900,
        raw_input: 1_000,
        hmc_cached: 0,
        raw_cached: 0,
        seen: true,
      }),
    ]);
    writer.close();
    expect(samples((await rawRequest(r.dash.port, '/metrics')).body, 'hmc_provider_tokens_total')[key]).toBe(22_000);
    const same = openStore(dbPath);
    try {
      const seen = () => same.measured().calls.find((c) => c.model === 'claude-sonnet-4' && c.counted)?.prompt_tokens;
      expect(seen()).toBe(22_000);
      same.recordUsage([
        call({
          session_id: 'm1',
          seq: 5,
          model: 'claude-sonnet-4',
          prompt_tokens: 500,
          hmc_input: 450,
          raw_input: 500,
          hmc_cached: 0,
          raw_cached: 0,
          seen: true,
        }),
      ]);
      expect(seen()).toBe(22_500);
    } finally {
      same.close();
    }
  });

  it('without a database: no measured family', async () => {
    const bare = await rig({ dbPath: '/nonexistent/analytics.db' });
    try {
      const t = (await rawRequest(bare.dash.port, '/metrics')).body;
      expect(t).toContain('hmc_sessions_total');
      for (const f of ['hmc_provider_tokens_total', 'hmc_provider_calls_total', 'hmc_cost_usd', 'hmc_model_unpriced'])
        expect(t).not.toContain(`# TYPE ${f} `);
    } finally {
      await bare.done();
    }
  });
});
