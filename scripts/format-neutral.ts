// Shows that a reformat (`npm run fix`) changed layout only: every .ts/.js file that differs from a
// git ref (default HEAD) must minify to the same bytes before and after (esbuild, which tsx brings),
// and keep every string, template and regular expression literal in the same order.
// Usage: `npx tsx scripts/format-neutral.ts [ref]`; prints the counts, exits 1 if any file differs.
// Invariant: reads only; a file that does not parse on either side counts as differing.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { transformSync } from 'esbuild';
import ts from 'typescript';

const ref = process.argv[2] ?? 'HEAD';
const git = (...args: string[]): string => execFileSync('git', args, { encoding: 'utf8', maxBuffer: 1 << 28 });

/** The file minified: equal outputs mean equal code, whatever the spaces, commas and parentheses. */
function minified(code: string, file: string): string {
  const loader = file.endsWith('.js') ? 'js' : 'ts';
  return transformSync(code, { loader, minify: true, format: 'esm', legalComments: 'none' }).code;
}

/** Every string, template part and regex literal, in source order, as the program sees it. */
function literals(code: string, file: string): string[] {
  const source = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) out.push(`S:${node.text}`);
    else if (ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      out.push(`T:${node.rawText ?? node.text}`);
    } else if (ts.isRegularExpressionLiteral(node)) out.push(`R:${node.text}`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

const files = git('diff', '--name-only', '--diff-filter=M', ref, '--')
  .split('\n')
  .filter((f) => /\.(ts|js)$/.test(f));
let literalCount = 0;
const differ: string[] = [];
for (const file of files) {
  const before = git('show', `${ref}:${file}`);
  const after = readFileSync(file, 'utf8');
  try {
    const a = literals(before, file);
    literalCount += a.length;
    const sameLiterals = JSON.stringify(a) === JSON.stringify(literals(after, file));
    if (!sameLiterals || minified(before, file) !== minified(after, file)) differ.push(file);
  } catch {
    differ.push(file);
  }
}
console.log(
  `${files.length} changed files, ${literalCount} literals compared; ${differ.length} differ in code or literals`,
);
for (const file of differ) console.log(`  ${file}`);
process.exit(differ.length === 0 ? 0 : 1);
