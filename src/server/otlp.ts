/**
 * Savings over OpenTelemetry (issue 17, finding 7: "for teams running many agents ... to the
 * collector they already run, beside /metrics"): the dashboard pushes the analytics store's
 * lifetime figures as OTLP/HTTP JSON (an ExportMetricsServiceRequest) to `dashboard.otlp.endpoint`
 * every `dashboard.otlp.interval_seconds`, the first at start. Names follow docs/glossary.md.
 *
 * Invariant: an export never throws into the dashboard and never blocks a request; at most one
 * is in flight, and it ends within its deadline whatever the collector does (issue 26: one that
 * dripped its answer held a new socket every interval and kept the process alive after SIGTERM);
 * stop() ends it at once. A failing collector costs one log line per run of failures (and one
 * when it answers again), and no log line carries a credential (user:pass@, query values, header
 * values). Nothing is sent while the endpoint is empty. Token figures are cumulative sums that are
 * not monotonic (retention deletes old sessions); money is a gauge, labelled measured (the
 * provider's usage priced) or modelled (HMC's estimate); the measured series are /metrics' own.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Summary } from '../store/rows.js';
import type { PricedModel } from '../store/pricing.js';
import type { WorkSummary } from '../store/views.js';
import { errorText } from '../core/errors.js';
import { COST_ESTIMATE_NOTE, costSeries, MEASURED_NOTE, TOKEN_TYPES, type MeasuredSeries } from './cost-series.js';

/** What one export reads: the store's lifetime answers. */
export interface OtlpFigures {
  summary: Summary;
  models: PricedModel[];
  work: WorkSummary;
  /** The measured series (cost-series.ts measuredSeries), the same /metrics shows. */
  measured: MeasuredSeries;
}

type Attr = { key: string; value: { stringValue: string } };
type Point = { attributes: Attr[]; startTimeUnixNano: string; timeUnixNano: string; asInt?: string; asDouble?: number };
type Metric = {
  name: string;
  unit: string;
  description: string;
  sum?: { aggregationTemporality: 2; isMonotonic: false; dataPoints: Point[] };
  gauge?: { dataPoints: Point[] };
};

const attrs = (a: Record<string, string>): Attr[] =>
  Object.entries(a).map(([key, v]) => ({ key, value: { stringValue: v } }));
const nanos = (ms: number): string => `${BigInt(Math.round(ms)) * 1_000_000n}`;

