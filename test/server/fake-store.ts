/**
 * An in-memory StoreReader over SessionRecords, with the same query semantics as the SQLite
 * store (sort, order, search, project, per day/month/project), for server and browser tests.
 */
import type { SessionRecord } from '../../src/store/types.js';
import type { ModelRow } from '../../src/store/views.js';
import { EMPTY_STORE, type SessionRow, type SessionsQuery, type StoreReader } from '../../src/server/store-reader.js';

function saved(r: SessionRecord): number {
  return Math.max(0, r.input_tokens_raw - r.input_tokens_hmc);
}

function row(r: SessionRecord): SessionRow {
  const {
    timeline: _t,
    by_strategy: _s,
    by_tool: _b,
    work,
    model_calls,
    context_tokens,
    context_raw_tokens,
    cached_raw: _c,
    cached_hmc: _h,
    ...rest
  } = r;
  const s = saved(r);
  return {
    ...rest,
    saved: s,
    savings_pct: r.input_tokens_raw > 0 ? Math.round((s / r.input_tokens_raw) * 10000) / 100 : 0,
    model_calls: model_calls ?? 0,
    context_tokens: context_tokens ?? 0,
    context_raw_tokens: context_raw_tokens ?? context_tokens ?? 0,
    recalls: work?.recalls ?? 0,
    rereads: work?.rereads ?? 0,
    elided: work?.elided ?? 0,
  };
}

function add(into: Record<string, number>, from: Record<string, number>): void {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
}

export function fakeStore(records: SessionRecord[]): StoreReader {
  const pick = (project?: string): SessionRecord[] =>
    records.filter((r) => project === undefined || r.project_path === project);
  const group = (key: (r: SessionRecord) => string, rs: SessionRecord[]) => {
    const m = new Map<string, { saved: number; input: number; sessions: number }>();
    for (const r of rs) {
      const g = m.get(key(r)) ?? { saved: 0, input: 0, sessions: 0 };
      g.saved += saved(r);
      g.input += r.input_tokens_raw;
      g.sessions++;
      m.set(key(r), g);
    }
    return [...m.entries()].sort((a, b) => a[0].localeCompare(b[0]));
  };
  return {
    // A query this fake does not model answers empty, as the dashboard's does with no database.
    ...EMPTY_STORE,
    summary(q = {}) {
      const rs = pick(q.project);
      const by_strategy: Record<string, number> = {};
      const by_tool: Record<string, number> = {};
      for (const r of rs) {
        add(by_strategy, r.by_strategy);
        add(by_tool, r.by_tool);
      }
      const total_saved = rs.reduce((s, r) => s + saved(r), 0);
      const total_input = rs.reduce((s, r) => s + r.input_tokens_raw, 0);
      return {
        total_saved,
        total_sessions: rs.length,
        total_input,
        total_sent: 0,
        total_output: 0,
        model_calls: rs.reduce((s, r) => s + (r.model_calls ?? 0), 0),
        sessions_without_model_calls: rs.filter((r) => !r.model_calls && r.input_tokens_raw > 0).length,
        savings_pct: total_input > 0 ? Math.round((total_saved / total_input) * 10000) / 100 : 0,
        by_strategy,
        by_tool,
      };
    },
    byDay: (q) =>
      group((r) => new Date(r.started_at).toISOString().slice(0, 10), pick(q.project))
        .filter(([day]) => Date.parse(day) >= Date.now() - (q.days ?? 30) * 86_400_000)
        .map(([day, g]) => ({ day, ...g })),
    byMonth: (q) =>
      group((r) => new Date(r.started_at).toISOString().slice(0, 7), pick(q.project))
        .slice(-(q.months ?? 12))
        .map(([month, g]) => ({ month, ...g })),
    byProject: (q) =>
      group((r) => r.project_path, records)
        .map(([project_path, g]) => ({
          project_path,
          saved_tokens: g.saved,
          input_tokens: g.input,
          sessions: g.sessions,
        }))
        .sort((a, b) => b.saved_tokens - a.saved_tokens)
        .slice(0, q.limit),
    byModel(q = {}) {
      const m = new Map<string, ModelRow>();
      for (const r of pick(q.project)) {
        const row = m.get(r.model) ?? {
          model: r.model,
          sessions: 0,
          model_calls: 0,
          input: 0,
          sent: 0,
          saved: 0,
          cached_input: 0,
          cached_sent: 0,
          plain_input: 0,
          plain_sent: 0,
          sessions_without_cache_model: 0,
        };
        const calls = r.model_calls ?? 0;
        row.sessions++;
        row.model_calls += calls;
        row.input += r.input_tokens_raw;
        row.sent += r.input_tokens_hmc;
        row.saved += saved(r);
        row.cached_input += r.cached_raw ?? 0;
        row.cached_sent += r.cached_hmc ?? 0;
        if (calls === 0) {
          row.plain_input += r.input_tokens_raw;
          row.plain_sent += r.input_tokens_hmc;
          row.sessions_without_cache_model++;
        }
        m.set(r.model, row);
      }
      return [...m.values()].sort((a, b) => b.saved - a.saved);
    },
    byStrategy(q = {}) {
      const m: Record<string, number> = {};
      for (const r of pick(q.project)) add(m, r.by_strategy);
      return Object.entries(m)
        .map(([strategy, s]) => ({ strategy, saved: s }))
        .sort((a, b) => b.saved - a.saved);
    },
    byTool(q = {}) {
      const m: Record<string, number> = {};
      for (const r of pick(q.project)) add(m, r.by_tool);
      return Object.entries(m)
        .map(([tool, s]) => ({ tool, saved: s }))
        .sort((a, b) => b.saved - a.saved)
        .slice(0, q.limit ?? 20);
    },
    sessions(q: SessionsQuery) {
      let rows = pick(q.project).map(row);
      if (q.search) {
        const needle = q.search.toLowerCase();
        rows = rows.filter((r) =>
          [r.session_id, r.project_path, r.model, r.platform].some((f) => f.toLowerCase().includes(needle)),
        );
      }
      const key = q.sort ?? 'started_at';
      const val = (r: SessionRow): number | string => (key === 'input' ? r.input_tokens_raw : r[key]);
      rows.sort((a, b) => {
        const x = val(a);
        const y = val(b);
        const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
        return q.order === 'asc' ? c : -c;
      });
      const offset = q.offset ?? 0;
      return { rows: rows.slice(offset, offset + q.limit), total: rows.length };
    },
    session(id) {
      const r = records.find((x) => x.session_id === id);
      if (!r) return null;
      const timeline = r.timeline.map((p) => ({
        ...p,
        context_raw_tokens: p.context_raw_tokens ?? p.context_tokens,
        model_calls: p.model_calls ?? 0,
        cached_raw: p.cached_raw ?? 0,
        cached_hmc: p.cached_hmc ?? 0,
      }));
      return {
        ...row(r),
        by_strategy: r.by_strategy,
        by_tool: r.by_tool,
        timeline,
        cached_raw: r.cached_raw ?? 0,
        cached_hmc: r.cached_hmc ?? 0,
        plain_raw: r.plain_raw ?? 0,
        plain_hmc: r.plain_hmc ?? 0,
        outputs: r.work?.outputs ?? [],
      };
    },
    // Phases are tested over real SQLite files (test/server/phases.test.ts); this store has none.
    phases: () => [],
    searchPhases: () => ({ hits: [], method: 'fts' }),
    close() {},
  };
}

