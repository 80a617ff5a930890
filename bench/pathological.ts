/**
 * Pathological tool outputs (issue 19, finding 2): time per KB from 1 KB to 1 MB for the token
 * count alone and for a tool output's whole way through the engine (post_tool_call, the next
 * pre_llm_call, and the accounting worked off). Linear means the figure stays flat along a row;
 * `growth` is the 1 MB figure over the 16 KB one (a quadratic stage shows 64 there). The bridge's
 * side (a pre_llm_call with 128 K and 256 K of such text) is in bench/bridge.py.
 * Run: `npm run bench -- pathological` or `npx tsx bench/pathological.ts`.
 */
import { clearMergeCache } from 'gpt-tokenizer/encoding/o200k_base';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { defaultConfig } from '../src/config/keys.js';
import { countTokens } from '../src/core/tokens.js';
import type { Message } from '../src/core/message.js';
import { Engine } from '../src/engine/engine.js';
import { NULL_SINK } from '../src/events/types.js';
import { PATHOLOGICAL } from '../test/helpers/pathological.js';

const SIZES = [1024, 16 * 1024, 128 * 1024, 1024 * 1024];
const LABELS = ['1 KB', '16 KB', '128 KB', '1 MB'];

/** Repetitions per size: small sizes are timed several times (median), 1 MB once. */
function reps(size: number): number {
  return size <= 1024 ? 15 : size <= 16 * 1024 ? 5 : size <= 128 * 1024 ? 2 : 1;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

/** One tool output through the engine: the hook, the next model call's hook, the accounting. */
function throughEngine(text: string, k: number): void {
  const config = defaultConfig();
  const engine = new Engine({
    config: () => config,
    stateDir: null,
    sink: NULL_SINK,
    recorder: null,
    log: () => {},
    autoSettle: false,
  });
  const id = `c${k}`;
  const result = JSON.stringify({ output: text, exit_code: 0, error: null });
  const messages: Message[] = [
    { role: 'user', content: 'run it' },
    {
      role: 'assistant',
      content: '',
      tool_calls: [{ id, type: 'function', function: { name: 'terminal', arguments: '{"command":"./run"}' } }],
    },
    { role: 'tool', tool_call_id: id, content: result },
  ];
  engine.postToolCall({ session_id: 's', tool_name: 'terminal', args: { command: './run' }, result, tool_call_id: id });
  engine.preLlmCall({ session_id: 's', messages });
  engine.settle();
}

/**
 * ms per KB of `run` on `size` characters of the input: a different stretch of it each time, and
 * the tokenizer's merge cache emptied, so no sample is answered from what an earlier one counted.
 */
function perKb(make: (n: number) => string, size: number, run: (text: string, k: number) => void): number {
  const samples: number[] = [];
  const n = reps(size);
  const all = make(size * n);
  for (let k = 0; k < n; k++) {
    const text = `${all.slice(k * size, (k + 1) * size)}${k}`;
    clearMergeCache();
    const t = performance.now();
    run(text, k);
    samples.push(performance.now() - t);
  }
  return median(samples) / (size / 1024);
}

export interface PathologicalRow {
  input: string;
  stage: string;
  msPerKb: number[];
  growth: number;
}

export function runPathologicalBench(): PathologicalRow[] {
  // Warm-up: the tokenizer's tables, the JIT.
  throughEngine(PATHOLOGICAL.map((p) => p.make(2048)).join('\n'), 0);
  const rows: PathologicalRow[] = [];
  for (const p of PATHOLOGICAL) {
    for (const [stage, run] of [
      ['count', (t: string) => void countTokens(t)],
      ['hooks', throughEngine],
    ] as const) {
      const msPerKb = SIZES.map((size) => perKb(p.make, size, run));
      rows.push({
        input: p.name,
        stage,
        msPerKb,
        growth: (msPerKb[3] as number) / Math.max(1e-6, msPerKb[1] as number),
      });
    }
  }
  return rows;
}

export function formatPathological(rows: readonly PathologicalRow[]): string {
  const head = `${'input'.padEnd(30)} ${'stage'.padEnd(6)} ${LABELS.map((l) => `${l} ms/KB`.padStart(14)).join(' ')} ${'growth'.padStart(7)}`;
  const lines = rows.map(
    (r) =>
      `${r.input.padEnd(30)} ${r.stage.padEnd(6)} ${r.msPerKb.map((x) => x.toFixed(3).padStart(14)).join(' ')} ${r.growth.toFixed(2).padStart(7)}`,
  );
  return [head, ...lines].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(`${formatPathological(runPathologicalBench())}\n`);
}
