import { describe, expect, it } from 'vitest';
import type { FileOp } from '../../../src/strategies/shared/file-ops.js';
import { findStaleReads, type FileEvent } from '../../../src/strategies/list-wide/stale-reads.js';
import { staleReadPlaceholder } from '../../../src/strategies/list-wide/placeholders.js';

function read(id: string, path: string, first: number, last: number, extra: Partial<FileEvent> = {}): FileEvent {
  const op: FileOp = { op: 'read', path, span: { first, last } };
  return { id, callId: id, tool: 'read_file', op, paths: [path], failed: false, showsLines: true, ...extra };
}
function change(id: string, kind: 'write' | 'patch', path: string, failed = false): FileEvent {
  return {
    id,
    callId: id,
    tool: kind === 'write' ? 'write_file' : 'patch',
    op: { op: kind, paths: [path] },
    paths: [path],
    failed,
    showsLines: false,
  };
}

describe('stale reads', () => {
  it('a read covered by a later read of the same file is stale; the later one is not', () => {
    const stale = findStaleReads([read('a', 'x.py', 1, 100), read('b', 'x.py', 1, 200)]);
    expect([...stale.keys()]).toEqual(['a']);
    expect(stale.get('a')).toMatchObject({ by: 'read', byCall: 'b', span: { first: 1, last: 100 } });
  });

  it('a later read of other lines leaves the earlier one alone', () => {
    expect(findStaleReads([read('a', 'x.py', 1, 100), read('b', 'x.py', 101, 200)]).size).toBe(0);
    expect(findStaleReads([read('a', 'x.py', 1, 100), read('b', 'x.py', 50, 200)]).size).toBe(0);
  });

  it('a write or a patch of the file makes every earlier read of it stale', () => {
    const stale = findStaleReads([
      read('a', 'x.py', 1, 50),
      read('b', 'y.py', 1, 50),
      change('c', 'patch', 'x.py'),
      read('d', 'x.py', 1, 10),
      change('e', 'write', 'x.py'),
    ]);
    expect(stale.get('a')).toMatchObject({ by: 'patch', byCall: 'c' });
    expect(stale.get('d')).toMatchObject({ by: 'write', byCall: 'e' });
    expect(stale.has('b')).toBe(false);
  });

  it('a failed write, a failed read or a read that shows no lines (a host stub) supersedes nothing', () => {
    expect(findStaleReads([read('a', 'x.py', 1, 50), change('b', 'patch', 'x.py', true)]).size).toBe(0);
    expect(findStaleReads([read('a', 'x.py', 1, 50), read('b', 'x.py', 1, 50, { showsLines: false })]).size).toBe(0);
    expect(findStaleReads([read('a', 'x.py', 1, 50), read('b', 'x.py', 1, 50, { failed: true })]).size).toBe(0);
    expect(findStaleReads([read('a', 'x.py', 1, 50, { failed: true }), read('b', 'x.py', 1, 50)]).size).toBe(0);
  });

  it('matches an absolute path with the project-relative one', () => {
    expect(findStaleReads([read('a', '/home/u/proj/src/x.py', 1, 9), change('b', 'patch', 'src/x.py')]).has('a')).toBe(
      true,
    );
  });

  it('its marker names the path, the lines and where the newer content is', () => {
    expect(
      staleReadPlaceholder({
        path: 'src/x.py',
        span: { first: 1, last: 120 },
        tool: 'read_file',
        by: 'read',
        byCall: 'call_7',
      }),
    ).toBe('[Earlier read of src/x.py (lines 1-120): superseded by the later read in call call_7]');
    expect(
      staleReadPlaceholder({
        path: 'src/x.py',
        span: { first: 1, last: Infinity },
        tool: 'Read',
        by: 'patch',
        byCall: 'toolu_1',
      }),
    ).toBe(
      '[Earlier read of src/x.py (the whole file): out of date, the file was patched later in call toolu_1; read it again with Read for its current text]',
    );
  });
});
