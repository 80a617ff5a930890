/**
 * Properties of edit echoes on random Claude Code tool loops (issue 25): reads, edits and writes
 * of a few files (some edits failed, by the host's flag or their own words; some snippets with
 * error words of the file's own), shell runs. Whatever the budget: restore stays exact and every
 * view passes the invariant checker; a view only ever changes tool results' content (every call's
 * id, name and place kept); every recall id a marker prints gives back the exact output, and an
 * echo marker stands for exactly the snippet lines it replaced; a failed edit and the current
 * step are never echoed; the same loop gives the same views on two runs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { replaySession } from '../../src/app/replay.js';
import type { Message } from '../../src/core/message.js';
import { Engine } from '../../src/engine/engine.js';
import { NULL_SINK } from '../../src/events/types.js';
import { echoedSnippet } from '../../src/strategies/list-wide/edit-echo.js';
import { config, recordViews } from '../helpers/conversation.js';

const PATHS = ['/repo/src/app.ts', '/repo/src/util.ts', '/repo/README.md'];

const step = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('edit' as const),
      path: fc.constantFrom(...PATHS),
      from: fc.integer({ min: 1, max: 300 }),
      lines: fc.integer({ min: 0, max: 80 }),
      failed: fc.constantFrom('no', 'no', 'no', 'host', 'words'),
      errorWords: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('write' as const),
      path: fc.constantFrom(...PATHS),
      lines: fc.integer({ min: 0, max: 60 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('read' as const),
      path: fc.constantFrom(...PATHS),
      lines: fc.integer({ min: 1, max: 120 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('bash' as const), lines: fc.integer({ min: 1, max: 80 }) }) },
);
type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

const numbered = (from: number, n: number, tag: string, errorWords = false): string[] =>
  Array.from(
    { length: n },
    (_, i) =>
      `${String(from + i).padStart(6)}→  ${errorWords && i === 1 ? "throw new Error('failed to parse')" : `const ${tag}_${i} = ${i};`}`,
  );

/** One user turn of Claude Code calls built from random steps; failed edits marked. */
function loop(steps: readonly Step[]): { messages: Message[]; failed: Set<string> } {
  const messages: Message[] = [
    { role: 'system', content: 'You are Claude Code.' },
    { role: 'user', content: 'fix it' },
  ];
  const failed = new Set<string>();
  steps.forEach((s, i) => {
    const id = `toolu_${i}`;
    let name: string;
    let args: Record<string, unknown>;
    let content: string;
    let isError = false;
    if (s.kind === 'edit') {
      name = 'Edit';
      args = { file_path: s.path, old_string: `old ${i}`, new_string: `new ${i}` };
      const echo = [
        `The file ${s.path} has been updated. Here's the result of running \`cat -n\` on a snippet of the edited file:`,
        ...numbered(s.from, s.lines, `e${i}`, s.errorWords),
      ].join('\n');
      content =
        s.failed === 'words'
          ? `<tool_use_error>Error: String to replace not found in file.</tool_use_error>\n${echo}`
          : echo;
      isError = s.failed === 'host';
      if (s.failed !== 'no') failed.add(id);
    } else if (s.kind === 'write') {
      name = 'Write';
      args = { file_path: s.path, content: `body ${i}` };
      content =
        s.lines < 3
          ? `File created successfully at: ${s.path}`
          : [
              `The file ${s.path} has been updated. Here's the result of running \`cat -n\` on a snippet of the edited file:`,
              ...numbered(1, s.lines, `w${i}`),
            ].join('\n');
    } else if (s.kind === 'read') {
      name = 'Read';
      args = { file_path: s.path };
      content = numbered(1, s.lines, `r${i}`).join('\n');
    } else {
      name = 'Bash';
      args = { command: `npm test -- ${i}` };
      content = Array.from({ length: s.lines }, (_, k) => `step ${i}.${k} ok`).join('\n');
    }
    messages.push({
      role: 'assistant',
      content: '',
      tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
    });
    messages.push({ role: 'tool', tool_call_id: id, name, content, ...(isError ? { is_error: true } : {}) });
  });
  messages.push({ role: 'assistant', content: 'done' });
  return { messages, failed };
}

