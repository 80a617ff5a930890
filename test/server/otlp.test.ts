/**
 * OTLP export (issue 17, finding 7): the dashboard pushes the analytics store's lifetime figures
 * to a collector as OTLP/HTTP JSON, the first at start, the same figures /api answers; a collector
 * that fails costs one log line, and one more when it answers again.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { priceModels } from '../../src/store/pricing.js';
import { envHeaders, metricsUrl, startOtlpExport } from '../../src/server/otlp.js';
import { FIVE } from '../store/fixtures/five.js';
import { PRICING, rig, type Rig } from './setup.js';

type Point = { attributes: { key: string; value: { stringValue: string } }[]; asInt?: string; asDouble?: number };
type Metric = {
  name: string;
  sum?: { dataPoints: Point[]; isMonotonic: boolean; aggregationTemporality: number };
  gauge?: { dataPoints: Point[] };
};
type Body = {
  resourceMetrics: { resource: { attributes: Point['attributes'] }; scopeMetrics: { metrics: Metric[] }[] }[];
};

/** A collector: every POST's path, headers and JSON body; answers `status()`. */
function collector(
  status: () => number,
): Promise<{ server: Server; port: number; got: { path: string; headers: IncomingMessage['headers']; body: Body }[] }> {
  const got: { path: string; headers: IncomingMessage['headers']; body: Body }[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => void (text += c.toString()));
    req.on('end', () => {
      got.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(text) as Body });
      res.writeHead(status()).end('{}');
    });
  });
  return new Promise((ok) =>
    server.listen(0, '127.0.0.1', () => {
      const a = server.address();
      ok({ server, port: typeof a === 'object' && a ? a.port : 0, got });
    }),
  );
}

const metric = (b: Body, name: string): Metric | undefined =>
  b.resourceMetrics[0]?.scopeMetrics[0]?.metrics.find((m) => m.name === name);
const ints = (m: Metric | undefined): Record<string, number> =>
  Object.fromEntries(
    (m?.sum?.dataPoints ?? []).map((p) => [
      p.attributes.map((a) => a.value.stringValue).join(',') || '',
      Number(p.asInt),
    ]),
  );

describe('OTLP export', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hmc-otlp-'));
  const dbPath = join(dir, 'analytics.db');
  let r: Rig;
  let c: Awaited<ReturnType<typeof collector>>;
  let answer = 200;

  beforeAll(async () => {
    const store = openStore(dbPath);
    store.recordSessions(FIVE);
    store.close();
    c = await collector(() => answer);
    r = await rig({
      dbPath,
      extra: {
        otlp: { endpoint: `http://127.0.0.1:${c.port}`, intervalSeconds: 3600, headers: { 'x-team': 'agents' } },
      },
    });
  });
  afterAll(async () => {
    await r.done();
    c.server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("pushes the store's lifetime figures once at start, in the glossary's names", async () => {
    await expect.poll(() => c.got.length, { timeout: 5000 }).toBeGreaterThan(0);
    const first = c.got[0];
    expect(first?.path).toBe('/v1/metrics');
    expect(first?.headers['content-type']).toBe('application/json');
    expect(first?.headers['x-team']).toBe('agents');
    const body = first?.body as Body;
    const store = openStore(dbPath);
    const s = store.summary();
    const models = priceModels(store.byModel(), PRICING);
    const w = store.work();
    store.close();
    expect(body.resourceMetrics[0]?.resource.attributes).toContainEqual({
      key: 'service.name',
      value: { stringValue: 'hmc' },
    });
    expect(ints(metric(body, 'hmc.input'))).toEqual({ raw: s.total_input, sent: s.total_sent });
    expect(ints(metric(body, 'hmc.input.saved'))).toEqual({ '': s.total_saved });
    expect(ints(metric(body, 'hmc.input.saved.by_strategy'))).toEqual(s.by_strategy);
    expect(ints(metric(body, 'hmc.input.saved.by_tool'))).toEqual(s.by_tool);
    expect(ints(metric(body, 'hmc.model_calls'))).toEqual({ '': s.model_calls });
    expect(ints(metric(body, 'hmc.work.recalls'))).toEqual({ '': w.recalls });
    expect(metric(body, 'hmc.input.saved')?.sum).toMatchObject({ aggregationTemporality: 2, isMonotonic: false });
    const cost = metric(body, 'hmc.model.cost.saved')?.gauge?.dataPoints ?? [];
    expect(cost.map((p) => [p.attributes[0]?.value.stringValue, p.asDouble])).toEqual(
      models.map((m) => [m.model, m.cost.saved]),
    );
  });

  it('logs a failing collector once, and once more when it answers again', async () => {
    const logs: string[] = [];
    const exporter = startOtlpExport({
      endpoint: `http://127.0.0.1:${c.port}/custom/v1/metrics`,
      intervalMs: 3_600_000,
      version: 'test',
      log: (l) => void logs.push(l),
      read: async () => {
        const s = openStore(dbPath);
        try {
          return {
            summary: s.summary(),
            models: [],
            work: s.work(),
            measured: { currency: 'USD', tokens: [], cost: [], unpriced: [] },
          };
        } finally {
          s.close();
        }
      },
    });
    expect(exporter).not.toBeNull();
    await expect.poll(() => c.got.some((g) => g.path === '/custom/v1/metrics')).toBe(true);
    answer = 503;
    expect(await exporter?.exportNow()).toBe(false);
    expect(await exporter?.exportNow()).toBe(false);
    answer = 200;
    expect(await exporter?.exportNow()).toBe(true);
    exporter?.stop();
    expect(logs).toEqual([
      expect.stringContaining('failed: the collector answered 503'),
      expect.stringContaining('works again'),
    ]);
  });

  it('reads its endpoint and headers as OpenTelemetry does, and refuses what is not http(s)', () => {
    expect(metricsUrl('http://c:4318').href).toBe('http://c:4318/v1/metrics');
    expect(metricsUrl('https://c/otlp/').href).toBe('https://c/otlp/v1/metrics');
    expect(metricsUrl('http://c:4318/v1/metrics').href).toBe('http://c:4318/v1/metrics');
    expect(envHeaders('api-key=a%20b, x=1,bad,=2')).toEqual({ 'api-key': 'a b', x: '1' });
    const logs: string[] = [];
    expect(
      startOtlpExport({
        endpoint: 'ftp://c',
        intervalMs: 1000,
        version: 't',
        log: (l) => void logs.push(l),
        read: async () => {
          throw new Error('unread');
        },
      }),
    ).toBeNull();
    expect(
      startOtlpExport({
        endpoint: '',
        intervalMs: 1000,
        version: 't',
        log: (l) => void logs.push(l),
        read: async () => {
          throw new Error('unread');
        },
      }),
    ).toBeNull();
    expect(logs).toEqual([expect.stringContaining('is not an http(s) URL')]);
  });
});