/** `n` plausible sessions over the last weeks, across three projects and two models. */
export function sampleRecords(n = 12, now = Date.now()): SessionRecord[] {
  const projects = ['/home/ada/src/hmc', '/home/ada/src/website', '/srv/agents/triage'];
  const models = ['claude-sonnet-4', 'gpt-4.1'];
  const out: SessionRecord[] = [];
  for (let i = 0; i < n; i++) {
    const turns = 4 + (i % 7);
    const timeline = Array.from({ length: turns }, (_, t) => ({
      turn: t + 1,
      time: now - (i * 2 + 1) * 86_400_000 + t * 60_000,
      context_tokens: 8000 + t * 3500,
      context_percent: Math.min(0.95, (8000 + t * 3500) / 128000),
      input_raw: 9000 + t * 4000,
      input_hmc: 7000 + t * 2500,
      tool_calls: 1 + (t % 3),
    }));
    const raw = timeline.reduce((s, p) => s + p.input_raw, 0);
    const hmc = timeline.reduce((s, p) => s + p.input_hmc, 0);
    const sv = raw - hmc;
    const trunc = Math.round(sv * 0.45);
    const dedup = Math.round(sv * 0.3);
    const code = sv - trunc - dedup;
    const term = Math.round(sv * 0.5);
    out.push({
      session_id: `sess-${String(i).padStart(3, '0')}-${(0x1a2b3c + i * 7919).toString(16)}`,
      project_path: projects[i % projects.length] ?? '',
      platform: i % 2 ? 'cli' : 'telegram',
      model: models[i % models.length] ?? '',
      started_at: now - (i * 2 + 1) * 86_400_000,
      ended_at: now - (i * 2 + 1) * 86_400_000 + turns * 60_000,
      turns,
      tool_calls: timeline.reduce((s, p) => s + p.tool_calls, 0),
      input_tokens_raw: raw,
      input_tokens_hmc: hmc,
      context_peak: Math.max(...timeline.map((p) => p.context_tokens)),
      by_strategy: { truncation: trunc, deduplication: dedup, code_filter: code },
      by_tool: { terminal: term, read_file: sv - term },
      timeline,
    });
  }
  return out;
}
