/**
 * `npm run bench -- loop`: pre_model_call along one long tool loop, in process (the engine's own
 * time: no pipe, no host). The development corpus's Claude Code sessions are played one after the
 * other as a single session (their system prompts after the first dropped), the way a long agent
 * run grows: every tool result through post_tool_call, then pre_model_call with the new messages
 * (`base` + `append`) before every model call, the view applied as an ideal host does. Run twice,
 * with quiet calls (docs/engine.md "Quiet calls") and with the list-wide pass on every call; prints
 * p50 / p95 per stretch of 100 calls, the share of calls that were quiet, and whether both runs
 * sent the same views. Timings only, never a test; needs ../devcorpus (HMC_DEV_CORPUS).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseSession } from '../src/app/replay.js';
import { defaultConfig } from '../src/config/keys.js';
import type { Message } from '../src/core/message.js';
import { Engine } from '../src/engine/engine.js';
import { NULL_SINK } from '../src/events/types.js';
import { InProcessHost } from '../src/hosts/in-process.js';

const ROOT = join(import.meta.dirname, '..');
const DEV = process.env.HMC_DEV_CORPUS ?? join(ROOT, '..', 'devcorpus');
/** The model's window the loop is played with (Claude's). */
const WINDOW = 200_000;
/** Sessions joined into the loop: enough for about 1,000 messages. */
const SESSIONS = 4;

interface LoopRun {
  /** Milliseconds per pre_model_call, in order. */
  times: number[];
  views: string[];
  quiet: number;
}

/** The longest Claude Code sessions of the development corpus, joined in name order. */
export function longLoop(dir = join(DEV, 'claude-code'), sessions = SESSIONS): Message[] {
  if (!existsSync(dir)) return [];
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => ({ f, messages: parseSession(readFileSync(join(dir, f), 'utf8'), f) }))
    .sort((a, b) => b.messages.length - a.messages.length || a.f.localeCompare(b.f))
    .slice(0, sessions)
    .sort((a, b) => a.f.localeCompare(b.f));
  return files.flatMap(({ messages }, i) => (i === 0 ? messages : messages.filter((m) => m.role !== 'system')));
}

function play(messages: readonly Message[], quietCalls: boolean): LoopRun {
  const config = defaultConfig();
  const engine = new Engine({
    config: () => config,
    stateDir: null,
    sink: NULL_SINK,
    recorder: null,
    log: () => {},
    autoSettle: false,
    quietCalls,
  });
  const host = new InProcessHost(engine);
  const live: Message[] = [];
  const run: LoopRun = { times: [], views: [], quiet: 0 };
  const calls = new Map<string, { name: string; args: string }>();
  let sent = 0;
  for (const source of messages) {
    const m = structuredClone(source);
    if (m.role === 'assistant') {
      host.restore('loop');
      const params = { session_id: 'loop', base: sent, append: live.slice(sent), context_length: WINDOW };
      const t = performance.now();
      const r = engine.preModelCall(params);
      run.times.push(performance.now() - t);
      run.views.push(JSON.stringify(r.edits));
      host.apply('loop', live, r.edits);
      // The accounting runs between hooks, off the timed path (a sidecar does it between calls).
      engine.settle();
      sent = live.length;
      for (const c of m.tool_calls ?? [])
        calls.set(String(c.id), { name: String(c.function?.name ?? ''), args: String(c.function?.arguments ?? '{}') });
    }
    live.push(m);
    if (m.role === 'tool' && typeof m.content === 'string') {
      const call = calls.get(String(m.tool_call_id));
      engine.postToolCall({
        session_id: 'loop',
        tool_name: call?.name ?? String(m.name ?? ''),
        args: call?.args ?? '{}',
        result: m.content,
        tool_call_id: String(m.tool_call_id ?? ''),
      });
    }
  }
  run.quiet = engine.sessions.get('loop')?.counts.quietCalls ?? 0;
  return run;
}

function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

export function runLoopBench(): string {
  const messages = longLoop();
  if (messages.length === 0) return `skipped: no Claude Code sessions under ${DEV}\n`;
  // Each run once before it is timed, so neither gains from the other's warmed-up code.
  play(messages, true);
  play(messages, false);
  const whole = play(messages, false);
  const quiet = play(messages, true);
  const lines = [
    `one loop of ${messages.length} messages, ${quiet.times.length} model calls (in process, o200k accounting between calls)`,
    'calls        quiet calls p50 / p95     pass on every call p50 / p95',
  ];
  const cell = (times: number[]) => `${percentile(times, 50).toFixed(2)} / ${percentile(times, 95).toFixed(2)} ms`;
  for (let from = 0; from < quiet.times.length; from += 100) {
    const to = Math.min(quiet.times.length, from + 100);
    lines.push(
      `${`${from + 1}-${to}`.padEnd(12)} ${cell(quiet.times.slice(from, to)).padEnd(25)} ${cell(whole.times.slice(from, to))}`,
    );
  }
  lines.push(`${'all'.padEnd(12)} ${cell(quiet.times).padEnd(25)} ${cell(whole.times)}`);
  const same = quiet.views.every((v, i) => v === whole.views[i]);
  lines.push(
    `quiet: ${quiet.quiet} of ${quiet.times.length} calls; views ${same ? 'identical' : 'DIFFERENT'} in both runs`,
  );
  return `${lines.join('\n')}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) process.stdout.write(runLoopBench());
