/**
 * `linesToCheck` (lines-to-check.ts) is the one scan of a whole output that tells truncation which lines
 * may matter; the exact per-line tests then run on those lines only. It must never leave out a
 * line any exact test would find: a property over generated lines made of every pattern's
 * words (in any case, glued or spaced, in ASCII texts and in texts with other scripts), and the
 * lines of every harm case.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linesToCheck } from '../../../src/strategies/shared/lines-to-check.js';
import {
  CONTEXT_ANYWHERE,
  importance,
  isPassingTestLine,
  reportsFailure,
  reportsWarning,
} from '../../../src/strategies/shared/signals.js';
import { HARM_CASES } from '../harm/all.js';

/** What a line marked 0 must not be. */
function matters(line: string): boolean {
  return (
    importance(line) > 0 ||
    isPassingTestLine(line) ||
    CONTEXT_ANYWHERE.test(line) ||
    reportsFailure(line) ||
    reportsWarning(line)
  );
}

function missed(text: string): string[] {
  const lines = text.split('\n');
  const hot = linesToCheck(lines, lines.length, text);
  return lines.filter((line, i) => hot[i] === 0 && matters(line));
}

/** Pieces of every exact pattern of signals.ts, and filler. */
const PIECES = [
  'error',
  'Errors',
  'failed',
  'FAILURE',
  'failing',
  'fail',
  'fatal',
  'panicked',
  'Traceback',
  'exceptions',
  'rejected',
  'conflict',
  'denied',
  'aborted',
  'crashed',
  'segmentation fault',
  'segfault',
  'core dumped',
  'non-zero exit',
  'nonzero exit',
  'command not found',
  'no such file',
  'not found',
  'cannot',
  "can't",
  'could not',
  "couldn't",
  'unable to',
  'timed out',
  'killed',
  'unhandled',
  'uncaught',
  'undefined reference',
  'undefined: x',
  'terminate called',
  'not ok',
  'Fehler',
  'fehlgeschlagen',
  'Ausnahme',
  'abgebrochen',
  'verweigert',
  'nicht gefunden',
  'konnte nicht',
  'kann nicht',
  'erreur',
  'introuvable',
  "impossible d'ouvrir",
  "n'a pas pu",
  'errores',
  'fallo',
  'fallido',
  'no se pudo',
  'no encontrado',
  'denegado',
  'erro',
  'falha',
  'falhou',
  'negado',
  'errore',
  'errori',
  'fallito',
  'eccezione',
  'impossibile',
  'non trovato',
  'fout',
  'mislukt',
  'niet gevonden',
  'niepowodzenie',
  'nie udalo',
  'hatası',
  'TypeError',
  'IOException',
  'ComparisonFailure',
  'SegFault',
  'CrashLoopBackOff',
  'ImagePullBackOff',
  'ErrImagePull',
  'OOMKilled',
  'Evicted',
  'CreateContainerConfigError',
  'exit code 2',
  'exited with status 1',
  '! [rejected]',
  'E   assert',
  'E: Unable',
  'make[2]: ***',
  '** (RuntimeError)',
  'npm ERR!',
  '✗ x',
  '✕ y',
  '(fail) z',
  'HTTP/1.1" 503 12',
  'warning',
  'WARN',
  'deprecated',
  'Warnung',
  'avertissement',
  'advertencia',
  'aviso',
  'avviso',
  'W: x',
  'DeprecationWarning',
  'userwarning',
  'src/a.ts:12:5',
  'File "x.py", line 3',
  '    at f (x.js:1:2)',
  '#3 0x7fff',
  'goroutine 7 [running]:',
  'at line 4',
  'on line 9',
  ', line 3',
  'Foo.cs(12,5)',
  'assert x == y',
  'assertEqual',
  'Expected: 3',
  'received = 4',
  'left: 1',
  'got: 2',
  'want 3',
  '=== 3 passed in 1s ===',
  'Tests: 2 failed',
  'Test Suites: 1',
  'Snapshots: 0 total',
  'test result: ok',
  '--- PASS: TestX',
  'ok  \tpkg',
  '3 passing',
  '2 failing',
  '1 pending',
  'FAILED x',
  'PASSED',
  '4 passed',
  'Ran 3 tests in 0.1s',
  'OK (skipped=1)',
  '2 examples, 1 failure',
  'BUILD SUCCESSFUL',
  'Found 2 errors',
  '● a › b',
  'FAILED  x',
  'Failed  Foo [1 ms]',
  'x ... FAILED',
  'x > y FAILED',
  '✓ works',
  '✔ ok',
  '√ fine',
  'ok 1 - x',
  '| ok 2 - y',
  '(pass) z',
  'x PASSED [ 50%]',
  'test a ... ok',
  'above exception',
  'panicked at',
  '[cause]: x',
  'Ошибка',
  'ошибки',
  'помилка',
  'échec',
  'échoué',
  'falló',
  'excepción',
  'błąd',
  'başarısız',
  '错误',
  '失败',
  'エラー',
  '오류',
  '예외',
  '警告',
  '경고',
  'предупреждение',
  'plain words',
  'compiled module_3.ts in 12 ms',
  '[build] step 4',
  'id=abc123',
  '  ',
  '\t',
  '|',
  '│',
  '->',
  ':',
  '0',
  '42',
  '.',
  '(',
  ')',
];

