/**
 * The first pre_llm_call of a resumed long session (issue 11, fault 4), through a real sidecar
 * process: the time from the request line being written to its answer, the next hook's latency,
 * the time until the background work (catch-up, accounting) is done, and the sidecar's peak RSS.
 * Before the fix: 100 K messages took 12.4 s here (7.4 s in the report) and 823 MB.
 *
 * Two ways in: the whole history in one line (what any host may send; the engine bounds its own
 * work, catch-up.ts), and streamed in `partial` stretches of about 4 MB as the bridge sends it.
 * Run: `npm run bench -- resume`, or `npx tsx bench/resume.ts [messages] [repo] [whole|streamed]`
 * (a repo path measures another build, e.g. an older checkout, with its own build done);
 * HMC_BENCH_PROFILE=<dir> writes the sidecar's CPU profile there.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { STREAM_BYTES } from '../src/engine/hello.js';

export interface ResumeRow {
  name: string;
  value: string;
}

/** `n` messages of a coding session: tool calls with build logs (every 25th long), a user turn every 10 calls. */
export function resumedHistory(n: number): unknown[] {
  const msgs: unknown[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Build the project and fix what fails.' },
  ];
  for (let i = 0; msgs.length < n; i++) {
    const id = `call_${i}`;
    msgs.push({
      role: 'assistant',
      content: '',
      tool_calls: [
        {
          id,
          type: 'function',
          function: { name: 'terminal', arguments: JSON.stringify({ command: `make step${i}` }) },
        },
      ],
    });
    const lines = i % 25 === 0 ? 120 : 40;
    const output = Array.from({ length: lines }, (_, j) => `step ${i} line ${j}: compiling module_${j}.ts ok`).join(
      '\n',
    );
    msgs.push({
      role: 'tool',
      name: 'terminal',
      tool_call_id: id,
      content: JSON.stringify({ output, exit_code: 0, error: null }),
    });
    if (i % 10 === 9) msgs.push({ role: 'user', content: `next ${i}` });
  }
  return msgs.slice(0, n);
}

