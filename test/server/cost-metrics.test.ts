/**
 * Cost series (issue 27, finding 6): /metrics and the OTLP push carry, per model, the input's
 * estimated cost without HMC and as sent, and the tokens read from and written to the prompt cache
 * under HMC's cache model; the same figures in both, the store's own, and labelled an estimate.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { priceModels, type PricedModel } from '../../src/store/pricing.js';
import { FIVE } from '../store/fixtures/five.js';
import { rawRequest } from './helpers.js';
import { PRICING, rig, type Rig } from './setup.js';

type Point = { attributes: { key: string; value: { stringValue: string } }[]; asInt?: string; asDouble?: number };
type Metric = { name: string; description: string; sum?: { dataPoints: Point[] }; gauge?: { dataPoints: Point[] } };
type Body = { resourceMetrics: { scopeMetrics: { metrics: Metric[] }[] }[] };

/** `name{labels} value` lines of one family, as label text → value. */
function samples(text: string, name: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m = new RegExp(`^${name}\\{(.*)\\} (\\S+)$`).exec(line);
    if (m?.[1] !== undefined) out[m[1]] = Number(m[2]);
  }
  return out;
}

/** OTLP points of one metric, as `k=v,k=v` → value. */
function points(body: Body, name: string): Record<string, number> {
  const m = body.resourceMetrics[0]?.scopeMetrics[0]?.metrics.find((x) => x.name === name);
  return Object.fromEntries(
    ((m?.gauge ?? m?.sum)?.dataPoints ?? []).map((p) => [
      p.attributes.map((a) => `${a.key}=${a.value.stringValue}`).join(','),
      p.asDouble ?? Number(p.asInt),
    ]),
  );
}

/** The expected figures straight from the store's rows, written out by hand (not through cost-series.ts). */
function expected(models: PricedModel[]) {
  const cost: Record<string, number> = {};
  const cache: Record<string, number> = {};
  for (const m of models) {
    cost[`model="${m.model}",kind="raw",currency="USD"`] = m.cost.without_hmc;
    cost[`model="${m.model}",kind="sent",currency="USD"`] = m.cost.spent;
    cache[`model="${m.model}",op="read",kind="raw"`] = m.cached_input;
    cache[`model="${m.model}",op="read",kind="sent"`] = m.cached_sent;
    cache[`model="${m.model}",op="write",kind="raw"`] = m.input - m.plain_input - m.cached_input;
    cache[`model="${m.model}",op="write",kind="sent"`] = m.sent - m.plain_sent - m.cached_sent;
  }
  return { cost, cache };
}

describe('cost series', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hmc-cost-'));
  const dbPath = join(dir, 'analytics.db');
  let r: Rig;
  let server: Server;
  const got: Body[] = [];
  let models: PricedModel[];

  beforeAll(async () => {
    const store = openStore(dbPath);
    store.recordSessions(FIVE);
    models = priceModels(store.byModel(), PRICING);
    store.close();
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => void (text += c.toString()));
      req.on('end', () => {
        got.push(JSON.parse(text) as Body);
        res.writeHead(200).end('{}');
      });
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const port = (server.address() as { port: number }).port;
    r = await rig({ dbPath, extra: { otlp: { endpoint: `http://127.0.0.1:${port}`, intervalSeconds: 3600 } } });
  });
  afterAll(async () => {
    await r.done();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('/metrics: estimated input cost raw and sent, and cache reads and writes, per model, HELP saying estimate', async () => {
    const text = (await rawRequest(r.dash.port, '/metrics')).body;
    const want = expected(models);
    // The fixture has a model with the cache model and sessions without it: both kinds of row.
    expect(want.cache['model="gpt-a",op="read",kind="raw"']).toBe(500);
    expect(want.cache['model="claude",op="write",kind="sent"']).toBe(1500);
    expect(samples(text, 'hmc_input_cost_estimate')).toEqual(want.cost);
    expect(samples(text, 'hmc_cache_tokens_estimate_total')).toEqual(want.cache);
    expect(text).toContain('# TYPE hmc_input_cost_estimate gauge\n');
    expect(text).toContain('# TYPE hmc_cache_tokens_estimate_total counter\n');
    for (const f of ['hmc_input_cost_estimate', 'hmc_cache_tokens_estimate_total']) {
      expect(text).toMatch(new RegExp(`# HELP ${f} .*HMC's estimate .*not the provider's bill`));
    }
    const total = (k: 'raw' | 'sent') =>
      Object.entries(want.cost)
        .filter(([l]) => l.includes(`kind="${k}"`))
        .reduce((a, [, v]) => a + v, 0);
    expect(total('raw') - total('sent')).toBeCloseTo(
      models.reduce((a, m) => a + m.cost.saved, 0),
      8,
    );
  });

  it('OTLP: the same figures', async () => {
    await expect.poll(() => got.length, { timeout: 5000 }).toBeGreaterThan(0);
    const body = got[0] as Body;
    const relabel = (rec: Record<string, number>) =>
      Object.fromEntries(Object.entries(rec).map(([k, v]) => [k.replace(/"/g, ''), v]));
    const want = expected(models);
    expect(points(body, 'hmc.model.input.cost')).toEqual(relabel(want.cost));
    expect(points(body, 'hmc.model.cache.tokens')).toEqual(relabel(want.cache));
    const cost = body.resourceMetrics[0]?.scopeMetrics[0]?.metrics.find((m) => m.name === 'hmc.model.input.cost');
    expect(cost?.description).toContain("not the provider's bill");
  });

  it('without a database: no cost family (nothing to price), the rest still answers', async () => {
    const bare = await rig({ dbPath: '/nonexistent/analytics.db' });
    try {
      const text = (await rawRequest(bare.dash.port, '/metrics')).body;
      expect(text).toContain('hmc_sessions_total');
      expect(text).not.toContain('hmc_input_cost_estimate');
    } finally {
      await bare.done();
    }
  });
});
