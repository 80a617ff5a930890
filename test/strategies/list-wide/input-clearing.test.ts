/**
 * The input-clearing rule (issue 15) and the short arguments it sends: superseded first, then old
 * ones beyond the last calls kept; never a locked call (failed, unanswered, the current step, a
 * protected tool); a short form a model would not copy into a file.
 */
import { describe, expect, it } from 'vitest';
import { fileInputOf } from '../../../src/hosts/tool-inputs.js';
import {
  planInputClearing,
  type FileTouch,
  type InputCandidate,
} from '../../../src/strategies/list-wide/input-clearing.js';
import { shortArguments } from '../../../src/strategies/list-wide/input-placeholder.js';

function candidate(id: string, ordinal: number, paths: string[] = ['src/a.py'], locked = false): InputCandidate {
  return { id, ordinal, paths, locked };
}

function touch(
  callId: string,
  ordinal: number,
  op: FileTouch['op'],
  paths: string[] = ['src/a.py'],
  extra: Partial<FileTouch> = {},
): FileTouch {
  return { callId, ordinal, op, paths, failed: false, showsLines: true, ...extra };
}

describe('planInputClearing', () => {
  it('clears a write superseded by a later write, edit or read of the same file, whatever its age', () => {
    for (const op of ['write', 'patch', 'read'] as const) {
      const plan = planInputClearing([candidate('w1', 5)], [touch('w1', 5, 'write'), touch('n', 6, op)], {
        totalCalls: 7,
        keepCalls: 100,
      });
      expect(plan.get('w1')).toEqual({ reason: 'superseded', by: 'n' });
    }
  });

  it('matches the file by path, not by name alone (an absolute path ends with the relative one)', () => {
    const touches = [touch('b', 3, 'write', ['lib/a.py']), touch('c', 4, 'write', ['/repo/src/a.py'])];
    expect(
      planInputClearing([candidate('w', 1, ['src/a.py'])], touches, { totalCalls: 5, keepCalls: 100 }).get('w'),
    ).toEqual({ reason: 'superseded', by: 'c' });
  });

  it('is not superseded by its own result, an earlier call, a failed call, or a read that showed no lines', () => {
    const touches = [
      touch('x', 1, 'write'),
      touch('w', 2, 'write'),
      touch('f', 3, 'write', undefined, { failed: true }),
      touch('r', 4, 'read', undefined, { showsLines: false }),
    ];
    expect(planInputClearing([candidate('w', 2)], touches, { totalCalls: 5, keepCalls: 100 }).size).toBe(0);
  });

  it('clears calls older than the last keepCalls, and keeps the recent ones whole', () => {
    const cands = [0, 1, 2, 3, 4, 5].map((i) => candidate(`c${i}`, i, [`f${i}.py`]));
    const plan = planInputClearing(cands, [], { totalCalls: 6, keepCalls: 2 });
    expect([...plan.keys()]).toEqual(['c0', 'c1', 'c2', 'c3']);
    expect(plan.get('c0')).toEqual({ reason: 'old' });
  });

  it('names superseded when both rules apply', () => {
    const plan = planInputClearing([candidate('w', 0)], [touch('n', 1, 'patch')], { totalCalls: 10, keepCalls: 2 });
    expect(plan.get('w')).toEqual({ reason: 'superseded', by: 'n' });
  });

  it('never clears a locked call (failed, unanswered, the current step, protected)', () => {
    const plan = planInputClearing([candidate('w', 0, ['src/a.py'], true)], [touch('n', 1, 'write')], {
      totalCalls: 50,
      keepCalls: 0,
    });
    expect(plan.size).toBe(0);
  });

  it('clears a call without a known path by age only', () => {
    const cands = [candidate('e', 0, [])];
    expect(planInputClearing(cands, [touch('n', 1, 'write')], { totalCalls: 5, keepCalls: 10 }).size).toBe(0);
    expect(planInputClearing(cands, [], { totalCalls: 5, keepCalls: 2 }).get('e')).toEqual({ reason: 'old' });
  });

  it('handles several calls of one message (they share a step but each has its own place)', () => {
    const cands = [candidate('a', 3, ['x.py']), candidate('b', 4, ['y.py'])];
    const plan = planInputClearing(
      cands,
      [touch('a', 3, 'write', ['x.py']), touch('b', 4, 'write', ['y.py']), touch('c', 5, 'read', ['y.py'])],
      { totalCalls: 6, keepCalls: 6 },
    );
    expect([...plan]).toEqual([['b', { reason: 'superseded', by: 'c' }]]);
  });
});

describe('shortArguments', () => {
  const content = Array.from({ length: 120 }, (_, i) => `line ${i}`).join('\n');
  const args = { file_path: 'src/app.ts', content };
  const input = fileInputOf('Write', args);

  it('keeps the small arguments, leaves the bulky ones out, and says their size and how to get them back', () => {
    const text = shortArguments(args, input!, { reason: 'old' }, 'r0123456789');
    expect(JSON.parse(text!)).toEqual({
      file_path: 'src/app.ts',
      cleared: { content: `120 lines, ${content.length} characters` },
      original: 'read the file, or hmc_control action=recall id=r0123456789',
    });
  });

  it('a superseded call names the newer call and the recall only (the file holds something newer)', () => {
    const parsed = JSON.parse(
      shortArguments(args, input!, { reason: 'superseded', by: 'call_9' }, 'r0123456789')!,
    ) as Record<string, unknown>;
    expect(parsed.superseded_by).toBe('call_9');
    expect(parsed.original).toBe('hmc_control action=recall id=r0123456789');
  });

  it('never holds the bulky key, so a copied call fails the tool instead of writing a marker', () => {
    const parsed = JSON.parse(shortArguments(args, input!, { reason: 'old' }, 'r0123456789')!) as Record<
      string,
      unknown
    >;
    expect('content' in parsed).toBe(false);
  });

  it('gives a shell write its outline and the files it wrote', () => {
    const command = `cd /w && cat > t.py << 'EOF'\n${content}\nEOF\npython t.py`;
    const shell = { command, description: 'make a test' };
    const parsed = JSON.parse(
      shortArguments(shell, fileInputOf('Bash', shell)!, { reason: 'old' }, 'r0123456789')!,
    ) as Record<string, unknown>;
    expect(parsed).toMatchObject({
      description: 'make a test',
      outline: "cd /w && cat > t.py << 'EOF'\n…\nEOF\npython t.py",
      writes: { 't.py': `120 lines, ${content.length + 1} characters` },
    });
    expect('command' in parsed).toBe(false);
  });

  it('is the same text every time (a view once sent is sent again byte for byte)', () => {
    expect(shortArguments(args, input!, { reason: 'old' }, 'r1')).toBe(
      shortArguments({ ...args }, fileInputOf('Write', { ...args })!, { reason: 'old' }, 'r1'),
    );
  });

  it('declines arguments that already use a key it would add', () => {
    const odd = { ...args, original: 'mine' };
    expect(shortArguments(odd, fileInputOf('Write', odd)!, { reason: 'old' }, 'r1')).toBeNull();
  });

  it('says 1 line, not 1 lines', () => {
    const one = { file_path: 'a', content: 'x'.repeat(100) };
    expect(shortArguments(one, fileInputOf('Write', one)!, { reason: 'old' }, 'r1')).toContain(
      '"1 line, 100 characters"',
    );
  });
});