const RECALL = /\(recall id=(r[0-9a-f]{10})\)/;
const ECHO = /^\[(?:Snippet of the edited file \()?lines (\d+)-(\d+)\)? left out/;
const knobs = fc.record({
  firstAfter: fc.integer({ min: 0, max: 20 }),
  perHundred: fc.constantFrom(0, 2, 50, 100),
  keep: fc.integer({ min: 0, max: 6 }),
  clearing: fc.boolean(),
  minimal: fc.boolean(),
});
/** A loop that always echoes: big edits of one file, then small steps. */
const EXERCISED: Step[] = Array.from({ length: 8 }, (_, i) => ({
  kind: 'edit' as const,
  path: PATHS[i % 2] as string,
  from: 10,
  lines: 80,
  failed: 'no' as const,
  errorWords: i === 3,
}));

function replay(steps: readonly Step[], k: typeof knobs extends fc.Arbitrary<infer T> ? T : never) {
  const c = config((x) => {
    x.cache.first_break_after = k.firstAfter;
    x.cache.max_breaks_per_100_calls = k.perHundred;
    x.cache.min_batch_tokens = 0;
    x.strategies.edit_echo.keep_calls = k.keep;
    x.strategies.clearing.enabled = k.clearing;
    x.prune_notification = k.minimal ? 'minimal' : 'detailed';
  });
  const engine = new Engine({
    config: () => c,
    stateDir: null,
    sink: NULL_SINK,
    recorder: null,
    log: () => {},
    autoSettle: false,
  });
  const views = recordViews(engine);
  const { messages, failed } = loop(steps);
  const report = replaySession(messages, { engine, config: c, contextLength: 400_000, sessionId: 'P' });
  return { engine, views, messages, failed, report };
}

describe('edit echoes on random Claude Code loops', () => {
  it('restore exactly, keep ids and order, recall exactly, name exactly the lines they leave out, never a failed edit, the same on two runs', () => {
    let echoes = 0;
    fc.assert(
      fc.property(fc.array(step, { minLength: 2, maxLength: 30 }), knobs, (steps, k) => {
        const { engine, views, messages, failed, report } = replay(steps, k);
        expect(report.invariant_violations).toEqual([]);
        expect(report.restore_exact).toBe(true);
        for (const edits of views) {
          for (const edit of edits) {
            const raw = messages[edit.index] as Message;
            // Only tool results' content changes here (no call's id, name or place).
            expect(edit.tool_calls).toBeUndefined();
            if (edit.content === undefined || raw.role !== 'tool') continue;
            const lines = edit.content.split('\n');
            const at = lines.findIndex((l) => ECHO.test(l));
            const id = RECALL.exec(edit.content)?.[1];
            if (id !== undefined) expect(engine.recall.get('P', id)?.content).toBe(raw.content);
            if (at < 0) continue;
            echoes++;
            expect(failed.has(raw.tool_call_id ?? '')).toBe(false);
            const rawLines = (raw.content as string).split('\n');
            const snippet = echoedSnippet(rawLines);
            const m = ECHO.exec(lines[at] as string) as RegExpExecArray;
            expect([Number(m[1]), Number(m[2])]).toEqual([snippet?.first, snippet?.last]);
            lines.splice(at, 1, ...rawLines.slice(snippet?.start, snippet?.end));
            expect(lines.join('\n')).toBe(raw.content);
          }
        }
        // The current step (the last call) is never echoed in the last view.
        const lastCall = messages.length - 2;
        expect(
          (views[views.length - 1] ?? []).some(
            (e) => e.index === lastCall && e.content !== undefined && ECHO.test(e.content.split('\n')[1] ?? ''),
          ),
        ).toBe(false);
        // Deterministic: a second run gives the same views.
        expect(replay(steps, k).views).toEqual(views);
      }),
      {
        numRuns: 60,
        examples: [[EXERCISED, { firstAfter: 0, perHundred: 100, keep: 0, clearing: false, minimal: false }]],
      },
    );
    expect(echoes).toBeGreaterThan(0);
  });
});