/** The request body for `figures` at `now`, the sums counted since `start` (ms since the epoch). */
export function otlpRequest(f: OtlpFigures, o: { start: number; now: number; version: string }): unknown {
  const point = (value: number, a: Record<string, string> = {}, double = false): Point => ({
    attributes: attrs(a),
    startTimeUnixNano: nanos(o.start),
    timeUnixNano: nanos(o.now),
    ...(double ? { asDouble: value } : { asInt: String(Math.round(value)) }),
  });
  const sum = (name: string, description: string, points: Point[], unit = '{token}'): Metric => ({
    name,
    unit,
    description,
    sum: { aggregationTemporality: 2, isMonotonic: false, dataPoints: points },
  });
  const s = f.summary;
  const costs = costSeries(f.models);
  const metrics: Metric[] = [
    sum('hmc.input', 'Input tokens over every model call, without HMC (raw) and as sent', [
      point(s.total_input, { kind: 'raw' }),
      point(s.total_sent, { kind: 'sent' }),
    ]),
    sum('hmc.input.saved', 'Input saved: input raw - input sent, over every model call', [point(s.total_saved)]),
    sum(
      'hmc.input.saved.by_strategy',
      'Input saved, split by the strategy that removed the tokens',
      Object.entries(s.by_strategy).map(([k, v]) => point(v, { strategy: k })),
    ),
    sum(
      'hmc.input.saved.by_tool',
      'Input saved, split by the tool whose output the tokens came from',
      Object.entries(s.by_tool).map(([k, v]) => point(v, { tool: k })),
    ),
    sum(
      'hmc.model_calls',
      'Model calls the input was sent in (the N of input saved over N model calls)',
      [point(s.model_calls)],
      '{call}',
    ),
    sum('hmc.sessions', 'Sessions recorded', [point(s.total_sessions)], '{session}'),
    sum(
      'hmc.model.input.saved',
      'Input saved per model',
      f.models.map((m) => point(m.saved, { model: m.model })),
    ),
    {
      name: 'hmc.model.cost.saved',
      unit: '1',
      description:
        "Estimated input cost saved per model (price table, prompt cache under HMC's cache model); an estimate, not a bill",
      gauge: { dataPoints: f.models.map((m) => point(m.cost.saved, { model: m.model, currency: m.currency }, true)) },
    },
    {
      name: 'hmc.model.input.cost',
      unit: '1',
      description: `Input cost per model, raw = without HMC, sent = as sent (in the currency attribute); ${COST_ESTIMATE_NOTE}`,
      gauge: {
        dataPoints: costs.flatMap((c) =>
          (['raw', 'sent'] as const).map((kind) =>
            point(c.cost[kind], { model: c.model, kind, currency: c.currency }, true),
          ),
        ),
      },
    },
    sum(
      'hmc.model.cache.tokens',
      `Input tokens per model read from (op=read) or written to (op=write) the prompt cache, raw = without HMC, sent = as sent; ${COST_ESTIMATE_NOTE}`,
      costs.flatMap((c) =>
        (['read', 'write'] as const).flatMap((op) =>
          (['raw', 'sent'] as const).map((kind) => point(c.cache[op][kind], { model: c.model, op, kind })),
        ),
      ),
    ),
    ...measuredMetrics(f.measured, point, sum),
    sum(
      'hmc.work.outputs_shortened',
      'Tool outputs HMC sent shorter than they arrived',
      [point(f.work.elided)],
      '{output}',
    ),
    sum('hmc.work.recalls', "The agent's hmc_control recalls of elided outputs", [point(f.work.recalls)], '{call}'),
    sum(
      'hmc.work.rereads',
      'Reads of file parts whose earlier read HMC had shortened',
      [point(f.work.rereads)],
      '{read}',
    ),
  ];
  return {
    resourceMetrics: [
      {
        resource: { attributes: attrs({ 'service.name': 'hmc', 'service.version': o.version }) },
        scopeMetrics: [
          {
            scope: { name: 'hmc', version: o.version },
            metrics: metrics.filter((m) => (m.sum ?? m.gauge)?.dataPoints.length),
          },
        ],
      },
    ],
  };
}

type PointOf = (value: number, a?: Record<string, string>, double?: boolean) => Point;
type SumOf = (name: string, description: string, points: Point[], unit?: string) => Metric;

