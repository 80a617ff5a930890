/**
 * The page's CSV builder (web/src/csv.ts): RFC 4180 quoting, formula injection defused, UTF-8
 * with a byte order mark, safe file names. A small RFC 4180 reader here checks that every table
 * reads back as written (issue 17, finding 7: CSV export from the page).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BOM, csvBlob, csvField, csvFileName, isoTime, pct, toCsv, type Cell } from '../../web/src/csv.js';

/** An RFC 4180 reader: records split on CRLF outside quotes, `""` inside quotes is one `"`. */
function readCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
      } else if (c === '"') {
        quoted = false;
        i++;
      } else {
        field += c;
        i++;
      }
    } else if (c === '"' && field === '') {
      quoted = true;
      i++;
    } else if (c === ',') {
      record.push(field);
      field = '';
      i++;
    } else if (c === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i += 2;
    } else {
      if (c === '"' || c === '\r' || c === '\n') throw new Error(`bare ${JSON.stringify(c)} at ${i}`);
      field += c;
      i++;
    }
  }
  if (quoted) throw new Error('unterminated quote');
  if (field !== '' || record.length > 0) throw new Error('last record has no CRLF');
  return records;
}

/** What a cell reads back as: text with the formula guard applied, numbers as written. */
function expected(v: Cell): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  if (typeof v === 'boolean') return String(v);
  return /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
}

describe('csvField', () => {
  it.each([
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['crlf\r\nline', '"crlf\r\nline"'],
    ['', ''],
    ['naïve 日本語 🚀', 'naïve 日本語 🚀'],
  ])('quotes %j as %j', (input, out) => {
    expect(csvField(input)).toBe(out);
  });

  it.each([
    ['=HYPERLINK("http://x","y")', '"\'=HYPERLINK(""http://x"",""y"")"'],
    ['+1+1', "'+1+1"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tcmd', "'\tcmd"],
    ['\r=1', '"\'\r=1"'],
  ])('defuses the formula %j as %j', (input, out) => {
    expect(csvField(input)).toBe(out);
  });

  it('writes numbers as numbers, negative ones unprefixed, and blanks what is not a finite number', () => {
    expect(csvField(42)).toBe('42');
    expect(csvField(-5)).toBe('-5');
    expect(csvField(28.35)).toBe('28.35');
    expect(csvField(Number.NaN)).toBe('');
    expect(csvField(Number.POSITIVE_INFINITY)).toBe('');
    expect(csvField(null)).toBe('');
    expect(csvField(undefined)).toBe('');
    expect(csvField(true)).toBe('true');
  });
});

describe('toCsv', () => {
  it('ends every record with CRLF, the header first', () => {
    expect(
      toCsv({
        header: ['tool', 'saved_tokens'],
        rows: [
          ['terminal', 6900],
          ['read,file', 2900],
        ],
      }),
    ).toBe('tool,saved_tokens\r\nterminal,6900\r\n"read,file",2900\r\n');
  });

  // A record of no fields is not representable in CSV (it reads back as one empty field); every
  // table the page writes has at least one column.
  it('reads back exactly as written, whatever the cells hold', () => {
    const cell = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.constantFrom('=1+1', '-x', '@a', '+', '"', ',', '\r\n', '\n'),
      fc.double(),
      fc.integer(),
      fc.constant(null),
      fc.boolean(),
    );
    fc.assert(
      fc.property(
        fc.array(fc.string(), { minLength: 1, maxLength: 5 }),
        fc.array(fc.array(cell, { minLength: 1, maxLength: 6 }), { maxLength: 8 }),
        (header, rows) => {
          const back = readCsv(toCsv({ header, rows }));
          expect(back).toEqual([header.map(expected), ...rows.map((r) => r.map(expected))]);
        },
      ),
    );
  });

  it('never lets a text cell start with a formula character', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const field = readCsv(toCsv({ header: [s], rows: [] }))[0]?.[0];
        expect(field).toBeDefined();
        expect(field).not.toMatch(/^[=+\-@\t\r]/);
      }),
    );
  });
});

describe('csvBlob', () => {
  it('is UTF-8 with a byte order mark, typed text/csv', async () => {
    const blob = csvBlob({ header: ['project_path'], rows: [['/home/ada/café']] });
    expect(blob.type).toBe('text/csv;charset=utf-8');
    const bytes = new Uint8Array(await blob.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes)).toBe(
      `${BOM}project_path\r\n/home/ada/café\r\n`,
    );
  });
});

describe('csvFileName', () => {
  const day = new Date(2026, 10, 26, 12);
  it('names the file after what it holds and the day', () => {
    expect(csvFileName(['sessions'], day)).toBe('hmc-sessions-2026-11-26.csv');
    expect(csvFileName(['per-day', '…/src/hmc'], day)).toBe('hmc-per-day-src-hmc-2026-11-26.csv');
  });
  it('keeps no path separator, dot-dot or control character from an id', () => {
    const name = csvFileName(['session-../../etc/passwd\u0000\\x', 'a'.repeat(200)], day);
    expect(name).toMatch(/^hmc-[A-Za-z0-9.-]+-2026-11-26\.csv$/);
    expect(name).not.toContain('/');
    expect(name).not.toContain('..');
    expect(name.length).toBeLessThan(140);
  });
});

describe('isoTime and pct', () => {
  it('writes times in UTC, to the second, and blanks unknown ones', () => {
    expect(isoTime(Date.UTC(2026, 10, 25, 7, 56, 3, 456))).toBe('2026-11-25T07:56:03Z');
    expect(isoTime(0)).toBe('');
    expect(isoTime(null)).toBe('');
  });
  it('turns a share into a percentage with at most two decimals', () => {
    expect(pct(0.28345)).toBe(28.35);
    expect(pct(1)).toBe(100);
    expect(pct(Number.NaN)).toBeNaN();
  });
});
