/**
 * No TypeScript file over 450 lines (the house rule, issue 18): a file that grows past it is
 * split by concern (a module) or by behaviour (a test file). The Engine class holds the hooks
 * only, within 250 lines: what a hook does lives in the modules beside it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const MAX_LINES = 450;

function typescriptFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...typescriptFiles(path));
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

describe('file sizes', () => {
  it(`keeps every TypeScript file of src, web, bench, scripts and test within ${MAX_LINES} lines`, () => {
    const files = ['src', 'web', 'dashboard', 'bench', 'scripts', 'test'].flatMap((d) => typescriptFiles(join(ROOT, d)));
    expect(files.length).toBeGreaterThan(100);
    const long = files
      .map((f) => ({ file: relative(ROOT, f), lines: readFileSync(f, 'utf8').split('\n').length - 1 }))
      .filter((f) => f.lines > MAX_LINES)
      .map((f) => `${f.file}: ${f.lines} lines`);
    expect(long).toEqual([]);
  });

  it('keeps the Engine class (the hooks) within 250 lines', () => {
    const source = readFileSync(join(ROOT, 'src', 'engine', 'engine.ts'), 'utf8').split('\n');
    const start = source.findIndex((line) => line.startsWith('export class Engine '));
    const end = source.findIndex((line, i) => i > start && line === '}');
    expect(start).toBeGreaterThan(0);
    expect(end - start + 1).toBeLessThanOrEqual(250);
  });
});
