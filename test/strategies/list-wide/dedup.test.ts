import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  argsFingerprint,
  findDuplicates,
  normalizeForDedup,
  type DedupEntry,
} from '../../../src/strategies/list-wide/dedup.js';

const NONE = new Set<string>();

describe('argsFingerprint', () => {
  it('is the tool, "::" and the arguments as JSON with keys sorted at every depth', () => {
    expect(argsFingerprint('read_file', { path: 'a.py', b: { z: 1, a: 'é' }, l: [{ y: 2, x: 1 }] })).toBe(
      'read_file::{"b":{"a":"é","z":1},"l":[{"x":1,"y":2}],"path":"a.py"}',
    );
  });

  it('gives the same string whatever the key order', () => {
    expect(argsFingerprint('t', { a: 1, b: { c: 2, d: 3 } })).toBe(argsFingerprint('t', { b: { d: 3, c: 2 }, a: 1 }));
  });

  it('tells different tools and different arguments apart', () => {
    expect(argsFingerprint('a', { x: 1 })).not.toBe(argsFingerprint('b', { x: 1 }));
    expect(argsFingerprint('a', { x: 1 })).not.toBe(argsFingerprint('a', { x: '1' }));
  });

  it('never throws: cycles, BigInt, undefined, functions, throwing getters and toJSON', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(argsFingerprint('t', cyclic)).toBe('t::{"a":1,"self":"[Circular]"}');
    expect(argsFingerprint('t', { n: 10n })).toBe('t::{"n":"10n"}');
    expect(argsFingerprint('t', { u: undefined, f: () => 1, k: 1 })).toBe('t::{"k":1}');
    expect(argsFingerprint('t', undefined)).toBe('t::null');
    expect(argsFingerprint('t', new Date(0))).toBe('t::"1970-01-01T00:00:00.000Z"');
    const hostile = Object.defineProperty({}, 'x', {
      enumerable: true,
      get: () => {
        throw new Error('no');
      },
    });
    expect(() => argsFingerprint('t', hostile)).not.toThrow();
  });

  it('is stable for any JSON value (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const again = JSON.parse(JSON.stringify(v)) as unknown;
        expect(argsFingerprint('t', v)).toBe(argsFingerprint('t', again));
      }),
    );
  });
});

describe('normalizeForDedup', () => {
  const cases: Array<[string, string, string]> = [
    ['ISO timestamps with an offset', 'at 2024-01-02T03:04:05.678+00:00 done', 'at <TIMESTAMP> done'],
    ['timestamps with Z', '2024-01-02 03:04:05Z', '<TIMESTAMP>'],
    ['dates', 'on 2024-01-02.', 'on <DATE>.'],
    ['clock times', 'Start at 20:48:07', 'Start at <TIME>'],
    ['UUIDs', 'id 123e4567-e89b-12d3-a456-426614174000 x', 'id <UUID> x'],
    ['hashes with a digit and a letter', 'commit 3f775ef0a1 head', 'commit <HEX> head'],
    ['0x addresses', '<object at 0x7f3a2b1c>', '<object at <HEX>>'],
    ['temp paths', 'wrote /tmp/pytest-of-u/p-12/x.txt ok', 'wrote <TMPPATH> ok'],
    ['macOS temp paths', '/var/folders/xy/abc/T/tmp1 ok', '<TMPPATH> ok'],
    ['Windows temp paths', 'C:\\Users\\u\\AppData\\Local\\Temp\\tmp1.txt ok', '<TMPPATH> ok'],
    ['durations', '5 passed in 0.42s (1.2 ms) took 1m23.4s', '5 passed in <DURATION> (<DURATION>) took <DURATION>'],
    ['pids', 'started pid=4242 and PID 17', 'started pid=<PID> and PID <PID>'],
    ['large numbers', 'served 123456 requests', 'served <NUM> requests'],
  ];
  it.each(cases)('replaces %s', (_name, input, expected) => {
    expect(normalizeForDedup(input)).toBe(expected);
  });

  const kept: Array<[string, string]> = [
    ['small numbers', 'got 42 of 1234 items'],
    ['hex-letter words', 'deadbeef defaced facade'],
    ['a temp-like folder inside a home path', '/home/u/tmp/x'],
    ['counts followed by words starting with s', '5 skipped, 3 sets'],
    ['binary junk', '\u0000\u0001\ufffd\u0007PNG'],
    ['CJK and emoji', '日本語 🎉 テスト'],
    ['empty text', ''],
    ['CR-only lines', '\r\r\n\r'],
  ];
  it.each(kept)('leaves %s alone', (_name, input) => {
    expect(normalizeForDedup(input)).toBe(input);
  });

  it('normalises CRLF text line by line and a 5 MB log without trouble', () => {
    expect(normalizeForDedup('at 12:00:01\r\nat 13:00:02\r\n')).toBe('at <TIME>\r\nat <TIME>\r\n');
    const big = Array.from(
      { length: 100_000 },
      (_, i) => `2024-01-01T00:00:${String(i % 60).padStart(2, '0')}Z worker ${i} handled /api/items ok`,
    ).join('\n');
    expect(big.length).toBeGreaterThan(5_000_000);
    expect(
      normalizeForDedup(big)
        .split('\n')
        .every((l) => l.startsWith('<TIMESTAMP> worker')),
    ).toBe(true);
  });

  it('makes two runs that differ only in volatile parts identical', () => {
    const run = (ts: string, ms: string, tmp: string): string =>
      `${ts} build ok in ${ms}s, artifacts in /tmp/${tmp}/out`;
    expect(normalizeForDedup(run('2024-05-01T10:00:00Z', '1.23', 'abc'))).toBe(
      normalizeForDedup(run('2025-06-02T11:11:11+02:00', '9.87', 'xyz')),
    );
  });
});

