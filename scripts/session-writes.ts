// Lists the places outside src/engine/session/ that write a Session's state directly, read from
// the code with the TypeScript checker (`npx tsx scripts/session-writes.ts`; `--list` prints each
// site). A write is an assignment, `++`/`--` or `delete` whose target is reached through a
// Session (`s.turn++`, `s.engine.compactions += 1`, `s.messages[i].prune = p`), or a mutating call
// (`set`, `delete`, `push`, `clear`, `add`, …) on a built-in Map, Set or array reached through
// one (`s.pruned.set(k, v)`). The Session may be held under any name: the checker gives its type.
// test/architecture/session-writes.test.ts runs the same check and wants none.
//
// Invariant: reads are never counted; a call to a method of the session's own classes (they live
// in src/engine/session/) is the owner's write, not a direct one.
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OWNER = join(ROOT, 'src', 'engine', 'session') + '/';
const MUTATORS = new Set([
  'set',
  'delete',
  'clear',
  'add',
  'push',
  'pop',
  'shift',
  'unshift',
  'splice',
  'sort',
  'reverse',
  'fill',
  'copyWithin',
]);
const BUILT_INS = new Set(['Map', 'Set', 'Array', 'WeakMap', 'WeakSet']);

export interface SessionWrite {
  file: string;
  line: number;
  text: string;
}

/** True when `type` is the Session class (declared in src/engine/session/session.ts). */
function isSession(type: ts.Type): boolean {
  const symbol = type.getSymbol();
  if (symbol?.getName() !== 'Session') return false;
  return (symbol.getDeclarations() ?? []).some((d) => d.getSourceFile().fileName === join(OWNER, 'session.ts'));
}

/** True when `type` is a held message's own state (MessageState, session/held.ts). */
function isMessageState(type: ts.Type): boolean {
  const symbol = type.getSymbol();
  if (symbol?.getName() !== 'MessageState') return false;
  return (symbol.getDeclarations() ?? []).some((d) => d.getSourceFile().fileName === join(OWNER, 'held.ts'));
}

/**
 * True when some object on the way to `target` (`s` in `s.a.b[i].c`) is a Session. A held
 * message's own state (its compression, placeholder, summary) is written by the pass that makes
 * it, however it was reached: a way through a MessageState is not a Session write.
 */
function throughSession(target: ts.Expression, checker: ts.TypeChecker): boolean {
  let node: ts.Expression = target;
  while (
    ts.isPropertyAccessExpression(node) ||
    ts.isElementAccessExpression(node) ||
    ts.isParenthesizedExpression(node) ||
    ts.isNonNullExpression(node) ||
    ts.isAsExpression(node)
  ) {
    node = node.expression;
    const type = checker.getNonNullableType(checker.getTypeAtLocation(node));
    if (isMessageState(type)) return false;
    if (isSession(type)) return true;
  }
  return false;
}

function isBuiltInContainer(type: ts.Type, checker: ts.TypeChecker): boolean {
  const t = checker.getNonNullableType(type);
  if (checker.isArrayType(t)) return true;
  const name = t.getSymbol()?.getName();
  return name !== undefined && BUILT_INS.has(name);
}

const ASSIGNMENTS = new Set([
  ts.SyntaxKind.EqualsToken,
  ts.SyntaxKind.PlusEqualsToken,
  ts.SyntaxKind.MinusEqualsToken,
  ts.SyntaxKind.AsteriskEqualsToken,
  ts.SyntaxKind.SlashEqualsToken,
  ts.SyntaxKind.BarBarEqualsToken,
  ts.SyntaxKind.AmpersandAmpersandEqualsToken,
  ts.SyntaxKind.QuestionQuestionEqualsToken,
  ts.SyntaxKind.BarEqualsToken,
  ts.SyntaxKind.AmpersandEqualsToken,
]);

/** The writes to a Session's state in src/ outside src/engine/session/. */
export function sessionWrites(): SessionWrite[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  if (!config) throw new Error('tsconfig.json: unreadable');
  const files = config.fileNames.filter((f) => f.startsWith(join(ROOT, 'src') + '/'));
  const program = ts.createProgram(files, config.options);
  const checker = program.getTypeChecker();
  const out: SessionWrite[] = [];
  for (const source of program.getSourceFiles()) {
    const name = source.fileName;
    if (!name.startsWith(join(ROOT, 'src') + '/') || name.startsWith(OWNER)) continue;
    const note = (node: ts.Node): void => {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      out.push({ file: relative(ROOT, name), line: line + 1, text: node.getText(source).split('\n')[0] as string });
    };
    const visit = (node: ts.Node): void => {
      if (ts.isBinaryExpression(node) && ASSIGNMENTS.has(node.operatorToken.kind) && throughSession(node.left, checker))
        note(node);
      else if (
        (ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) &&
        (node.operator === ts.SyntaxKind.PlusPlusToken || node.operator === ts.SyntaxKind.MinusMinusToken) &&
        throughSession(node.operand, checker)
      )
        note(node);
      else if (ts.isDeleteExpression(node) && throughSession(node.expression, checker)) note(node);
      else if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        MUTATORS.has(node.expression.name.text)
      ) {
        const receiver = node.expression.expression;
        const reached = isSession(checker.getTypeAtLocation(receiver)) ? false : throughSession(receiver, checker);
        if (reached && isBuiltInContainer(checker.getTypeAtLocation(receiver), checker)) note(node);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const writes = sessionWrites();
  const byFile = new Map<string, number>();
  for (const w of writes) byFile.set(w.file, (byFile.get(w.file) ?? 0) + 1);
  if (process.argv.includes('--list')) for (const w of writes) console.log(`${w.file}:${w.line}  ${w.text}`);
  for (const [file, n] of [...byFile].sort((a, b) => b[1] - a[1])) console.log(`${String(n).padStart(4)}  ${file}`);
  console.log(
    `${writes.length} direct writes to session state from ${byFile.size} modules outside src/engine/session/`,
  );
  process.exitCode = writes.length > 0 ? 1 : 0;
}
