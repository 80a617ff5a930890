/**
 * Quiet calls (src/engine/list-wide/quiet.ts): a model call that skips the list-wide pass must send
 * exactly what the whole pass would have sent. Random tool loops (single and parallel calls, exact
 * repeats, the same call with a new output, near copies, re-read, edited and written files,
 * failures, user turns opened with pre_llm_call, nudges inside a turn, layer-1 summaries, a host
 * that asks only before some calls, outputs with and without post_tool_call, input clearing alone,
 * a new process carrying the session on) run through two engines, one with quiet calls and one
 * running the pass on every call: the same view at every call, the same cache breaks, the same
 * restore. Then the rule itself: which calls are quiet.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HmcConfig } from '../../src/config/keys.js';
import type { Message } from '../../src/core/message.js';
import { Engine } from '../../src/engine/engine.js';
import { safeJson } from '../../src/engine/session/hashing.js';
import { NULL_SINK } from '../../src/events/types.js';
import { InProcessHost } from '../../src/hosts/in-process.js';
import { config, readFile, terminal } from '../helpers/conversation.js';
import { ListingSummariser } from './layer1-harness.js';

const PATHS = ['src/app.py', 'src/util.ts', 'lib/app.py'];
const WINDOW = 200_000;
/** A nudge's words (a user message inside a turn, no pre_llm_call for it). */
const NUDGE = 'check your work';

interface Call {
  name: string;
  args: Record<string, unknown>;
  content: string;
}

type Step =
  | { kind: 'user' }
  | { kind: 'nudge' }
  | { kind: 'terminal'; lines: number; code: number }
  | { kind: 'repeat'; back: number }
  | { kind: 'read'; path: number; lines: number; version: number }
  | { kind: 'edit'; path: number; lines: number }
  | { kind: 'write'; path: number; lines: number }
  | { kind: 'parallel'; shape: Shape; path: number };