const entry = (id: string, tool: string, args: unknown, text: string | null = null): DedupEntry => ({
  id,
  tool,
  fingerprint: argsFingerprint(tool, args),
  text,
});
const LONG = (s: string): string => `${s} ${'x'.repeat(120)}`;

describe('findDuplicates', () => {
  it('keeps only the latest of identical calls and names the group size', () => {
    const d = findDuplicates(
      [entry('a', 'ls', { p: '.' }), entry('b', 'ls', { p: '.' }), entry('c', 'ls', { p: '.' })],
      { normalize: true, protected: NONE },
    );
    expect([...d.entries()]).toEqual([
      ['a', { keptId: 'c', groupSize: 3, by: 'args' }],
      ['b', { keptId: 'c', groupSize: 3, by: 'args' }],
    ]);
  });

  it('groups different calls with the same normalised output by content', () => {
    const d = findDuplicates(
      [
        entry('a', 'run', { n: 1 }, LONG('2024-01-01T00:00:00Z')),
        entry('b', 'run', { n: 2 }, LONG('2024-02-02T00:00:00Z')),
      ],
      { normalize: true, protected: NONE },
    );
    expect(d.get('a')).toEqual({ keptId: 'b', groupSize: 2, by: 'content' });
    expect(d.has('b')).toBe(false);
  });

  it('compares raw text when normalize is off', () => {
    const entries = [entry('a', 'run', { n: 1 }, LONG('2024-01-01')), entry('b', 'run', { n: 2 }, LONG('2024-02-02'))];
    expect(findDuplicates(entries, { normalize: false, protected: NONE }).size).toBe(0);
  });

  it('never groups protected tools, short texts, different tools or null texts by content', () => {
    const entries = [
      entry('a', 'write_file', { p: 1 }),
      entry('b', 'write_file', { p: 1 }),
      entry('c', 'x', { n: 1 }, 'short'),
      entry('d', 'x', { n: 2 }, 'short'),
      entry('e', 'x', { n: 3 }, LONG('same')),
      entry('f', 'y', { n: 3 }, LONG('same')),
      entry('g', 'z', { n: 1 }, null),
      entry('h', 'z', { n: 2 }, null),
    ];
    expect(findDuplicates(entries, { normalize: true, protected: new Set(['write_file']) }).size).toBe(0);
  });

  it('points an args group at the final survivor when its latest is a content duplicate', () => {
    const d = findDuplicates(
      [
        entry('a', 'cat', { f: 1 }, LONG('v')),
        entry('b', 'cat', { f: 1 }, LONG('v')),
        entry('c', 'cat', { f: 2 }, LONG('v')),
      ],
      { normalize: true, protected: NONE },
    );
    expect(d.get('a')).toEqual({ keptId: 'c', groupSize: 2, by: 'args' });
    expect(d.get('b')).toEqual({ keptId: 'c', groupSize: 2, by: 'content' });
    expect(d.has('c')).toBe(false);
  });

  it('never removes the latest entry of any group and always points at a kept entry (property)', () => {
    const arb = fc.array(
      fc.record({
        tool: fc.constantFrom('a', 'b'),
        arg: fc.integer({ min: 0, max: 3 }),
        body: fc.constantFrom('p', 'q', null),
      }),
      { maxLength: 30 },
    );
    fc.assert(
      fc.property(arb, (rows) => {
        const entries = rows.map((r, i) =>
          entry(`id${i}`, r.tool, { arg: r.arg }, r.body === null ? null : LONG(r.body)),
        );
        const d = findDuplicates(entries, { normalize: true, protected: NONE });
        for (const dup of d.values()) expect(d.has(dup.keptId)).toBe(false);
        if (entries.length > 0) expect(d.has(entries[entries.length - 1]!.id)).toBe(false);
        for (const [id, dup] of d) {
          const at = entries.findIndex((e) => e.id === id);
          expect(entries.findIndex((e) => e.id === dup.keptId)).toBeGreaterThan(at);
        }
      }),
    );
  });
});
