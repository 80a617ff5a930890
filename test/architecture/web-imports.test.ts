/**
 * The page (web/) is its own build: it imports nothing from ../src but the files listed here,
 * each pure and import-free, shared so the page and the sidecar say a thing the same way
 * (web/README.md).
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const ALLOWED = ['src/core/window-size.ts'];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('web/ imports from src/', () => {
  it(`only ${ALLOWED.join(', ')}, and those import nothing`, () => {
    const used = new Set<string>();
    for (const f of files(join(ROOT, 'web', 'src'))) {
      for (const m of readFileSync(f, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
        const target = relative(ROOT, resolve(f, '..', (m[1] ?? '').replace(/\.js$/, '.ts')));
        if (target.startsWith('src/')) used.add(target);
      }
    }
    expect([...used].filter((t) => !ALLOWED.includes(t))).toEqual([]);
    for (const a of ALLOWED) expect(readFileSync(join(ROOT, a), 'utf8')).not.toMatch(/^import /m);
  });
});
