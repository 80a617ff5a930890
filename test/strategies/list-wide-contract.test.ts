/**
 * The contract every registered list-wide strategy keeps (issue 23), run over each entry of
 * LIST_WIDE_STRATEGIES alone (every other strategy off) through the real engine, on random
 * multi-turn tool loops (shell logs that fail or pass, exact repeats, the same call again, re-read
 * files, Claude Code edits that echo the file, a protected tool), with passes allowed early:
 * - restore exact: the host's messages come back byte for byte, every view passes the invariant
 *   checker, and every recall id a placeholder names gives back the exact output;
 * - the price rule held: a placeholder only where it is shorter than the output, and rewrites of
 *   messages already sent within the cache-break budget (ledger/pass.ts);
 * - nothing grows: no view of a tool result is longer than the result;
 * - the current step's results (the latest assistant message's calls, no user message after them)
 *   are never rewritten, but
 *   for a pointer to an earlier identical output the same view sends whole (a repeat: what the
 *   model reads next is then still there, word for word);
 * - protected tools (the config's, and write_file/patch always) are never rewritten.
 * A new list-wide strategy registered in src/strategies/index.ts runs this suite with no test of
 * its own; each one must make a placeholder in these runs (the suite checks it is exercised).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONFIG_KEYS, sectionOf, type HmcConfig } from '../../src/config/keys.js';
import type { ModelCallEdit } from '../../src/core/host-api.js';
import type { Message } from '../../src/core/message.js';
import { isShorter } from '../../src/core/tokens.js';
import { Engine } from '../../src/engine/engine.js';
import { breakBudget } from '../../src/engine/ledger/pass.js';
import { replaySession } from '../../src/app/replay.js';
import { NULL_SINK } from '../../src/events/types.js';
import { LIST_WIDE_STRATEGIES, PLACEHOLDER_KINDS, STRATEGIES } from '../../src/strategies/index.js';
import { config, terminal } from '../helpers/conversation.js';
import { rng } from '../helpers/random.js';

const PROTECTED = 'vault';
const PATHS = ['src/app.py', 'src/util.ts', 'README.md'];
const RECALL_ALL = /\(recall id=(r[0-9a-f]{10})(?: lines=\d+-\d+)?\)/g;

type Step =
  | { kind: 'user' }
  | { kind: 'terminal'; command: string; lines: number; code: number }
  | { kind: 'again'; back: number }
  | { kind: 'repeat'; back: number }
  | { kind: 'read'; path: string; lines: number; version: number }
  | { kind: 'edit'; path: string; lines: number }
  | { kind: 'vault'; code: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: 'user' as const }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('terminal' as const),
      command: fc.constantFrom('make', 'npm test', 'ls -R'),
      lines: fc.integer({ min: 3, max: 160 }),
      code: fc.constantFrom(0, 0, 1),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('again' as const), back: fc.integer({ min: 1, max: 6 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('repeat' as const), back: fc.integer({ min: 1, max: 6 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('read' as const),
      path: fc.constantFrom(...PATHS),
      lines: fc.integer({ min: 5, max: 150 }),
      version: fc.integer({ min: 0, max: 2 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('edit' as const),
      path: fc.constantFrom(...PATHS),
      lines: fc.integer({ min: 3, max: 60 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('vault' as const), code: fc.constantFrom(0, 1) }) },
);

/** A multi-turn tool loop built from the steps (each tool step one call and its result). */
function conversation(steps: readonly Step[], seed: number): Message[] {
  const random = rng(seed);
  const messages: Message[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'fix it' },
  ];
  const calls: { name: string; args: Record<string, unknown>; content: string }[] = [];
  steps.forEach((s, i) => {
    if (s.kind === 'user') {
      messages.push({ role: 'assistant', content: 'next' }, { role: 'user', content: `go on ${i}` });
      return;
    }
    const earlier = s.kind === 'again' || s.kind === 'repeat' ? calls[calls.length - s.back] : undefined;
    let call: { name: string; args: Record<string, unknown>; content: string };
    if (s.kind === 'terminal') {
      const out = Array.from({ length: s.lines }, (_, k) =>
        random() < 0.05 ? `error: boom ${k}` : `compiling module ${k} of ${s.lines} ${Math.floor(random() * 1000)}`,
      );
      call = { name: 'terminal', args: { command: s.command }, content: terminal(out.join('\n'), s.code) };
    } else if (s.kind === 'again')
      call = earlier ?? { name: 'terminal', args: { command: 'true' }, content: terminal('nothing yet') };
    else if (s.kind === 'repeat')
      call = {
        name: earlier?.name ?? 'terminal',
        args: { command: `again ${i}` },
        content: earlier?.content ?? terminal('nothing yet'),
      };
    else if (s.kind === 'read') {
      const lines = Array.from(
        { length: s.lines },
        (_, k) => `${k + 1}|value_${k} = ${k * 7 + s.version}  # v${s.version} ${'x'.repeat(k % 30)}`,
      );
      call = {
        name: 'read_file',
        args: { path: s.path, offset: 1, limit: s.lines },
        content: JSON.stringify({ content: lines.join('\n'), total_lines: 400, truncated: false }),
      };
    } else if (s.kind === 'edit') {
      const snippet = Array.from(
        { length: s.lines },
        (_, k) => `${String(40 + k).padStart(6)}→  const value_${i}_${k} = compute(${k});`,
      );
      call = {
        name: 'Edit',
        args: { file_path: s.path, old_string: `old ${i}`, new_string: `new ${i}` },
        content: [
          `The file ${s.path} has been updated. Here's the result of running \`cat -n\` on a snippet of the edited file:`,
          ...snippet,
        ].join('\n'),
      };
    } else
      call = {
        name: PROTECTED,
        args: { key: 'k' },
        content: terminal(Array.from({ length: 80 }, (_, k) => `secret line ${k}`).join('\n'), s.code),
      };
    calls.push(call);
    const id = `call_${i}`;
    messages.push({
      role: 'assistant',
      content: '',
      tool_calls: [{ id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args) } }],
    });
    messages.push({ role: 'tool', tool_call_id: id, name: call.name, content: call.content });
  });
  messages.push({ role: 'assistant', content: 'done' });
  return messages;
}

