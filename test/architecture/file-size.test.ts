/**
 * No TypeScript or Python file over 450 lines (the house rule, issue 18; Python since issue 23): a
 * file that grows past it is split by concern (a module) or by behaviour (a test file). The Engine
 * class holds the hooks only, within 250 lines: what a hook does lives in the modules beside it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const MAX_LINES = 450;

function filesEndingWith(dir: string, suffix: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name === '__pycache__') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesEndingWith(path, suffix));
    else if (name.endsWith(suffix)) out.push(path);
  }
  return out;
}

function overTheRule(files: string[]): string[] {
  return files
    .map((f) => ({ file: relative(ROOT, f), lines: readFileSync(f, 'utf8').split('\n').length - 1 }))
    .filter((f) => f.lines > MAX_LINES)
    .map((f) => `${f.file}: ${f.lines} lines`);
}

describe('file sizes', () => {
  it(`keeps every TypeScript file of src, web, bench, scripts and test within ${MAX_LINES} lines`, () => {
    const files = ['src', 'web', 'dashboard', 'bench', 'scripts', 'test'].flatMap((d) =>
      filesEndingWith(join(ROOT, d), '.ts'),
    );
    expect(files.length).toBeGreaterThan(100);
    expect(overTheRule(files)).toEqual([]);
  });

  it(`keeps every Python file (the plugin's face, hmc_bridge, dashboard, bench, scripts, test) within ${MAX_LINES} lines`, () => {
    const dirs = ['hmc_bridge', 'dashboard', 'bench', 'scripts', 'test'].flatMap((d) =>
      filesEndingWith(join(ROOT, d), '.py'),
    );
    const files = [join(ROOT, '__init__.py'), ...dirs];
    expect(files.length).toBeGreaterThan(50);
    expect(files.map((f) => relative(ROOT, f))).toContain('hmc_bridge/engine.py');
    expect(overTheRule(files)).toEqual([]);
  });

  it('keeps the Engine class (the hooks) within 250 lines', () => {
    const source = readFileSync(join(ROOT, 'src', 'engine', 'engine.ts'), 'utf8').split('\n');
    const start = source.findIndex((line) => line.startsWith('export class Engine '));
    const end = source.findIndex((line, i) => i > start && line === '}');
    expect(start).toBeGreaterThan(0);
    expect(end - start + 1).toBeLessThanOrEqual(250);
  });
});
