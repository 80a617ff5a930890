/**
 * Engine benchmarks (issue: the engine): layer-0 throughput on real tool outputs (MB/s), hook
 * latency p50/p99 on sessions of 100 / 1,000 / 5,000 messages (built from the corpus when it is
 * there, else from this project's own files), and savings on ../shared/corpus.
 * Run: `npm run bench` (all) or `npx tsx bench/engine.ts`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { defaultConfig } from '../src/config/keys.js';
import { compressOutput } from '../src/engine/turn/compress.js';
import { Engine } from '../src/engine/engine.js';
import { protectionFor } from '../src/engine/session/protection.js';
import { parseSession, replaySession } from '../src/app/replay.js';
import type { Message } from '../src/core/message.js';
import { NULL_SINK } from '../src/events/types.js';

const ROOT = join(import.meta.dirname, '..');
/** The shared corpus beside the checkout ($HMC_SHARED_CORPUS in a worktree elsewhere). */
const CORPUS = join(process.env.HMC_SHARED_CORPUS ?? join(ROOT, '..', 'shared', 'corpus'), 'swe-agent');

export interface BenchRow {
  name: string;
  value: string;
}

interface Output {
  tool: string;
  args: unknown;
  content: string;
}

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

function ms(n: number): string {
  return `${n.toFixed(3)} ms`;
}

function corpusSessions(): { name: string; messages: Message[] }[] {
  if (!existsSync(CORPUS)) return [];
  return readdirSync(CORPUS)
    .filter((f) => f.endsWith('.json'))
    .map((f) => ({ name: f, messages: parseSession(readFileSync(join(CORPUS, f), 'utf8'), f) }));
}

/** Real tool outputs: the corpus's, plus this project's own files as Hermes read_file / terminal results. */
function realOutputs(): Output[] {
  const outputs: Output[] = [];
  for (const { messages } of corpusSessions()) {
    const calls = new Map<string, { name: string; args: unknown }>();
    for (const m of messages) {
      for (const c of m.tool_calls ?? [])
        if (typeof c.id === 'string')
          calls.set(c.id, { name: c.function?.name ?? '', args: c.function?.arguments ?? {} });
      if (m.role === 'tool' && typeof m.content === 'string') {
        const call = calls.get(m.tool_call_id ?? '');
        outputs.push({ tool: call?.name ?? 'bash', args: call?.args ?? {}, content: m.content });
      }
    }
  }
  for (const file of sourceFiles(join(ROOT, 'src'))) {
    const text = readFileSync(file, 'utf8');
    const content = text
      .split('\n')
      .map((l, i) => `${i + 1}|${l}`)
      .join('\n');
    outputs.push({
      tool: 'read_file',
      args: { path: relative(ROOT, file) },
      content: JSON.stringify({ content, total_lines: text.split('\n').length, truncated: false }),
    });
  }
  return outputs;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (entry.name.endsWith('.ts')) out.push(path);
  }
  return out;
}

/** A long session: real turns repeated with fresh ids until it has `size` messages. */
function longSession(size: number, outputs: Output[]): Message[] {
  const messages: Message[] = [{ role: 'system', content: 'You are a coding agent.' }];
  let n = 0;
  while (messages.length < size) {
    messages.push({ role: 'user', content: `step ${n}: continue with the task` });
    for (let k = 0; k < 3 && messages.length < size - 1; k++) {
      const out = outputs[(n * 3 + k) % outputs.length] as Output;
      const id = `call_${n}_${k}`;
      messages.push({
        role: 'assistant',
        content: '',
        tool_calls: [
          {
            id,
            type: 'function',
            function: { name: out.tool, arguments: typeof out.args === 'string' ? out.args : JSON.stringify(out.args) },
          },
        ],
      });
      messages.push({ role: 'tool', tool_call_id: id, name: out.tool, content: out.content });
    }
    messages.push({ role: 'assistant', content: `done with step ${n}` });
    n++;
  }
  return messages.slice(0, size);
}

function freshEngine(): Engine {
  const config = defaultConfig();
  return new Engine({
    config: () => config,
    stateDir: null,
    sink: NULL_SINK,
    recorder: null,
    log: () => {},
    autoSettle: false,
  });
}