/** Two calls in one assistant message. */
type Shape = 'same read' | 'read and edit' | 'same output' | 'same call' | 'near copy' | 'two logs';

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ kind: 'user' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'nudge' as const }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('terminal' as const),
      lines: fc.integer({ min: 3, max: 200 }),
      code: fc.constantFrom(0, 0, 1),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('repeat' as const), back: fc.integer({ min: 1, max: 8 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('read' as const),
      path: fc.nat(PATHS.length - 1),
      lines: fc.integer({ min: 5, max: 150 }),
      version: fc.nat(2),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('edit' as const),
      path: fc.nat(PATHS.length - 1),
      lines: fc.integer({ min: 3, max: 60 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('write' as const),
      path: fc.nat(PATHS.length - 1),
      lines: fc.integer({ min: 10, max: 80 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('parallel' as const),
      shape: fc.constantFrom<Shape>('same read', 'read and edit', 'same output', 'same call', 'near copy', 'two logs'),
      path: fc.nat(PATHS.length - 1),
    }),
  },
);

function log(lines: number, seed: number, code = 0): string {
  const out = Array.from({ length: lines }, (_, k) =>
    (seed * 31 + k) % 23 === 0 ? `error: boom ${k}` : `compiling module ${k} of ${lines} (${(seed * 7 + k) % 97})`,
  );
  return terminal(out.join('\n'), code);
}

function read(path: string, lines: number, version: number): Call {
  return {
    name: 'read_file',
    args: { path, offset: 1, limit: lines },
    content: readFile(Array.from({ length: lines }, (_, k) => `value_${k} = ${k * 7 + version}  # v${version}`)),
  };
}

function edit(path: string, lines: number, i: number): Call {
  const snippet = Array.from(
    { length: lines },
    (_, k) => `${String(40 + k).padStart(6)}→  const v_${i}_${k} = f(${k});`,
  );
  return {
    name: 'Edit',
    args: { file_path: path, old_string: `old ${i}`, new_string: `new ${i}` },
    content: [
      `The file ${path} has been updated. Here's the result of running \`cat -n\` on a snippet:`,
      ...snippet,
    ].join('\n'),
  };
}

/** A tool loop: each step one assistant message with its calls and their results. */
function conversation(steps: readonly Step[]): Message[] {
  const messages: Message[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'fix it' },
  ];
  const done: Call[] = [];
  steps.forEach((s, i) => {
    if (s.kind === 'user') {
      messages.push({ role: 'assistant', content: 'next' }, { role: 'user', content: `go on ${i}` });
      return;
    }
    // A user message the host adds inside a turn (Hermes' verify-on-stop nudge): no turn hook for it.
    if (s.kind === 'nudge') {
      messages.push({ role: 'user', content: `${NUDGE} ${i}` });
      return;
    }
    const path = PATHS['path' in s ? s.path : 0] as string;
    let calls: Call[];
    if (s.kind === 'terminal')
      calls = [{ name: 'terminal', args: { command: `make ${i}` }, content: log(s.lines, i, s.code) }];
    else if (s.kind === 'repeat') {
      const earlier = done[done.length - s.back];
      calls = [earlier ?? { name: 'terminal', args: { command: 'true' }, content: log(120, 1) }];
    } else if (s.kind === 'read') calls = [read(path, s.lines, s.version)];
    else if (s.kind === 'edit') calls = [edit(path, s.lines, i)];
    else if (s.kind === 'write')
      calls = [
        {
          // Bulky arguments, answered in a line: input clearing's work once superseded or old.
          name: 'Write',
          args: { file_path: path, content: Array.from({ length: s.lines }, (_, k) => `line ${k} of ${i}`).join('\n') },
          content: `File created successfully at: ${path}`,
        },
      ];
    else if (s.shape === 'same read') calls = [read(path, 80, 0), read(path, 80, 0)];
    else if (s.shape === 'read and edit') calls = [read(path, 90, 1), edit(path, 30, i)];
    else if (s.shape === 'same output') {
      const content = log(150, i);
      calls = [
        { name: 'terminal', args: { command: `a ${i}` }, content },
        { name: 'terminal', args: { command: `b ${i}` }, content },
      ];
    } else if (s.shape === 'same call')
      calls = [
        { name: 'terminal', args: { command: 'git status' }, content: log(130, i) },
        { name: 'terminal', args: { command: 'git status' }, content: log(110, i + 3) },
      ];
    else if (s.shape === 'near copy')
      calls = [
        {
          name: 'terminal',
          args: { command: `p ${i}` },
          content: `${log(120, i)}\ndone at 2026-11-29T03:0${i % 10}:00Z`,
        },
        {
          name: 'terminal',
          args: { command: `q ${i}` },
          content: `${log(120, i)}\ndone at 2026-11-29T04:1${i % 10}:00Z`,
        },
      ];
    else
      calls = [
        { name: 'terminal', args: { command: `x ${i}` }, content: log(150, i) },
        { name: 'terminal', args: { command: `y ${i}` }, content: log(140, i + 1, 1) },
      ];
    const ids = calls.map((_, k) => `call_${i}_${k}`);
    messages.push({
      role: 'assistant',
      content: '',
      tool_calls: calls.map((c, k) => ({
        id: ids[k] as string,
        type: 'function' as const,
        function: { name: c.name, arguments: JSON.stringify(c.args) },
      })),
    });
    calls.forEach((c, k) => {
      messages.push({ role: 'tool', tool_call_id: ids[k] as string, name: c.name, content: c.content });
      done.push(c);
    });
  });
  messages.push({ role: 'assistant', content: 'done' });
  return messages;
}

interface Knobs {
  firstAfter: number;
  perHundred: number;
  minTokens: number;
  keep: number;
  layer1: boolean;
  /** False: only input clearing among the list-wide rewrites (no output placeholders at all). */
  outputs: boolean;
}

const knobs: fc.Arbitrary<Knobs> = fc.record({
  firstAfter: fc.integer({ min: 0, max: 12 }),
  perHundred: fc.constantFrom(0, 2, 10),
  minTokens: fc.constantFrom(0, 500),
  keep: fc.integer({ min: 0, max: 3 }),
  layer1: fc.boolean(),
  outputs: fc.boolean(),
});

function configOf(k: Knobs): HmcConfig {
  return config((c) => {
    c.cache.first_break_after = k.firstAfter;
    c.cache.max_breaks_per_100_calls = k.perHundred;
    c.cache.min_batch_tokens = k.minTokens;
    c.strategies.clearing.keep = k.keep;
    c.strategies.clearing.trigger_percent = 0.01;
    c.strategies.clearing.target_percent = 0.002;
    c.strategies.edit_echo.keep_calls = k.keep;
    c.strategies.input_clearing.keep_calls = k.keep;
    c.strategies.input_clearing.min_chars = 100;
    c.strategies.purge_errors.turns = 1;
    c.background_compression.threshold_share = 0.05;
    c.background_compression.protect_recent_calls = 4;
    c.background_compression.cooldown_calls = 2;
    c.background_compression.min_return = 0;
    if (!k.outputs)
      for (const off of [
        c.strategies.deduplication,
        c.strategies.purge_errors,
        c.strategies.stale_reads,
        c.strategies.clearing,
        c.strategies.edit_echo,
      ])
        off.enabled = false;
  });
}

function engineFor(c: HmcConfig, k: Knobs, quietCalls: boolean, stateDir: string | null = null): Engine {
  const summariser = k.layer1 ? new ListingSummariser() : null;
  return new Engine({
    config: () => c,
    stateDir,
    sink: NULL_SINK,
    recorder: null,
    log: () => {},
    autoSettle: false,
    summariser: () => summariser,
    quietCalls,
  });
}

interface Play {
  /** `looks[i]` false: the host does not ask before the i-th model call (a host with only a per-turn hook). */
  looks: readonly boolean[];
  /** False: outputs arrive only in the conversation (no post_tool_call), and are compressed there. */
  posts: boolean;
  /** At this model call the process ends and `next` (a new process on the same state folder) carries the session on. */
  restart?: { at: number; next: () => Engine };
}

/**
 * Plays the loop as an ideal host: every view sent (as JSON), which calls were quiet, the cache
 * breaks, whether restore was exact.
 */
async function play(first: Engine, messages: readonly Message[], opts: Play) {
  let e = first;
  let host = new InProcessHost(e);
  const before = messages.map((m) => safeJson(m));
  const live: Message[] = [];
  const views: string[] = [];
  /** Per call asked: the pass was skipped. */
  const quiet: boolean[] = [];
  const names = new Map<string, { name: string; args: string }>();
  for (const original of messages) {
    const m = structuredClone(original);
    if (m.role === 'assistant' && opts.restart && views.length === opts.restart.at) {
      host.restore('Q');
      e.onSessionEnd({ session_id: 'Q' });
      await e.recall.flush();
      await e.flushSaves();
      e = opts.restart.next();
      host = new InProcessHost(e);
    }
    if (m.role === 'assistant') {
      if (opts.looks[views.length % opts.looks.length] === false) views.push('(not asked)');
      else {
        // A user's turn opens with pre_llm_call, as Hermes calls it, before its first model call.
        const last = live[live.length - 1];
        if (last?.role === 'user' && !String(last.content).startsWith(NUDGE))
          host.preLlmCall('Q', live, { context_length: WINDOW });
        host.restore('Q');
        const before = e.sessions.get('Q')?.counts.quietCalls ?? 0;
        const r = e.preModelCall({ session_id: 'Q', messages: live, context_length: WINDOW });
        views.push(JSON.stringify(r.edits));
        quiet.push((e.sessions.get('Q')?.counts.quietCalls ?? 0) > before);
        host.apply('Q', live, r.edits);
        // Layer 1's summaries come back between calls.
        await new Promise((resolve) => setImmediate(resolve));
      }
      for (const c of m.tool_calls ?? [])
        names.set(c.id as string, { name: String(c.function?.name), args: String(c.function?.arguments) });
    }
    live.push(m);
    if (m.role === 'tool' && opts.posts) {
      const call = names.get(String(m.tool_call_id));
      e.postToolCall({
        session_id: 'Q',
        tool_name: call?.name ?? 'terminal',
        args: JSON.parse(call?.args ?? '{}') as Record<string, unknown>,
        result: String(m.content),
        tool_call_id: String(m.tool_call_id),
      });
    }
  }
  host.restore('Q');
  const restored = live.every((m, i) => safeJson(m) === before[i]);
  const breaks = e.sessions.get('Q')?.counts.cacheBreaks;
  // Recall copies and saves are written in the background: done before the folder goes.
  await e.recall.flush();
  await e.flushSaves();
  return { views, restored, quiet, breaks };
}

describe('quiet calls', () => {
  it('send exactly what the whole pass sends, call for call', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 6, maxLength: 45 }),
        knobs,
        fc.array(fc.boolean(), { minLength: 1, maxLength: 12 }),
        fc.boolean(),
        fc.option(fc.nat(40), { freq: 3 }),
        async (steps, k, looks, posts, restartAt) => {
          const c = configOf(k);
          const messages = conversation(steps);
          // With a restart, each run's first process saves to its own folder, and a new one carries on.
          const run = async (quietCalls: boolean) => {
            const dir = restartAt === null ? null : mkdtempSync(join(tmpdir(), 'hmc-quiet-'));
            try {
              const restart =
                dir === null
                  ? {}
                  : { restart: { at: restartAt as number, next: () => engineFor(c, k, quietCalls, dir) } };
              return await play(engineFor(c, k, true, dir), messages, { looks, posts, ...restart });
            } finally {
              if (dir) rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
            }
          };
          const quiet = await run(true);
          const whole = await run(false);
          expect(quiet.restored).toBe(true);
          expect(quiet.breaks).toBe(whole.breaks);
          expect(quiet.views.length).toBe(whole.views.length);
          quiet.views.forEach((view, call) => {
            expect(view, `model call ${call}`).toBe(whole.views[call]);
          });
        },
      ),
      {
        numRuns: 300,
        examples: [
          // A failed output whose call was not looked at again before the next user turn: error purge
          // may take it at once (nothing sent it yet), so that call is not quiet.
          [
            [{ kind: 'terminal', lines: 150, code: 1 }, { kind: 'user' }, { kind: 'terminal', lines: 150, code: 0 }],
            { firstAfter: 0, perHundred: 0, minTokens: 0, keep: 0, layer1: false, outputs: true },
            [true, false, true],
            true,
            null,
          ],
        ],
      },
    );
  });

  const logs = (n: number): Step[] =>
    Array.from({ length: n }, () => ({ kind: 'terminal' as const, lines: 120, code: 0 }));
  const defaults: Knobs = { firstAfter: 35, perHundred: 2, minTokens: 2000, keep: 3, layer1: false, outputs: true };

  it('skip the pass on most calls of a long loop once its break budget is spent', async () => {
    const c = config();
    const run = await play(engineFor(c, defaults, true), conversation(logs(60)), { looks: [true], posts: true });
    const skipped = run.quiet.filter(Boolean).length;
    expect(skipped).toBeGreaterThan(run.quiet.length / 2);
    expect(run.restored).toBe(true);
  });

  it('never skip it while the budget has a break left', async () => {
    const k = { ...defaults, firstAfter: 0, perHundred: 100 };
    const run = await play(engineFor(configOf(k), k, true), conversation(logs(30)), { looks: [true], posts: true });
    expect(run.quiet.filter(Boolean)).toEqual([]);
  });

  it('run it when the new step repeats an earlier output, has a later copy, or touches one file twice', async () => {
    const k = { ...defaults, firstAfter: 0, perHundred: 0 };
    const c = configOf(k);
    const at = (steps: Step[]) => play(engineFor(c, k, true), conversation(steps), { looks: [true], posts: true });
    // The last call is the one that sends the last step (the request before the final "done").
    const lastStep = async (steps: Step[]) => {
      const run = await at(steps);
      return run.quiet[run.quiet.length - 1];
    };
    expect(await lastStep([...logs(8), { kind: 'read', path: 0, lines: 40, version: 0 }])).toBe(true);
    expect(await lastStep([...logs(8), { kind: 'repeat', back: 3 }])).toBe(false);
    expect(await lastStep([...logs(8), { kind: 'parallel', shape: 'read and edit', path: 1 }])).toBe(false);
    expect(await lastStep([...logs(8), { kind: 'parallel', shape: 'same call', path: 1 }])).toBe(false);
    expect(await lastStep([...logs(8), { kind: 'parallel', shape: 'two logs', path: 1 }])).toBe(true);
  });
});
