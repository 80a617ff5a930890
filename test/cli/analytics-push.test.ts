/**
 * `hmc analytics --push` (issue 27, finding 6): the store's lifetime figures pushed once as OTLP
 * to dashboard.otlp.endpoint or --endpoint, the real command in a process of its own against a
 * collector on 127.0.0.1: exit 0 when the collector took them, 1 with one clear line (and no
 * credential) when it did not, within the export's deadline, 2 for a usage error.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { FIVE } from '../store/fixtures/five.js';

const RUNNER = join(import.meta.dirname, '..', 'server', 'run-cli.ts');

type Body = {
  resourceMetrics: {
    scopeMetrics: {
      metrics: {
        name: string;
        sum?: { dataPoints: { attributes: { value: { stringValue: string } }[]; asInt?: string }[] };
      }[];
    }[];
  }[];
};

function hmc(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; out: string; err: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', RUNNER, 'analytics', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => void (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => void (err += c));
    child.once('exit', (code) => resolve({ code, out, err, ms: Date.now() - started }));
  });
}

describe('hmc analytics --push', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hmc-push-'));
  const db = join(dir, 'analytics.db');
  let server: Server;
  let port = 0;
  let answer: number | 'drip' = 200;
  const got: { path: string; auth: string | undefined; key: string | undefined; body: Body }[] = [];
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    const store = openStore(db);
    store.recordSessions(FIVE);
    // One call the provider reported (issue 24, part 6): the push carries the measured series too.
    store.recordUsage([
      {
        session_id: 's1',
        seq: 1,
        at: Date.UTC(2026, 2, 15, 10, 0, 0),
        model: 'gpt-4o',
        provider: 'openai',
        prompt_tokens: 1200,
        completion_tokens: 40,
        cache_read_tokens: 1000,
        cache_write_tokens: 0,
        reasoning_tokens: 0,
        hmc_input: 1100,
        raw_input: 1500,
        hmc_cached: 900,
        raw_cached: 1000,
        seen: true,
      },
    ]);
    store.close();
    writeFileSync(join(dir, 'config.yaml'), 'dashboard:\n  otlp:\n    endpoint: ""\n');
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => void (text += c.toString()));
      req.on('end', () => {
        got.push({
          path: req.url ?? '',
          auth: req.headers.authorization,
          key: req.headers['x-api-key'] as string | undefined,
          body: JSON.parse(text) as Body,
        });
        if (answer !== 'drip') return void res.writeHead(answer).end('{}');
        res.writeHead(200, { 'Content-Length': '1000000' });
        const t = setInterval(() => res.write(' '), 500);
        res.on('close', () => clearInterval(t));
      });
    });
    server.on('connection', (s: Socket) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => {
    for (const s of sockets) s.destroy();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("pushes the lifetime figures once to the config's endpoint, exit 0", async () => {
    const config = join(dir, 'with-endpoint.yaml');
    writeFileSync(config, `dashboard:\n  otlp:\n    endpoint: http://127.0.0.1:${port}/otlp\n`);
    const r = await hmc(['--push', '--db', db, '--config', config], {
      OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=k-123456',
    });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(
      new RegExp(`^pushed 5 sessions' figures to http://127\\.0\\.0\\.1:${port}/otlp/v1/metrics \\(\\d+ ms\\)\\n$`),
    );
    expect(got).toHaveLength(1);
    expect(got[0]?.path).toBe('/otlp/v1/metrics');
    expect(got[0]?.key).toBe('k-123456');
    const s = openStore(db, { readonly: true });
    const summary = s.summary();
    s.close();
    const input = got[0]?.body.resourceMetrics[0]?.scopeMetrics[0]?.metrics.find((m) => m.name === 'hmc.input');
    expect(input?.sum?.dataPoints.map((p) => [p.attributes[0]?.value.stringValue, Number(p.asInt)])).toEqual([
      ['raw', summary.total_input],
      ['sent', summary.total_sent],
    ]);
    const provider = got[0]?.body.resourceMetrics[0]?.scopeMetrics[0]?.metrics.find(
      (m) => m.name === 'hmc.provider.tokens',
    );
    expect(
      provider?.sum?.dataPoints.map((p) => [p.attributes.map((a) => a.value.stringValue).join(','), Number(p.asInt)]),
    ).toEqual([
      ['gpt-4o,prompt,seen', 1200],
      ['gpt-4o,cache_read,seen', 1000],
      ['gpt-4o,cache_write,seen', 0],
      ['gpt-4o,output,seen', 40],
      ['gpt-4o,reasoning,seen', 0],
    ]);
  }, 30_000);

  it('--endpoint overrides the config; a refusing collector is exit 1 with one line and no password', async () => {
    answer = 503;
    const r = await hmc([
      '--push',
      '--db',
      db,
      '--config',
      join(dir, 'config.yaml'),
      '--endpoint',
      `http://ops:pa55word-x@127.0.0.1:${port}`,
    ]);
    answer = 200;
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toBe(
      `hmc analytics: OTLP push to http://***@127.0.0.1:${port}/v1/metrics failed: the collector answered 503\n`,
    );
    expect(got.at(-1)?.auth).toBe(`Basic ${Buffer.from('ops:pa55word-x').toString('base64')}`);
  }, 30_000);

  it('a collector that drips its answer: exit 1 within the 10 s deadline', async () => {
    answer = 'drip';
    const r = await hmc(['--push', '--db', db, '--endpoint', `http://127.0.0.1:${port}`]);
    answer = 200;
    expect(r.code).toBe(1);
    expect(r.err).toContain('failed: the collector answered 200 but did not finish its answer in 10 s');
    expect(r.ms).toBeLessThan(10_000 + 8_000);
  }, 40_000);

  it('says what is missing: no endpoint (2), no database (1), a filter it cannot honour (2)', async () => {
    const none = await hmc(['--push', '--db', db, '--config', join(dir, 'config.yaml')]);
    expect(none).toMatchObject({ code: 2, out: '' });
    expect(none.err).toContain(
      '--push has no collector: set dashboard.otlp.endpoint in the config (docs/configuration.md) or give --endpoint URL',
    );
    const missing = await hmc(['--push', '--db', join(dir, 'nope.db'), '--endpoint', `http://127.0.0.1:${port}`]);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('no analytics database at');
    const filtered = await hmc(['--push', '--period', 'week', '--db', db, '--endpoint', `http://127.0.0.1:${port}`]);
    expect(filtered.code).toBe(2);
    expect(filtered.err).toContain('it takes no --period');
    const alone = await hmc(['--endpoint', `http://127.0.0.1:${port}`, '--db', db]);
    expect(alone.code).toBe(2);
    expect(alone.err).toContain('--endpoint needs --push');
  }, 60_000);
});
