/**
 * The host behind one door (issue 23, point 4): the engine (and every other folder of src/) reaches
 * an agent host only through the registry (src/hosts/index.ts) and its interface (hosts/host.ts),
 * never a host's own folder (src/hosts/hermes/, ...). A host's folder is one the registry imports from.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf } from '../../scripts/import-graph.js';

const SRC = join(import.meta.dirname, '..', '..', 'src');
const HOSTS = join(SRC, 'hosts');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** The folders of src/hosts/ the registry imports a host from (`hermes`). */
function hostFolders(registry: string): string[] {
  return importsOf(registry)
    .map((spec) => relative(HOSTS, resolve(HOSTS, spec)))
    .filter((rel) => rel.includes('/'))
    .map((rel) => rel.split('/')[0] as string);
}

/** `file → import` for every import of a file under `dir` that lands in one of the host folders. */
function hostImports(
  dir: string,
  folders: readonly string[],
  read: (file: string) => string = (f) => readFileSync(f, 'utf8'),
): string[] {
  return filesUnder(dir).flatMap((file) =>
    importsOf(read(file))
      .map((spec) => relative(HOSTS, resolve(dirname(file), spec)))
      .filter((rel) => !rel.startsWith('..') && folders.includes(rel.split('/')[0] as string))
      .map((rel) => `${relative(SRC, file)} → hosts/${rel}`),
  );
}

describe('the host behind one door', () => {
  const folders = hostFolders(readFileSync(join(HOSTS, 'index.ts'), 'utf8'));

  it('finds the host folders from the registry (hermes among them)', () => {
    expect(folders).toContain('hermes');
  });

  it("no file in src/engine/ imports a host's folder: the engine goes through hosts/index.ts", () => {
    expect(hostImports(join(SRC, 'engine'), folders)).toEqual([]);
  });

  it('nor does any other folder of src/ (the app, the cli, the server): only hosts/ itself names a host', () => {
    const others = readdirSync(SRC).filter((name) => name !== 'hosts' && statSync(join(SRC, name)).isDirectory());
    expect(others).toContain('app');
    expect(others.flatMap((name) => hostImports(join(SRC, name), folders))).toEqual([]);
  });

  it("would catch one that did (hello.ts importing Hermes' config reader, as it did before)", () => {
    const hello = join(SRC, 'engine', 'hello.ts');
    const planted = (file: string): string => {
      const text = readFileSync(file, 'utf8');
      return file === hello ? `import { readHermesConfig } from '../hosts/hermes/config-file.js';\n${text}` : text;
    };
    expect(hostImports(join(SRC, 'engine'), folders, planted)).toEqual([
      'engine/hello.ts → hosts/hermes/config-file.js',
    ]);
  });
});
