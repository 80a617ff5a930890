/**
 * The inspector's view of a tool output (src/server/inspect-view.ts): the text inside Hermes' JSON
 * envelopes, the other fields apart, anything else whole (issue 9 item 7).
 */
import { describe, expect, it } from 'vitest';
import { outputView } from '../../src/server/inspect-view.js';
import { readFile, terminal } from '../helpers/conversation.js';

describe('outputView', () => {
  it('reads a terminal envelope: the log line by line, exit_code and error apart', () => {
    expect(outputView(terminal('line 1\nline 2', 2), false)).toEqual({
      field: 'output',
      text: 'line 1\nline 2',
      cut: false,
      fields: [
        { name: 'exit_code', value: '2' },
        { name: 'error', value: 'null' },
      ],
    });
  });

  it('reads a read_file envelope with its N| gutters kept', () => {
    const view = outputView(readFile(['import os', '', 'x = "a\\tb"']), false);
    expect(view.field).toBe('content');
    expect(view.text.split('\n')).toEqual(['1|import os', '2|', '3|x = "a\\tb"']);
    expect(view.fields.map((f) => f.name)).toEqual(['total_lines', 'file_size', 'truncated']);
  });

  it("reads search_files matches one per line, and HMC's omitted marker as its text", () => {
    const result = JSON.stringify({
      total_count: 3,
      matches: [{ path: 'a.ts', line: 3, content: 'foo()' }, { omitted: '[... 1 more match]' }],
      files: ['a.ts'],
    });
    expect(outputView(result, false)).toMatchObject({
      field: 'matches',
      text: 'a.ts:3: foo()\n[... 1 more match]',
      fields: [
        { name: 'total_count', value: '3' },
        { name: 'files', value: '["a.ts"]' },
      ],
    });
  });

  it('shows plain text and JSON without a text field whole', () => {
    expect(outputView('plain\ntext', false)).toEqual({ field: null, text: 'plain\ntext', fields: [], cut: false });
    expect(outputView('{"status": "ok", "count": 3}', false)).toMatchObject({
      field: null,
      text: '{"status": "ok", "count": 3}',
    });
    expect(outputView('{"output": "not closed', false)).toMatchObject({ field: null });
  });

  it('shortens a long field value', () => {
    const view = outputView(
      JSON.stringify({ output: 'x', files: Array.from({ length: 200 }, (_, i) => `file-${i}.ts`) }),
      false,
    );
    expect(view.fields[0]?.value.length).toBe(301);
    expect(view.fields[0]?.value.endsWith('…')).toBe(true);
  });

  it('reads the leading text of an envelope cut by the cap, dropping an escape torn in two', () => {
    const full = terminal('first line\nsecond "quoted" line\nthird\tline');
    for (const cut of [full.indexOf('\\nthird') + 1, full.indexOf('\\nthird') + 2, full.indexOf('\\tline') + 1]) {
      const view = outputView(full.slice(0, cut), true);
      expect(view.field).toBe('output');
      expect(view.cut).toBe(true);
      expect('first line\nsecond "quoted" line\nthird\tline'.startsWith(view.text)).toBe(true);
    }
    expect(outputView('{"output": "a\\u00e9b', true).text).toBe('aéb');
    expect(outputView('{"output": "a\\u00', true).text).toBe('a');
    expect(outputView('{"weird": "a', true)).toMatchObject({ field: null, cut: false });
  });
});
