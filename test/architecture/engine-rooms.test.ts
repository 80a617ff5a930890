/**
 * The rooms of src/engine/ (issue 23): at most 12 files at its top, a README in every room, and
 * imports between rooms only down the floors its README gives (a room may import its own files and
 * rooms on lower floors, never one on its own floor or above).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf } from '../../scripts/import-graph.js';

const ENGINE = join(import.meta.dirname, '..', '..', 'src', 'engine');

/** Floors from the bottom; rooms on one floor may not import each other. */
const FLOORS: readonly (readonly string[])[] = [
  ['ledger'],
  ['session'],
  ['layer1'],
  ['list-wide', 'control'],
  ['turn'],
  ['saving', 'context-engine'],
  ['.'],
];

const floorOf = (room: string): number => FLOORS.findIndex((floor) => floor.includes(room));

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** `turn` for src/engine/turn/sync.ts, `.` for src/engine/engine.ts, undefined outside the engine. */
function roomOf(file: string): string | undefined {
  const rel = relative(ENGINE, file);
  if (rel.startsWith('..')) return undefined;
  return rel.includes('/') ? (rel.split('/')[0] as string) : '.';
}

describe('the rooms of src/engine/', () => {
  const rooms = readdirSync(ENGINE).filter((name) => statSync(join(ENGINE, name)).isDirectory());

  it('keeps at most 12 files at its top', () => {
    const top = readdirSync(ENGINE).filter((name) => !statSync(join(ENGINE, name)).isDirectory());
    expect(top.length).toBeLessThanOrEqual(12);
  });

  it('gives every room a floor and a README', () => {
    for (const room of rooms) {
      expect(floorOf(room), `${room} has no floor`).toBeGreaterThanOrEqual(0);
      expect(existsSync(join(ENGINE, room, 'README.md')), `${room}/README.md`).toBe(true);
    }
  });

  it('has no import up a floor or across one', () => {
    const wrong: string[] = [];
    for (const file of filesUnder(ENGINE)) {
      const from = roomOf(file) as string;
      for (const spec of importsOf(readFileSync(file, 'utf8'))) {
        const to = roomOf(normalize(join(dirname(file), spec)));
        if (to === undefined || to === from) continue;
        if (floorOf(to) >= floorOf(from)) wrong.push(`${relative(ENGINE, file)} -> ${spec}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