function peakRss(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** How the history reaches the sidecar: in one line (any host), or streamed as the bridge does. */
export type ResumeMode = 'whole' | 'streamed';

/** The bridge's size estimate per message (approx_bytes in hmc_bridge/views.py); the stretch size is the sidecar's own. */
function approxBytes(m: unknown): number {
  const msg = m as { content?: unknown; tool_calls?: { function?: { arguments?: unknown } }[] };
  let n = 64 + (typeof msg.content === 'string' ? msg.content.length : 0);
  for (const c of msg.tool_calls ?? []) n += 64 + String(c.function?.arguments ?? '').length;
  return n;
}

export async function runResumeBench(
  messages = 100_000,
  repo = join(import.meta.dirname, '..'),
  mode: ResumeMode = 'streamed',
): Promise<ResumeRow[]> {
  const state = mkdtempSync(join(tmpdir(), 'hmc-bench-resume-'));
  const nodeArgs = process.env.HMC_BENCH_PROFILE
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.HMC_BENCH_PROFILE}`]
    : [];
  const proc = spawn(
    process.execPath,
    [...nodeArgs, join(repo, 'bin', 'hmc.js'), 'sidecar', '--stdio', '--state-dir', state],
    { stdio: ['pipe', 'pipe', 'ignore'] },
  );
  const waiters = new Map<number, (r: Record<string, unknown>) => void>();
  // Chunks are kept as they come and joined once a line is complete (a 4 MB answer arrives in
  // 64 KB pieces; re-scanning a growing string would make the client, not the sidecar, slow).
  let pieces: Buffer[] = [];
  proc.stdout.on('data', (chunk: Buffer) => {
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10)) {
      const record = JSON.parse(Buffer.concat([...pieces, chunk.subarray(0, nl)]).toString('utf8')) as Record<
        string,
        unknown
      >;
      pieces = [];
      chunk = chunk.subarray(nl + 1);
      waiters.get(record.id as number)?.(record);
    }
    if (chunk.length > 0) pieces.push(chunk);
  });
  let written = 0;
  let ids = 0;
  /** One call; resolves with the answer and the time from the line written to the answer. */
  const call = (method: string, params: unknown): Promise<{ answer: Record<string, unknown>; ms: number }> =>
    new Promise((resolve) => {
      const id = ++ids;
      waiters.set(id, (answer) => resolve({ answer, ms: performance.now() - written }));
      proc.stdin.write(`${JSON.stringify({ id, method, params })}\n`, () => (written = performance.now()));
    });
  try {
    await call('hello', { host: 'bench', protocol: 1, capabilities: ['append'] });
    const history = resumedHistory(messages);
    const bytes = Buffer.byteLength(JSON.stringify(history));
    const started = performance.now();
    let longest = 0;
    let calls = 0;
    let held = 0;
    if (mode === 'streamed') {
      let size = 0;
      for (let i = 0; i < history.length - 1; i++) {
        size += approxBytes(history[i]);
        if (size < STREAM_BYTES) continue;
        const part =
          held === 0 ? { messages: history.slice(0, i + 1) } : { base: held, append: history.slice(held, i + 1) };
        const { ms } = await call('pre_llm_call', { session_id: 'resumed', model: 'm', partial: true, ...part });
        longest = Math.max(longest, ms);
        calls++;
        held = i + 1;
        size = 0;
      }
    }
    const rest = held === 0 ? { messages: history } : { base: held, append: history.slice(held) };
    const first = await call('pre_llm_call', { session_id: 'resumed', model: 'm', ...rest });
    longest = Math.max(longest, first.ms);
    calls++;
    const hookMs = performance.now() - started;
    const afterFirst = peakRss(proc.pid ?? 0);
    const next = await call('pre_tool_call', {
      session_id: 'resumed',
      tool_name: 'terminal',
      args: {},
      tool_call_id: 'next',
    });
    // hmc_control settles everything first: how much background work the first call left.
    const control = await call('hmc_control', { session_id: 'resumed', args: { action: 'stats' } });
    const second = await call('pre_llm_call', {
      session_id: 'resumed',
      base: messages,
      append: [{ role: 'user', content: 'and now?' }],
      model: 'm',
    });
    const edits = (r: Record<string, unknown>): number =>
      ((r.result as { edits?: unknown[] } | undefined)?.edits ?? []).length;
    return [
      {
        name: `history: ${messages.toLocaleString('en-US')} messages, ${(bytes / 1e6).toFixed(1)} MB, ${mode === 'streamed' ? 'streamed as the bridge does' : 'in one line'}`,
        value: '',
      },
      { name: `first pre_llm_call: ${calls} call(s), the longest`, value: `${longest.toFixed(0)} ms` },
      {
        name: 'first pre_llm_call: all of it (the hook in Hermes)',
        value: `${hookMs.toFixed(0)} ms (${edits(first.answer)} edits)`,
      },
      { name: 'next hook meanwhile (pre_tool_call)', value: `${next.ms.toFixed(0)} ms` },
      { name: 'background work left after it', value: `${control.ms.toFixed(0)} ms (hmc_control stats waits for it)` },
      {
        name: 'next pre_llm_call (base + append, the first batch)',
        value: `${second.ms.toFixed(0)} ms (${edits(second.answer)} edits)`,
      },
      {
        name: 'sidecar peak RSS: by the first answer / overall',
        value: `${(afterFirst / 1e6).toFixed(0)} MB / ${(peakRss(proc.pid ?? 0) / 1e6).toFixed(0)} MB`,
      },
    ];
  } finally {
    proc.stdin.end();
    await new Promise((r) => proc.once('exit', r));
    rmSync(state, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [count, repo, mode] = process.argv.slice(2);
  for (const m of mode ? [mode as ResumeMode] : (['whole', 'streamed'] as const)) {
    const rows = await runResumeBench(Number(count ?? 100_000), repo || undefined, m);
    for (const r of rows) process.stdout.write(`${r.name.padEnd(52)} ${r.value}\n`);
  }
}
