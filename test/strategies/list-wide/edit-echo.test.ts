/**
 * Edit echoes' words (issue 25): the snippet of the file an edit's output echoes, found in the
 * agents' shapes (Claude Code's `   N→`, `cat -n`'s tab, SWE-agent's `N:` window), replaced by one
 * marker line; every other byte of the output as the tool wrote it. The contract every strategy
 * keeps, as a property: the marker names exactly the lines it stands for (put them back and the
 * output is whole again), the words never grow, the same input gives the same bytes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { echoedSnippet, echoMarker, editEchoWords } from '../../../src/strategies/list-wide/edit-echo.js';

const RECALL = 'r0123456789';
const HEAD =
  "The file /repo/src/app.ts has been updated. Here's the result of running `cat -n` on a snippet of the edited file:";

function claudeEdit(first: number, lines: readonly string[]): string {
  return [HEAD, ...lines.map((l, i) => `${String(first + i).padStart(6)}→${l}`)].join('\n');
}

describe('edit echo words', () => {
  it("replaces Claude Code's snippet by one marker, keeping the success line and path", () => {
    const raw = claudeEdit(27, ['const a = 1;', 'const b = 2;', '', 'export { a, b };']);
    const words = editEchoWords(raw, { tool: 'Edit', args: { file_path: '/repo/src/app.ts' } }, RECALL);
    expect(words).toBe(
      `${HEAD}\n[Snippet of the edited file (lines 27-30) left out to save context; read the file for its current text (recall id=${RECALL})]`,
    );
    expect(editEchoWords(raw, { tool: 'Edit', args: {} }, RECALL, 'minimal')).toBe(
      `${HEAD}\n[lines 27-30 left out (recall id=${RECALL})]`,
    );
  });

  it("keeps SWE-agent's words before and after its edit window", () => {
    const raw = [
      'Replaced 1 occurrences. Please review the changes and make sure they are correct',
      '[File: /repo/t.py (5 lines total)]',
      '1:import os',
      '2:',
      '3:def f():',
      '4:    return os.getcwd()',
      '5:',
      '(Open file: /repo/t.py)',
      'bash-$',
    ].join('\n');
    const words = editEchoWords(raw, { tool: 'edit', args: { command: 'edit 3:4' } }, RECALL) as string;
    expect(words.split('\n')).toEqual([
      'Replaced 1 occurrences. Please review the changes and make sure they are correct',
      '[File: /repo/t.py (5 lines total)]',
      `[Snippet of the edited file (lines 1-5) left out to save context; read the file for its current text (recall id=${RECALL})]`,
      '(Open file: /repo/t.py)',
      'bash-$',
    ]);
  });

  it('finds no snippet in an output that echoes none (or fewer than 3 numbered lines)', () => {
    for (const raw of [
      'File created successfully at: /repo/x.ts',
      'Success. Updated the following files:\nM src/a.ts',
      claudeEdit(4, ['x', 'y']),
    ]) {
      expect(editEchoWords(raw, { tool: 'Edit', args: {} }, RECALL)).toBeNull();
    }
  });

  it('keeps CRLF line endings around the marker', () => {
    const raw = ['Edited.', '1\ta', '2\tb', '3\tc', 'done'].join('\r\n');
    expect(editEchoWords(raw, { tool: 'str_replace', args: {} }, RECALL)).toBe(
      `Edited.\r\n${echoMarker({ start: 1, end: 4, first: 1, last: 3 }, RECALL)}\r\ndone`,
    );
  });
});

/** Puts the lines a marker names back from the raw output. */
function rebuild(raw: string, words: string): string {
  const lines = raw.split('\n');
  const snippet = echoedSnippet(lines);
  if (snippet === null) throw new Error('no snippet');
  const out: string[] = [];
  for (const line of words.split('\n')) {
    const m = /^\[(?:Snippet of the edited file \()?lines (\d+)-(\d+)\)? left out/.exec(line);
    if (!m) {
      out.push(line);
      continue;
    }
    const first = Number(m[1]);
    const last = Number(m[2]);
    // The marker's file lines are the snippet's, one raw line each.
    expect(last - first).toBe(snippet.end - snippet.start - 1);
    out.push(
      ...lines
        .slice(snippet.start, snippet.end)
        .map((l, i) =>
          i === snippet.end - snippet.start - 1 && line.endsWith('\r') && !l.endsWith('\r') ? `${l}\r` : l,
        ),
    );
  }
  return out.join('\n');
}

describe('edit echo contract (property)', () => {
  const text = fc.string({ maxLength: 30 }).map((s) => s.replace(/[\r\n]/g, ' '));
  const output = fc.record({
    head: fc.array(text, { maxLength: 3 }),
    first: fc.integer({ min: 1, max: 5000 }),
    lines: fc.array(text, { minLength: 0, maxLength: 40 }),
    tail: fc.array(text, { maxLength: 3 }),
    gutter: fc.constantFrom('arrow', 'tab', 'colon'),
    style: fc.constantFrom('detailed' as const, 'minimal' as const),
  });
  it('names exactly the lines it removed, never grows, and gives the same bytes every time', () => {
    fc.assert(
      fc.property(output, (o) => {
        const numbered = o.lines.map((l, i) =>
          o.gutter === 'arrow'
            ? `${String(o.first + i).padStart(6)}→${l}`
            : o.gutter === 'tab'
              ? `${String(o.first + i).padStart(6)}\t${l}`
              : `${o.first + i}:${l}`,
        );
        // Tool words never look like numbered lines of the same gutter (they would be part of the snippet).
        const words = (ls: string[]) => ls.map((l) => `> ${l}`);
        const raw = [...words(o.head), ...numbered, ...words(o.tail)].join('\n');
        const out = editEchoWords(raw, { tool: 'Edit', args: {} }, RECALL, o.style);
        if (numbered.length < 3) {
          expect(out).toBeNull();
          return;
        }
        expect(out).not.toBeNull();
        const got = out as string;
        expect(editEchoWords(raw, { tool: 'Edit', args: {} }, RECALL, o.style)).toBe(got);
        expect(rebuild(raw, got)).toBe(raw);
        // Every tool word is kept, in order.
        expect(
          got.startsWith(
            words(o.head)
              .map((l) => `${l}\n`)
              .join(''),
          ),
        ).toBe(true);
        expect(
          got.endsWith(
            words(o.tail)
              .map((l) => `\n${l}`)
              .join(''),
          ),
        ).toBe(true);
        // The marker is one line: never longer than the snippet's lines would be once there are enough of them.
        if (numbered.join('\n').length > 160) expect(got.length).toBeLessThan(raw.length);
      }),
      { numRuns: 300 },
    );
  });
});