/**
 * Every strategy of the registry off but `only` (the single-output ones too, so every rewrite a
 * view makes is the list-wide strategy's; layer 1 is off in the test config).
 */
function alone(only: string, knobs: Knobs): HmcConfig {
  return config((c) => {
    for (const s of STRATEGIES) if (s.kind !== 'summary') sectionOf(c, s.config).enabled = s.config === only;
    c.compress.protected_tools = [...c.compress.protected_tools, PROTECTED];
    c.cache.first_break_after = knobs.firstAfter;
    c.cache.max_breaks_per_100_calls = knobs.perHundred;
    c.cache.min_batch_tokens = knobs.minTokens;
    c.strategies.purge_errors.turns = 1;
    c.strategies.clearing.keep = knobs.keep;
    c.strategies.clearing.trigger_percent = knobs.trigger;
    c.strategies.clearing.target_percent = knobs.trigger / 4;
    c.strategies.edit_echo.keep_calls = knobs.keep;
  });
}

interface Knobs {
  trigger: number;
  firstAfter: number;
  perHundred: number;
  minTokens: number;
  keep: number;
}
const knobs: fc.Arbitrary<Knobs> = fc.record({
  trigger: fc.double({ min: 0.002, max: 0.1, noNaN: true }),
  firstAfter: fc.integer({ min: 0, max: 20 }),
  perHundred: fc.constantFrom(1, 5, 50),
  minTokens: fc.constantFrom(0, 2000),
  keep: fc.integer({ min: 0, max: 4 }),
});
/** A loop that gives every strategy something to do, with passes at once. */
const BUSY: Step[] = [0, 1, 2, 3].flatMap((n) => [
  { kind: 'terminal' as const, command: 'make', lines: 150, code: n % 2 },
  { kind: 'repeat' as const, back: 1 },
  { kind: 'read' as const, path: PATHS[n % PATHS.length] as string, lines: 120, version: n % 3 },
  { kind: 'edit' as const, path: PATHS[n % PATHS.length] as string, lines: 50 },
  { kind: 'again' as const, back: 4 },
  { kind: 'vault' as const, code: 1 },
  { kind: 'user' as const },
]);
/** Large enough that no loop comes near overflowing it (then the budget is never bypassed). */
const WINDOW = 400_000;