// Glued to a letter, a digit, an underscore or `^C` (a line a Ctrl-C interrupted), in any case.
const piece = fc
  .tuple(fc.constantFrom('', '', 'x', 'Q', '7', '_', '^C', '.'), fc.constantFrom(...PIECES))
  .chain(([glue, p]) => fc.constantFrom(glue + p, (glue + p).toUpperCase(), (glue + p).toLowerCase()));
const line = fc
  .array(fc.oneof(piece, fc.string({ maxLength: 6 })), { maxLength: 5 })
  .chain((parts) => fc.constantFrom(parts.join(''), parts.join(' '), `  ${parts.join(' ')}`));
const text = fc
  .array(fc.oneof(line, fc.string({ maxLength: 30 })), { minLength: 1, maxLength: 40 })
  .map((ls) => ls.join('\n'));

describe('linesToCheck: one scan of the text misses no line that matters', () => {
  it('property: every line an exact test finds is marked (ASCII texts and texts with other scripts)', () => {
    fc.assert(
      fc.property(text, (t) => {
        expect(missed(t)).toEqual([]);
        // The same lines inside a text that holds another script elsewhere take the case-insensitive path.
        expect(missed(`${t}\n日本語`)).toEqual([]);
      }),
      { numRuns: 600 },
    );
  });

  it('every line of every harm case that matters is marked', () => {
    for (const c of HARM_CASES) {
      expect(missed(c.output), c.name).toEqual([]);
      const inner = c.output.trimStart().startsWith('{')
        ? (JSON.parse(c.output) as { output?: unknown }).output
        : undefined;
      if (typeof inner === 'string') expect(missed(inner), c.name).toEqual([]);
    }
  });

  it('marks few lines of a long quiet build log and each line that reports something', () => {
    const lines = Array.from({ length: 2000 }, (_, i) =>
      i % 400 === 7
        ? `src/mod${i}.ts:${i}:3 - error TS2345: Argument of type 'x' is not assignable.`
        : `[build] step ${i}: compiled module_${i}.ts in ${i % 97} ms`,
    );
    const hot = linesToCheck(lines, lines.length);
    const marked = lines.filter((_, i) => hot[i] === 1);
    expect(marked).toEqual(lines.filter((l) => l.includes('error TS2345')));
  });

  it('a text given with another length than its lines is not used', () => {
    const lines = ['ok', 'Error: boom'];
    expect([...linesToCheck(lines, 2, 'something else entirely')]).toEqual([0, 1]);
  });
});