export function runEngineBench(): BenchRow[] {
  const rows: BenchRow[] = [];
  const outputs = realOutputs();
  const config = defaultConfig();
  const ctx = { config, protection: protectionFor(config), manual: false, log: () => {} };

  // Throughput: every real output through the single-output pipeline, several rounds.
  const bytes = outputs.reduce((a, o) => a + Buffer.byteLength(o.content), 0);
  const rounds = 20;
  // One warm-up round: the JIT, regex compilation and the tokenizer's tables are not what we measure.
  for (const o of outputs) compressOutput(o.content, { tool: o.tool, args: o.args }, ctx);
  let t = performance.now();
  const cpu = process.cpuUsage();
  for (let r = 0; r < rounds; r++)
    for (const o of outputs) compressOutput(o.content, { tool: o.tool, args: o.args }, ctx);
  let elapsed = (performance.now() - t) / 1000;
  const used = process.cpuUsage(cpu);
  // Beside the wall clock, the CPU time this process got: on a machine busy with other work the two differ.
  const cpuSeconds = (used.user + used.system) / 1e6;
  rows.push({
    name: `layer-0 throughput (${outputs.length} real outputs, ${(bytes / 1e6).toFixed(2)} MB)`,
    value: `${((bytes * rounds) / 1e6 / elapsed).toFixed(1)} MB/s (${((bytes * rounds) / 1e6 / cpuSeconds).toFixed(1)} MB/s of CPU time)`,
  });
  // The same outputs again once V8 has compiled the hot code: in the rounds above, a third of the
  // CPU time is the optimising compiler on its own threads (docs/engine.md, Speed).
  const warmRounds = 40;
  t = performance.now();
  const warmCpu = process.cpuUsage();
  for (let r = 0; r < warmRounds; r++)
    for (const o of outputs) compressOutput(o.content, { tool: o.tool, args: o.args }, ctx);
  const warmElapsed = (performance.now() - t) / 1000;
  const warmUsed = process.cpuUsage(warmCpu);
  const warmCpuSeconds = (warmUsed.user + warmUsed.system) / 1e6;
  rows.push({
    name: `  the next ${warmRounds} rounds (compiled)`,
    value: `${((bytes * warmRounds) / 1e6 / warmElapsed).toFixed(1)} MB/s (${((bytes * warmRounds) / 1e6 / warmCpuSeconds).toFixed(1)} MB/s of CPU time)`,
  });

  // post_tool_call on a 100 KB output (a log with errors in the middle).
  const log = Array.from({ length: 2000 }, (_, i) =>
    i % 400 === 7
      ? `src/mod${i}.ts:${i}:3 - error TS2345: Argument of type 'x' is not assignable.`
      : `[build] step ${i}: compiled module_${i}.ts in ${i % 97} ms`,
  ).join('\n');
  const big = JSON.stringify({ output: log.slice(0, 100_000), exit_code: 1, error: null });
  const post: number[] = [];
  const e = freshEngine();
  for (let i = 0; i < 20; i++)
    e.postToolCall({
      session_id: 'warm',
      tool_name: 'terminal',
      args: { command: 'npm run build' },
      result: big,
      tool_call_id: `w${i}`,
    });
  for (let i = 0; i < 200; i++) {
    t = performance.now();
    e.postToolCall({
      session_id: 'bench',
      tool_name: 'terminal',
      args: { command: 'npm run build' },
      result: big,
      tool_call_id: `p${i}`,
    });
    post.push(performance.now() - t);
  }
  rows.push({
    name: `post_tool_call, ${(big.length / 1024).toFixed(0)} KB output: p50 / p99`,
    value: `${ms(percentile(post, 50))} / ${ms(percentile(post, 99))}`,
  });

  for (const size of [100, 1000, 5000]) {
    const session = longSession(size + 40, outputs);
    const base = session.slice(0, size);
    // Incremental: the engine holds `size` messages; each call brings the next turn's few messages.
    const incremental: number[] = [];
    const full: number[] = [];
    const settle: number[] = [];
    const inc = freshEngine();
    inc.preLlmCall({ session_id: 's', messages: base });
    inc.settle();
    let held = size;
    const fullEngine = freshEngine();
    fullEngine.preLlmCall({ session_id: 's', messages: base });
    fullEngine.settle();
    while (held < session.length) {
      let next = held + 1;
      while (next < session.length && session[next]?.role !== 'user') next++;
      const append = session.slice(held, next);
      // As a host does: each new tool result went through post_tool_call when it arrived.
      const args = new Map(
        append.flatMap((m) => (m.tool_calls ?? []).map((c) => [c.id, c.function?.arguments ?? '{}'] as const)),
      );
      for (const m of append) {
        if (m.role !== 'tool' || typeof m.content !== 'string') continue;
        const id = String(m.tool_call_id ?? '');
        for (const engine of [inc, fullEngine])
          engine.postToolCall({
            session_id: 's',
            tool_name: String(m.name ?? ''),
            args: args.get(id) ?? '{}',
            result: m.content,
            tool_call_id: id,
          });
      }
      t = performance.now();
      inc.preLlmCall({ session_id: 's', base: held, append });
      incremental.push(performance.now() - t);
      t = performance.now();
      inc.settle();
      settle.push(performance.now() - t);
      // The full path with copies, as a host sending the whole list over a pipe would.
      const copy = JSON.parse(JSON.stringify(session.slice(0, next))) as Message[];
      t = performance.now();
      fullEngine.preLlmCall({ session_id: 's', messages: copy });
      full.push(performance.now() - t);
      fullEngine.settle();
      held = next;
    }
    rows.push({
      name: `pre_llm_call at ${size} messages, incremental: p50 / p99`,
      value: `${ms(percentile(incremental, 50))} / ${ms(percentile(incremental, 99))}`,
    });
    rows.push({
      name: `pre_llm_call at ${size} messages, full list: p50 / p99`,
      value: `${ms(percentile(full, 50))} / ${ms(percentile(full, 99))}`,
    });
    rows.push({ name: `  deferred accounting (off the hook path) at ${size}: p50`, value: ms(percentile(settle, 50)) });
  }

  // Savings on the corpus.
  const sessions = corpusSessions();
  if (sessions.length === 0) rows.push({ name: 'corpus savings', value: `skipped: no corpus at ${CORPUS}` });
  else {
    let raw = 0;
    let hmc = 0;
    let ctxRaw = 0;
    let ctxHmc = 0;
    let exact = 0;
    const byStrategy: Record<string, number> = {};
    t = performance.now();
    for (const s of sessions) {
      const r = replaySession(s.messages, { sessionId: s.name, config });
      raw += r.input_tokens.raw;
      hmc += r.input_tokens.hmc;
      ctxRaw += r.final_context_tokens.raw;
      ctxHmc += r.final_context_tokens.hmc;
      if (r.restore_exact && r.invariant_violations.length === 0) exact++;
      for (const [k, v] of Object.entries(r.saved_by_strategy)) byStrategy[k] = (byStrategy[k] ?? 0) + v;
    }
    elapsed = performance.now() - t;
    rows.push({
      name: `corpus (${sessions.length} sessions): input tokens raw → with HMC`,
      value: `${raw} → ${hmc} (${(((raw - hmc) / raw) * 100).toFixed(1)}% saved)`,
    });
    rows.push({
      name: 'corpus: final context raw → with HMC',
      value: `${ctxRaw} → ${ctxHmc} (${(((ctxRaw - ctxHmc) / ctxRaw) * 100).toFixed(1)}% saved)`,
    });
    rows.push({
      name: 'corpus: saved by strategy',
      value: Object.entries(byStrategy)
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => `${k} ${v}`)
        .join(', '),
    });
    rows.push({
      name: 'corpus: exact restore, no invariant broken',
      value: `${exact}/${sessions.length} sessions (replayed in ${elapsed.toFixed(0)} ms)`,
    });
  }
  return rows;
}

export function printRows(title: string, rows: BenchRow[]): void {
  const width = Math.max(...rows.map((r) => r.name.length));
  process.stdout.write(`\n${title}\n${'='.repeat(title.length)}\n`);
  for (const r of rows) process.stdout.write(`${r.name.padEnd(width)}  ${r.value}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) printRows('engine', runEngineBench());