describe('the list-wide registry', () => {
  it('gives each strategy its own kinds and a switched config section, and derives the placeholder kinds from them', () => {
    const kinds = LIST_WIDE_STRATEGIES.flatMap((s) => [...s.kinds]);
    expect(new Set(kinds).size).toBe(kinds.length);
    expect([...PLACEHOLDER_KINDS].sort()).toEqual(['sweep', ...kinds].sort());
    const keys = CONFIG_KEYS.map((k) => k.path);
    for (const s of LIST_WIDE_STRATEGIES) expect(keys, s.name).toContain(`${s.config}.enabled`);
  });
});

for (const strategy of LIST_WIDE_STRATEGIES) {
  describe(`list-wide strategy ${strategy.name} keeps the contract`, () => {
    it('restores exactly, pays its way, never grows, leaves the current step and protected tools alone', () => {
      let placeholders = 0;
      fc.assert(
        fc.property(fc.array(step, { minLength: 4, maxLength: 40 }), knobs, fc.nat(), (steps, k, seed) => {
          const c = alone(strategy.config, k);
          const engine = new Engine({
            config: () => c,
            stateDir: null,
            sink: NULL_SINK,
            recorder: null,
            log: () => {},
            autoSettle: false,
          });
          const views: { edits: ModelCallEdit[]; messages: readonly Message[] }[] = [];
          const original = engine.preModelCall.bind(engine);
          engine.preModelCall = (p) => {
            const r = original(p);
            views.push({ edits: r.edits, messages: p.messages?.slice() ?? [] });
            return r;
          };
          const messages = conversation(steps, seed);
          const report = replaySession(messages, { engine, config: c, contextLength: WINDOW, sessionId: 'L' });
          expect(report.restore_exact).toBe(true);
          expect(report.invariant_violations).toEqual([]);
          expect(report.cache_breaks).toBeLessThanOrEqual(breakBudget(report.model_calls, k.perHundred, k.firstAfter));
          for (const { edits, messages: sent } of views) {
            const current = currentStep(sent);
            for (const edit of edits) {
              if (edit.content === undefined) continue;
              const m = sent[edit.index] as Message;
              const raw = m.content as string;
              const name = String(m.name);
              expect(m.role).toBe('tool');
              expect([PROTECTED, 'write_file', 'patch'], `${name} rewritten`).not.toContain(name);
              if (current.has(String(m.tool_call_id)))
                expect(pointsAtShownCopy(edit, sent, edits), `current step's ${String(m.tool_call_id)} rewritten`).toBe(
                  true,
                );
              if (edit.content !== raw)
                expect(isShorter(edit.content, raw), 'a view longer than its output').toBe(true);
              for (const id of edit.content.matchAll(RECALL_ALL))
                expect(engine.recall.get('L', id[1] as string)?.content).toBe(raw);
              placeholders++;
            }
          }
        }),
        {
          numRuns: 20,
          examples: [[BUSY, { trigger: 0.002, firstAfter: 0, perHundred: 50, minTokens: 0, keep: 0 }, 7]],
        },
      );
      // The runs did exercise it.
      expect(placeholders, `${strategy.name} made no placeholder`).toBeGreaterThan(0);
    });
  });
}

/**
 * The ids of the calls of the step the model is in: the latest assistant message that made any,
 * unless a user message came after it (the model then reads the user first).
 */
function currentStep(messages: readonly Message[]): Set<string> {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === 'user') return new Set();
    const calls = messages[i]?.role === 'assistant' ? messages[i]?.tool_calls : undefined;
    if (Array.isArray(calls) && calls.length > 0) return new Set(calls.map((c) => String(c.id)));
  }
  return new Set();
}

/** The placeholder names the call of an earlier result with the same output, sent whole in this view. */
function pointsAtShownCopy(edit: ModelCallEdit, sent: readonly Message[], edits: readonly ModelCallEdit[]): boolean {
  const raw = sent[edit.index]?.content;
  const edited = new Set(edits.filter((e) => e.content !== undefined).map((e) => e.index));
  return sent.some(
    (m, i) =>
      i < edit.index &&
      m.role === 'tool' &&
      m.content === raw &&
      !edited.has(i) &&
      (edit.content ?? '').includes(`call ${String(m.tool_call_id)}`),
  );
}
