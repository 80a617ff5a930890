import { describe, expect, it } from 'vitest';
import { LineSplitter, serializeRecord } from '../../src/protocol/jsonl.js';

function split(chunks: (string | Buffer)[], max?: number): { lines: string[]; oversize: number[] } {
  const lines: string[] = [];
  const oversize: number[] = [];
  const s = new LineSplitter({
    onLine: (l) => lines.push(l),
    onOversize: (b) => oversize.push(b),
    ...(max ? { maxLineBytes: max } : {}),
  });
  for (const c of chunks) s.push(c);
  s.end();
  return { lines, oversize };
}

describe('LineSplitter', () => {
  it('splits on LF only and keeps U+2028 / U+2029 inside a record', () => {
    const record = { id: 1, text: 'a\u2028b\u2029c' };
    const wire = serializeRecord(record);
    expect(wire.includes('\u2028')).toBe(true);
    const { lines } = split([wire + wire]);
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0] ?? '')).toEqual(record);
  });

  it('drops the CR of a CRLF line ending', () => {
    const { lines } = split(['{"id":1}\r\n{"id":2}\r\n']);
    expect(lines).toEqual(['{"id":1}', '{"id":2}']);
  });

  it('keeps a lone CR inside a line', () => {
    const { lines } = split(['{"a":"x\ry"}\n'.replace('\\r', '\r')]);
    expect(lines).toEqual(['{"a":"x\ry"}']);
  });

  it('delivers a last line without a final newline at end of input', () => {
    const { lines } = split(['{"id":1}\n{"id":2}']);
    expect(lines).toEqual(['{"id":1}', '{"id":2}']);
  });

  it('skips blank lines', () => {
    expect(split(['\n\n  \n{"id":1}\n']).lines).toEqual(['{"id":1}']);
  });

  it('reassembles a multi-byte character split across chunks', () => {
    const bytes = Buffer.from('{"t":"é😀"}\n', 'utf8');
    const chunks = [...bytes].map((b) => Buffer.from([b]));
    expect(split(chunks).lines).toEqual(['{"t":"é😀"}']);
  });

  it('handles a huge line arriving in many chunks', () => {
    const big = 'x'.repeat(20 * 1024 * 1024);
    const wire = serializeRecord({ id: 1, big });
    const chunks: string[] = [];
    for (let i = 0; i < wire.length; i += 65536) chunks.push(wire.slice(i, i + 65536));
    const { lines } = split(chunks);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '').big.length).toBe(big.length);
  });

  it('skips a line over the limit, reports it, and goes on with the next', () => {
    const { lines, oversize } = split(['{"id":1,"x":"' + 'y'.repeat(100) + '"}\n{"id":2}\n'], 50);
    expect(lines).toEqual(['{"id":2}']);
    expect(oversize).toHaveLength(1);
    expect(oversize[0]).toBeGreaterThan(50);
  });
});

describe('serializeRecord', () => {
  it('writes exactly one LF, escaping newlines inside strings', () => {
    const wire = serializeRecord({ text: 'a\nb\r\nc' });
    expect(wire.indexOf('\n')).toBe(wire.length - 1);
  });
});
