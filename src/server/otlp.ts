/**
 * Savings over OpenTelemetry (issue 17, finding 7: "for teams running many agents ... to the
 * collector they already run, beside /metrics"): the dashboard pushes the analytics store's
 * lifetime figures as OTLP/HTTP JSON (an ExportMetricsServiceRequest) to `dashboard.otlp.endpoint`
 * every `dashboard.otlp.interval_seconds`, the first at start. Names follow docs/glossary.md.
 *
 * Invariant: an export never throws into the dashboard and never blocks a request; a failing
 * collector costs one log line per run of failures (and one when it answers again); nothing is
 * sent while the endpoint is empty. Token figures are cumulative sums that are not monotonic
 * (retention deletes old sessions); money is a gauge, labelled an estimate.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Summary } from '../store/rows.js';
import type { PricedModel } from '../store/pricing.js';
import type { WorkSummary } from '../store/views.js';
import { errorText } from '../core/errors.js';

/** What one export reads: the store's lifetime answers. */
export interface OtlpFigures {
  summary: Summary;
  models: PricedModel[];
  work: WorkSummary;
}

type Attr = { key: string; value: { stringValue: string } };
type Point = { attributes: Attr[]; startTimeUnixNano: string; timeUnixNano: string; asInt?: string; asDouble?: number };
type Metric = { name: string; unit: string; description: string; sum?: { aggregationTemporality: 2; isMonotonic: false; dataPoints: Point[] }; gauge?: { dataPoints: Point[] } };

const attrs = (a: Record<string, string>): Attr[] => Object.entries(a).map(([key, v]) => ({ key, value: { stringValue: v } }));
const nanos = (ms: number): string => `${BigInt(Math.round(ms)) * 1_000_000n}`;

/** The request body for `figures` at `now`, the sums counted since `start` (ms since the epoch). */
export function otlpRequest(f: OtlpFigures, o: { start: number; now: number; version: string }): unknown {
  const point = (value: number, a: Record<string, string> = {}, double = false): Point => ({
    attributes: attrs(a), startTimeUnixNano: nanos(o.start), timeUnixNano: nanos(o.now),
    ...(double ? { asDouble: value } : { asInt: String(Math.round(value)) }),
  });
  const sum = (name: string, description: string, points: Point[], unit = '{token}'): Metric =>
    ({ name, unit, description, sum: { aggregationTemporality: 2, isMonotonic: false, dataPoints: points } });
  const s = f.summary;
  const metrics: Metric[] = [
    sum('hmc.input', 'Input tokens over every model call, without HMC (raw) and as sent', [point(s.total_input, { kind: 'raw' }), point(s.total_sent, { kind: 'sent' })]),
    sum('hmc.input.saved', 'Input saved: input raw - input sent, over every model call', [point(s.total_saved)]),
    sum('hmc.input.saved.by_strategy', 'Input saved, split by the strategy that removed the tokens', Object.entries(s.by_strategy).map(([k, v]) => point(v, { strategy: k }))),
    sum('hmc.input.saved.by_tool', 'Input saved, split by the tool whose output the tokens came from', Object.entries(s.by_tool).map(([k, v]) => point(v, { tool: k }))),
    sum('hmc.model_calls', 'Model calls the input was sent in (the N of input saved over N model calls)', [point(s.model_calls)], '{call}'),
    sum('hmc.sessions', 'Sessions recorded', [point(s.total_sessions)], '{session}'),
    sum('hmc.model.input.saved', 'Input saved per model', f.models.map((m) => point(m.saved, { model: m.model }))),
    { name: 'hmc.model.cost.saved', unit: '1', description: 'Estimated input cost saved per model (price table, prompt cache under HMC\'s cache model); an estimate, not a bill',
      gauge: { dataPoints: f.models.map((m) => point(m.cost.saved, { model: m.model, currency: m.currency }, true)) } },
    sum('hmc.work.outputs_shortened', 'Tool outputs HMC sent shorter than they arrived', [point(f.work.elided)], '{output}'),
    sum('hmc.work.recalls', 'The agent\'s hmc_control recalls of elided outputs', [point(f.work.recalls)], '{call}'),
    sum('hmc.work.rereads', 'Reads of file parts whose earlier read HMC had shortened', [point(f.work.rereads)], '{read}'),
  ];
  return {
    resourceMetrics: [{
      resource: { attributes: attrs({ 'service.name': 'hmc', 'service.version': o.version }) },
      scopeMetrics: [{ scope: { name: 'hmc', version: o.version }, metrics: metrics.filter((m) => (m.sum ?? m.gauge)?.dataPoints.length) }],
    }],
  };
}

/** `endpoint` as the metrics URL: a base (`http://collector:4318`) gets `/v1/metrics`, a full URL is kept. */
export function metricsUrl(endpoint: string): URL {
  const url = new URL(endpoint);
  if (!/\/v1\/metrics\/?$/.test(url.pathname)) url.pathname = `${url.pathname.replace(/\/+$/, '')}/v1/metrics`;
  return url;
}

/** Headers from OTEL_EXPORTER_OTLP_HEADERS (`k=v,k2=v2`, values percent-decoded), the OpenTelemetry convention. */
export function envHeaders(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    try {
      out[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      // A malformed value is left out rather than sent half-decoded.
    }
  }
  return out;
}

const TIMEOUT_MS = 10_000;

function post(url: URL, body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, { method: 'POST', timeout: TIMEOUT_MS, headers: { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer in ${TIMEOUT_MS / 1000} s`)));
    req.on('error', reject);
    req.end(body);
  });
}

export interface OtlpOptions {
  endpoint: string;
  intervalMs: number;
  version: string;
  read(): Promise<OtlpFigures>;
  log(line: string): void;
  headers?: Record<string, string>;
}

/** Starts the periodic export (the first at once); `stop()` ends it. Null when the endpoint is empty or not a URL (logged). */
export function startOtlpExport(o: OtlpOptions): { stop(): void; exportNow(): Promise<boolean> } | null {
  if (o.endpoint.trim() === '') return null;
  let url: URL;
  try {
    url = metricsUrl(o.endpoint.trim());
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('only http and https are supported');
  } catch (err) {
    o.log(`hmc dashboard: dashboard.otlp.endpoint ${JSON.stringify(o.endpoint)} is not an http(s) URL (${errorText(err)}); no OTLP export`);
    return null;
  }
  const start = Date.now();
  let failing = false;
  const exportNow = async (): Promise<boolean> => {
    try {
      const body = JSON.stringify(otlpRequest(await o.read(), { start, now: Date.now(), version: o.version }));
      const status = await post(url, body, o.headers ?? {});
      if (status < 200 || status >= 300) throw new Error(`the collector answered ${status}`);
      if (failing) o.log(`hmc dashboard: OTLP export to ${url.href} works again`);
      failing = false;
      return true;
    } catch (err) {
      if (!failing) o.log(`hmc dashboard: OTLP export to ${url.href} failed: ${errorText(err)} (retried every ${o.intervalMs / 1000} s; said once)`);
      failing = true;
      return false;
    }
  };
  void exportNow();
  const timer = setInterval(() => void exportNow(), o.intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer), exportNow };
}
