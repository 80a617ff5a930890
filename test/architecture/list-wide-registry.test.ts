/**
 * The list-wide registry is the only place that knows the list-wide strategies (issue 23): the
 * engine's pass and the held list's vocabulary name no placeholder kind and import no strategy
 * but through the registry, so a new list-wide strategy is its file, one registry line and its
 * config keys; and no list-wide code keeps per-message or per-session state in a module-level map
 * (it lives on the message, `MessageState.listWide`, or the session, `Session.listWideAnswers`, session/list-wide-answers.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf } from '../../scripts/import-graph.js';
import { LIST_WIDE_STRATEGIES } from '../../src/strategies/index.js';

const SRC = join(import.meta.dirname, '..', '..', 'src');
const read = (path: string): string => readFileSync(join(SRC, path), 'utf8');
/** Files that must not know any list-wide strategy by name. */
const NAMELESS = [
  'engine/list-wide/list-wide.ts',
  'engine/list-wide/facts.ts',
  'engine/list-wide/batch.ts',
  'engine/session/held.ts',
];
const KINDS = LIST_WIDE_STRATEGIES.flatMap((s) => [...s.kinds]);
/** The files that define a list-wide strategy (input clearing, which plans arguments, is none). */
const STRATEGY_FILES = readdirSync(join(SRC, 'strategies', 'list-wide')).filter((f) =>
  /: ListWideStrategy</.test(read(`strategies/list-wide/${f}`)),
);

describe('the list-wide registry', () => {
  it('is the only door to the list-wide strategies: the pass and the held vocabulary name no kind and import none', () => {
    expect(KINDS.length).toBeGreaterThan(0);
    expect(STRATEGY_FILES.length).toBe(LIST_WIDE_STRATEGIES.length);
    for (const file of NAMELESS) {
      const source = read(file);
      for (const kind of KINDS) expect(source.includes(`'${kind}'`), `${file} names '${kind}'`).toBe(false);
      const strategyFiles = importsOf(source).filter((spec) =>
        STRATEGY_FILES.some((f) => spec.endsWith(`strategies/list-wide/${f.replace(/\.ts$/, '.js')}`)),
      );
      expect(strategyFiles, file).toEqual([]);
    }
  });

  it('keeps no per-message or per-session map at module level in list-wide code', () => {
    const files = [
      ...readdirSync(join(SRC, 'strategies', 'list-wide')).map((f) => `strategies/list-wide/${f}`),
      'engine/list-wide/list-wide.ts',
      'engine/list-wide/facts.ts',
      'engine/list-wide/batch.ts',
    ];
    for (const file of files) {
      const maps = read(file)
        .split('\n')
        .filter((line) => /^(export )?(const|let|var) \w+(: [^=]+)? = new (Weak)?Map\b/.test(line));
      expect(maps, file).toEqual([]);
    }
  });
});
