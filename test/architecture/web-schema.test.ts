/**
 * The page's event types (web/src/schema.ts) are a hand-written copy of the server's
 * (src/events/types.ts): the page is its own build and imports nothing from src/ but pure leaves
 * (web-imports.test.ts). This test reads both files with the TypeScript compiler and holds the copy
 * to the original: the same event type names, and every field the page reads exists on the
 * server's event with the same optionality and a type the page's guard accepts. Fields the server
 * has and the page does not read are allowed (the page reads a subset).
 *
 * Invariant: the check is on the compiler's own view of both files, never on their text; a second
 * case runs it on copies with one field renamed, on each side, to show it can fail.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const PAGE = join(ROOT, 'web', 'src', 'schema.ts');
const SERVER = join(ROOT, 'src', 'events', 'types.ts');
/** The events both sides name, by the type each side exports for it. */
const EVENTS = ['TurnEvent', 'ToolEvent', 'SessionEndEvent', 'SessionIdleEvent', 'PhaseEvent'];

const OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  types: [],
  lib: ['lib.es2023.d.ts'],
};

/** A program over both files, with `replace` swapping a file's text for a copy (the can-fail case). */
function program(replace: Record<string, string> = {}, old?: ts.Program): ts.Program {
  const host = ts.createCompilerHost(OPTIONS);
  const read = host.readFile.bind(host);
  host.readFile = (file) => replace[file] ?? read(file);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, lang, onError) =>
    replace[file] !== undefined ? ts.createSourceFile(file, replace[file], lang) : getSourceFile(file, lang, onError);
  return ts.createProgram({ rootNames: [PAGE, SERVER], options: OPTIONS, host, oldProgram: old });
}

function exported(checker: ts.TypeChecker, p: ts.Program, file: string, name: string): ts.Type {
  const source = p.getSourceFile(file);
  const module = source && checker.getSymbolAtLocation(source);
  const symbol = module && checker.getExportsOfModule(module).find((s) => s.name === name);
  if (!symbol) throw new Error(`${file} exports no ${name}`);
  return checker.getDeclaredTypeOfSymbol(symbol);
}

/** The `type` names of a union of events (each member's `type` literal). */
function typeNames(checker: ts.TypeChecker, union: ts.Type): string[] {
  const members = union.isUnion() ? union.types : [union];
  return members
    .map((m) => m.getProperty('type'))
    .map((s) => (s ? checker.typeToString(checker.getTypeOfSymbol(s)) : '?'))
    .sort();
}

/** Every way the page's copy differs from the server's events, one line each (none: []). */
function differences(p: ts.Program): string[] {
  const checker = p.getTypeChecker();
  const diagnostics = ts.getPreEmitDiagnostics(p).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  if (diagnostics.length > 0) return diagnostics.map((d) => `does not compile: ${d}`);
  const out: string[] = [];
  const pageNames = typeNames(checker, exported(checker, p, PAGE, 'HmcEvent'));
  const serverNames = typeNames(checker, exported(checker, p, SERVER, 'HmcEvent'));
  if (JSON.stringify(pageNames) !== JSON.stringify(serverNames))
    out.push(`event types: page ${pageNames.join(', ')}; server ${serverNames.join(', ')}`);
  const undef = checker.getUndefinedType();
  for (const name of EVENTS) {
    const page = exported(checker, p, PAGE, name);
    const server = exported(checker, p, SERVER, name);
    for (const field of page.getProperties()) {
      const pageType = checker.getTypeOfSymbol(field);
      const theirs = server.getProperty(field.name);
      if (!theirs) {
        out.push(`${name}.${field.name}: read by the page, absent from events/types.ts`);
        continue;
      }
      const serverType = checker.getTypeOfSymbol(theirs);
      // The page's guards spell "may be absent" as `optional(g)`: a type that admits undefined.
      const pageOptional = checker.isTypeAssignableTo(undef, pageType);
      const serverOptional =
        (theirs.flags & ts.SymbolFlags.Optional) !== 0 || checker.isTypeAssignableTo(undef, serverType);
      if (pageOptional !== serverOptional) {
        out.push(
          `${name}.${field.name}: ${pageOptional ? 'optional' : 'required'} on the page, ${serverOptional ? 'optional' : 'required'} on the server`,
        );
      } else if (!checker.isTypeAssignableTo(serverType, pageType)) {
        out.push(
          `${name}.${field.name}: the server's ${checker.typeToString(serverType)} is not the page's ${checker.typeToString(pageType)}`,
        );
      }
    }
  }
  return out;
}

describe("the page's event types against src/events/types.ts", () => {
  const real = program();

  it('has the same event names, and every field the page reads with the same optionality and type', () => {
    const checker = real.getTypeChecker();
    expect(typeNames(checker, exported(checker, real, SERVER, 'HmcEvent'))).toEqual([
      '"phase"',
      '"session_end"',
      '"session_idle"',
      '"tool"',
      '"turn"',
    ]);
    expect(exported(checker, real, PAGE, 'TurnEvent').getProperties().length).toBeGreaterThan(20);
    expect(differences(real)).toEqual([]);
  });

  it('finds a field renamed on either side, or made optional', () => {
    const page = readFileSync(PAGE, 'utf8');
    const server = readFileSync(SERVER, 'utf8');
    // Any layout: the formatter may put the two fields on one line or two.
    const renamedOnPage = page.replace(
      /tokens_after: num,(\s*)strategies: arrayOf\(str\)/,
      'tokens_left: num,$1strategies: arrayOf(str)',
    );
    expect(renamedOnPage).not.toBe(page);
    expect(differences(program({ [PAGE]: renamedOnPage }, real))).toEqual([
      'ToolEvent.tokens_left: read by the page, absent from events/types.ts',
    ]);
    const renamedOnServer = server.replace(
      '  recall_id: string;\n  /** True when',
      '  recall: string;\n  /** True when',
    );
    expect(renamedOnServer).not.toBe(server);
    expect(differences(program({ [SERVER]: renamedOnServer }, real))).toEqual([
      'PhaseEvent.recall_id: read by the page, absent from events/types.ts',
    ]);
    const optionalOnServer = server.replace('  cache_breaks: number;', '  cache_breaks?: number;');
    expect(optionalOnServer).not.toBe(server);
    expect(differences(program({ [SERVER]: optionalOnServer }, real))).toEqual([
      'TurnEvent.cache_breaks: required on the page, optional on the server',
    ]);
  });
});
