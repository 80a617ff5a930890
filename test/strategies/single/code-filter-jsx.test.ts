/**
 * Code filter, TSX/JSX (docs/engine.md "TSX and JSX"): bodies of functions that hold no markup
 * (helpers, hooks, handlers outside components) are elided; components (a body holding markup, or
 * building it with createElement) are kept whole; markup text never counts as code (`Don't`,
 * `a / b`, `{"}"}`), and TSX generics (`<T,>`) are not markup.
 */
import { describe, expect, it } from 'vitest';
import { codeFilter } from '../../../src/strategies/single/code-filter/index.js';
import { CFG, fileRead, render } from './code-filter-helpers.js';

const APP = [
  "import React, { useState } from 'react';",
  'export const PAGE_SIZE = 20;',
  'export function formatName(user: User): string {',
  '  const first = user.first.trim();',
  '  const last = user.last.trim();',
  '  return `${first} ${last}`;',
  '}',
  'const useUsers = <T,>(initial: T[]) => {',
  '  const [items, setItems] = useState<T[]>(initial);',
  '  const add = (t: T) => setItems((xs) => [...xs, t]);',
  '  return { items, add };',
  '};',
  'export default function UserList({ users }: { users: User[] }) {',
  '  const [open, setOpen] = useState(false);',
  '  if (!users.length) {',
  '    return <p>Don\'t panic: no users {"}"}</p>;',
  '  }',
  '  return (',
  '    <ul className="users">',
  '      {users.map((u) => (',
  '        <li key={u.id} onClick={() => setOpen(!open)}>',
  '          {formatName(u)} / {u.email}',
  '        </li>',
  '      ))}',
  '      <>',
  '        <Footer count={users.length} />',
  '      </>',
  '    </ul>',
  '  );',
  '}',
  'export class Legacy extends React.Component<Props> {',
  '  handleClick = () => {',
  '    this.setState({ n: 1 });',
  "    track('click');",
  "    log('x');",
  '  };',
  '  render() {',
  '    return <div onClick={this.handleClick}>legacy</div>;',
  '  }',
  '}',
];

const EXPECTED = [
  "import React, { useState } from 'react';",
  'export const PAGE_SIZE = 20;',
  'export function formatName(user: User): string {',
  '  // … 3 lines elided (4–6)',
  '}',
  'const useUsers = <T,>(initial: T[]) => {',
  '  // … 3 lines elided (9–11)',
  '};',
  ...APP.slice(12, 31),
  '  handleClick = () => {',
  '    // … 3 lines elided (33–35)',
  '  };',
  ...APP.slice(36),
];

describe('code filter: TSX and JSX', () => {
  it('elides helpers, hooks and handlers; keeps components, class render methods and their markup whole', () => {
    const input = fileRead('src/UserList.tsx', APP.join('\n'));
    expect(render(input, codeFilter(input, CFG))).toBe(EXPECTED.join('\n'));
  });

  it('reads JSX in .js and .jsx files the same way', () => {
    for (const path of ['src/UserList.jsx', 'src/UserList.js']) {
      const js = APP.map((l) =>
        l.replace(/: \{ users: User\[\] \}|: User\b|<T,>|: T\[\]|: T\b|<T\[\]>|<Props>|: string/g, ''),
      );
      const input = fileRead(path, js.join('\n'));
      const out = render(input, codeFilter(input, CFG)) ?? '';
      expect(out).toContain('  // … 3 lines elided (4–6)');
      expect(out).toContain('    return <p>Don\'t panic: no users {"}"}</p>;');
      expect(out).toContain('          {formatName(u)} / {u.email}');
    }
  });

  it('keeps a component that builds markup with createElement', () => {
    const src = [
      'export function Box(props) {',
      '  const style = { padding: 4 };',
      '  const label = props.label;',
      "  return React.createElement('div', { style }, label);",
      '}',
    ];
    const input = fileRead('box.js', src.join('\n'));
    expect(codeFilter(input, CFG).kind).toBe('skipped');
  });

  it('a fence tagged tsx is read with its markup; a .ts file that holds markup is left whole', () => {
    const fenced = ['Here:', '```tsx', ...APP, '```'];
    const md = fileRead('notes.md', fenced.join('\n'));
    const out = render(md, codeFilter(md, CFG)) ?? '';
    expect(out).toContain('  // … 3 lines elided (6–8)');
    expect(out).toContain('          {formatName(u)} / {u.email}');
    const ts = fileRead('src/UserList.ts', APP.join('\n'));
    const skipped = codeFilter(ts, CFG);
    expect(skipped.kind === 'skipped' && skipped.reason).toMatch(/JSX markup outside a \.tsx file/);
  });

  it('regression: a TypeScript read whose trailer has a <system-reminder> tag is not taken for markup', () => {
    const src = [
      'export function f(a: number): number {',
      '  const b = a + 1;',
      '  const c = b * 2;',
      '  return b + c;',
      '}',
    ];
    const lines = [...src, '', '<system-reminder>', 'Whenever you read a file…', '</system-reminder>'];
    const input = fileRead('a.ts', lines.join('\n'), { start: 0, end: src.length });
    expect(render(input, codeFilter(input, CFG))).toBe(
      ['export function f(a: number): number {', '  // … 3 lines elided (2–4)', '}', ...lines.slice(5)].join('\n'),
    );
  });
});
