/**
 * Per-session and per-message state lives on the session (issue 23): no module of src/engine/
 * outside session/ keeps a module-level WeakMap, WeakSet, Map or Set keyed by a Session or a
 * MessageState. Such a cache belongs on the session (a sub-object of session.ts) or on the
 * message state (`m.memo`, session/memo.ts), where it goes with what it describes.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ENGINE = join(import.meta.dirname, '..', '..', 'src', 'engine');
const CONTAINERS = new Set(['WeakMap', 'WeakSet', 'Map', 'Set']);
const KEYED = /\b(Session|MessageState)\b/;
/** None allowed: list-wide.ts's six caches now live on the message (`listWide`) and the session. */
const ALLOWED = new Set<string>();

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** The module-level `const x = new WeakMap<Session, …>()` (and the like) of one source text. */
function moduleMaps(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const out: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const d of statement.declarationList.declarations) {
      const init = d.initializer;
      if (
        !init ||
        !ts.isNewExpression(init) ||
        !ts.isIdentifier(init.expression) ||
        !CONTAINERS.has(init.expression.text)
      )
        continue;
      const key = init.typeArguments?.[0]?.getText(source) ?? '';
      if (KEYED.test(key)) out.push(`${d.name.getText(source)}: new ${init.expression.text}<${key}, …>`);
    }
  }
  return out;
}

describe('per-session state lives on the session', () => {
  it('finds a module-level map keyed by a session or a message', () => {
    expect(
      moduleMaps(
        'x.ts',
        'const a = new WeakMap<Session, number>();\nconst b = new Map<string, number>();\nconst c = new WeakSet<MessageState>();',
      ),
    ).toEqual(['a: new WeakMap<Session, …>', 'c: new WeakSet<MessageState, …>']);
  });

  it('has no module-level map keyed by a Session or a MessageState in src/engine/ outside session/', () => {
    const found: string[] = [];
    for (const file of filesUnder(ENGINE)) {
      const rel = relative(ENGINE, file);
      if (rel.startsWith('session/') || ALLOWED.has(rel)) continue;
      for (const m of moduleMaps(file, readFileSync(file, 'utf8'))) found.push(`${rel}  ${m}`);
    }
    expect(found).toEqual([]);
  });
});