/** The measured series as OTLP metrics: /metrics' hmc_provider_tokens_total, hmc_provider_calls_total, hmc_cost_<currency>, hmc_model_unpriced. */
function measuredMetrics(m: MeasuredSeries, point: PointOf, sum: SumOf): Metric[] {
  return [
    sum(
      'hmc.provider.tokens',
      "Measured: the provider's own token counts per model as it reported them for each model call (type = prompt, cache_read, cache_write, output, reasoning); calls = seen (HMC counted them) or unseen (HMC never saw them: in no saving)",
      m.tokens.flatMap((t) =>
        TOKEN_TYPES.map((type) => point(t.tokens[type], { model: t.model, type, calls: t.calls })),
      ),
    ),
    sum(
      'hmc.provider.calls',
      'Measured: model calls whose usage the provider reported, per model; calls = seen or unseen',
      m.tokens.map((t) => point(t.count, { model: t.model, calls: t.calls })),
      '{call}',
    ),
    {
      name: 'hmc.cost',
      unit: `{${m.currency}}`,
      description: `Money per model (currency attribute): kind = raw (input without HMC), sent (input as sent), output; basis = ${MEASURED_NOTE}; calls = seen (raw - sent = cost saved) or unseen (no raw, in no saving). An unpriced model has no point (hmc.model.unpriced)`,
      gauge: {
        dataPoints: m.cost.map((c) =>
          point(c.value, { model: c.model, kind: c.kind, basis: c.basis, calls: c.calls, currency: m.currency }, true),
        ),
      },
    },
    {
      name: 'hmc.model.unpriced',
      unit: '1',
      description:
        "Models no price names (config, Hermes' pricing data, the built-in table): 1 each; never priced at a default in hmc.cost",
      gauge: { dataPoints: m.unpriced.map((model) => point(1, { model })) },
    },
  ];
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

/**
 * `url` as a log line may show it: no user or password, every query value replaced by `***`
 * (issue 26, finding 3: `http://user:pass@collector` was logged in clear).
 */
export function shownUrl(url: URL): string {
  const query = [...url.searchParams.keys()].map((k) => `${k}=***`).join('&');
  return `${url.protocol}//${url.username || url.password ? '***@' : ''}${url.host}${url.pathname}${query ? `?${query}` : ''}`;
}

/** An endpoint that is not a URL, as a log line may show it: userinfo and query masked the same way. */
export function shownEndpoint(text: string): string {
  return text.replace(/(\/\/)[^/?#]*@/, '$1***@').replace(/\?.*$/s, '?***');
}

/** `text` with every secret (password, user, query values, header values: 4 characters and more) masked. */
function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join('***');
  return out;
}

function secretsOf(url: URL, headers: Record<string, string>): string[] {
  const raw = [url.username, url.password, ...url.searchParams.values(), ...Object.values(headers)];
  const decoded = raw.flatMap((s) => {
    try {
      return [s, decodeURIComponent(s)];
    } catch {
      return [s];
    }
  });
  return [...new Set(decoded)].sort((a, b) => b.length - a.length);
}

/** How long one export may take, from connecting to the last byte of the answer. */
export const DEADLINE_MS = 10_000;

/** One POST with one deadline over the whole exchange; `cancel()` ends it at once. */
function post(
  url: URL,
  body: string,
  headers: Record<string, string>,
  deadlineMs: number,
): { done: Promise<number>; cancel(why: string): void } {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  // agent: false: a connection of its own, closed after the answer; none is left in a pool.
  const req = send(url, {
    method: 'POST',
    agent: false,
    headers: { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
  });
  let status = 0;
  let timer: NodeJS.Timeout | undefined;
  let cancel: (why: string) => void = () => {};
  const done = new Promise<number>((resolve, reject) => {
    let settled = false;
    const settle = (err: Error | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) {
        req.destroy();
        reject(err);
      } else resolve(status);
    };
    timer = setTimeout(
      () =>
        settle(
          new Error(
            status
              ? `the collector answered ${status} but did not finish its answer in ${deadlineMs / 1000} s`
              : `no answer in ${deadlineMs / 1000} s`,
          ),
        ),
      deadlineMs,
    );
    req.on('response', (res) => {
      status = res.statusCode ?? 0;
      res.resume();
      res.on('end', () => settle(null));
      res.on('error', (err) => settle(err));
      res.on('close', () =>
        settle(res.complete ? null : new Error(`the collector closed the connection mid-answer (${status})`)),
      );
    });
    req.on('error', (err) => settle(err));
    req.end(body);
    cancel = (why) => settle(new Error(why));
  });
  return { done, cancel: (why) => cancel(why) };
}

/** The collector of `endpoint`, or why it cannot be one (the endpoint shown without its secrets). */
export function collectorUrl(endpoint: string): URL | string {
  try {
    const url = metricsUrl(endpoint.trim());
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('only http and https are supported');
    return url;
  } catch (err) {
    return `${JSON.stringify(shownEndpoint(endpoint))} is not an http(s) URL (${scrub(errorText(err), [endpoint])})`;
  }
}

/** One export: `body` to `url`; resolves with nothing, or rejects with a line fit for a log (no secret). */
function exportOnce(
  url: URL,
  body: string,
  headers: Record<string, string>,
  deadlineMs: number,
): { done: Promise<void>; cancel(why: string): void } {
  const p = post(url, body, headers, deadlineMs);
  const done = p.done.then(
    (status) => {
      if (status < 200 || status >= 300) throw new Error(`the collector answered ${status}`);
    },
    (err: unknown) => {
      throw new Error(scrub(errorText(err), secretsOf(url, headers)));
    },
  );
  return { done, cancel: p.cancel };
}

export interface OtlpOptions {
  endpoint: string;
  intervalMs: number;
  version: string;
  read(): Promise<OtlpFigures>;
  log(line: string): void;
  headers?: Record<string, string>;
  /** How long one export may take (default DEADLINE_MS, never more than the interval). */
  deadlineMs?: number;
}

export interface OtlpExporter {
  /** Ends the timer and the export in flight, at once. */
  stop(): void;
  /** An export now, or the one in flight; true when the collector took it. */
  exportNow(): Promise<boolean>;
  /** Exports in flight: 0 or 1. */
  inFlight(): number;
}

/**
 * Starts the periodic export (the first at once). Null when the endpoint is empty or not a URL
 * (logged). At most one export is in flight: a tick that finds one still running is skipped, and
 * every export ends by its deadline, so a collector that drips or never answers holds one socket.
 */
export function startOtlpExport(o: OtlpOptions): OtlpExporter | null {
  if (o.endpoint.trim() === '') return null;
  const url = collectorUrl(o.endpoint);
  if (typeof url === 'string') {
    o.log(`hmc dashboard: dashboard.otlp.endpoint ${url}; no OTLP export`);
    return null;
  }
  const shown = shownUrl(url);
  const headers = o.headers ?? {};
  const deadlineMs = Math.min(o.deadlineMs ?? DEADLINE_MS, o.intervalMs);
  const start = Date.now();
  let failing = false;
  let stopped = false;
  let current: { done: Promise<boolean>; cancel(why: string): void } | null = null;
  const run = async (): Promise<boolean> => {
    let ex: ReturnType<typeof exportOnce> | null = null;
    try {
      const body = JSON.stringify(otlpRequest(await o.read(), { start, now: Date.now(), version: o.version }));
      if (stopped) return false;
      ex = exportOnce(url, body, headers, deadlineMs);
      if (current) current.cancel = ex.cancel;
      await ex.done;
      if (failing) o.log(`hmc dashboard: OTLP export to ${shown} works again`);
      failing = false;
      return true;
    } catch (err) {
      if (stopped) return false;
      if (!failing)
        o.log(
          `hmc dashboard: OTLP export to ${shown} failed: ${scrub(errorText(err), secretsOf(url, headers))} (retried every ${o.intervalMs / 1000} s; said once)`,
        );
      failing = true;
      return false;
    }
  };
  const exportNow = (): Promise<boolean> => {
    if (stopped) return Promise.resolve(false);
    if (current) return current.done;
    const c: { done: Promise<boolean>; cancel(why: string): void } = { done: Promise.resolve(false), cancel: () => {} };
    current = c;
    c.done = run().finally(() => {
      if (current === c) current = null;
    });
    return c.done;
  };
  void exportNow();
  const timer = setInterval(() => void exportNow(), o.intervalMs);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
      current?.cancel('stopped');
    },
    exportNow,
    inFlight: () => (current ? 1 : 0),
  };
}

/**
 * One push of `figures` (`hmc analytics --push`): resolves with the collector's URL as it may be
 * shown, or rejects with one line naming what failed, no secret in it, within `deadlineMs`.
 */
export async function pushOnce(o: {
  endpoint: string;
  headers?: Record<string, string>;
  figures: OtlpFigures;
  version: string;
  start: number;
  deadlineMs?: number;
}): Promise<string> {
  const url = collectorUrl(o.endpoint);
  if (typeof url === 'string') throw new Error(url);
  const body = JSON.stringify(otlpRequest(o.figures, { start: o.start, now: Date.now(), version: o.version }));
  try {
    await exportOnce(url, body, o.headers ?? {}, o.deadlineMs ?? DEADLINE_MS).done;
  } catch (err) {
    throw new Error(`OTLP push to ${shownUrl(url)} failed: ${errorText(err)}`);
  }
  return shownUrl(url);
}
