/**
 * `npm run metrics`: the size and type-discipline numbers issue 34 tracks, over src/.
 *
 * - files over 400 lines, and functions (declarations, methods, arrows, constructors, accessors)
 *   over 80 lines, counted from their first to their last line;
 * - `as` casts (type assertions other than `as const`) and, among them, `as unknown as`;
 * - the pairs `duplicates` reports over src/, split into real ones and boilerplate.
 *
 * `--list` prints each long file and function and each file's cast count; `--casts` prints every cast with its
 * file and line (to work through them). The script reads the
 * source with the TypeScript compiler's parser only (no type-check): it runs in about a second.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = 'src';
const FILE_LIMIT = 400;
const FUNCTION_LIMIT = 80;

interface FileReport {
  file: string;
  lines: number;
  casts: number;
  unknownCasts: number;
  /** Each cast: its line and its text on one line. */
  castSites: string[];
  longFunctions: { name: string; line: number; lines: number }[];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

function isFunctionLike(node: ts.Node): node is ts.FunctionLikeDeclaration {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isArrowFunction(node) ||
    ts.isFunctionExpression(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

function functionName(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) {
    return parent.name.getText(source);
  }
  return '(anonymous)';
}

function isConstAssertion(node: ts.AsExpression | ts.TypeAssertion): boolean {
  return ts.isTypeReferenceNode(node.type) && node.type.typeName.getText() === 'const';
}

function measure(file: string): FileReport {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lineOf = (pos: number): number => source.getLineAndCharacterOfPosition(pos).line + 1;
  const report: FileReport = {
    file,
    lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0),
    casts: 0,
    unknownCasts: 0,
    castSites: [],
    longFunctions: [],
  };
  const visit = (node: ts.Node): void => {
    if ((ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) && !isConstAssertion(node)) {
      report.casts += 1;
      report.castSites.push(
        `${lineOf(node.getStart(source))}: ${node.getText(source).replace(/\s+/g, ' ').slice(0, 160)}`,
      );
      const inner = node.expression;
      if (ts.isAsExpression(inner) && inner.type.kind === ts.SyntaxKind.UnknownKeyword) report.unknownCasts += 1;
    }
    if (isFunctionLike(node) && node.body) {
      const first = lineOf(node.getStart(source));
      const lines = lineOf(node.getEnd()) - first + 1;
      if (lines > FUNCTION_LIMIT) report.longFunctions.push({ name: functionName(node, source), line: first, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return report;
}

function duplicatePairs(): { real: string[]; boilerplate: number } {
  let output: string;
  try {
    output = execFileSync('duplicates', ['--repo', ROOT, '--most', '200', '--seconds', '60'], { encoding: 'utf8' });
  } catch {
    return { real: ['(duplicates is not installed)'], boilerplate: 0 };
  }
  const rows = output.split('\n').filter((line) => /^D\d+ /.test(line));
  const real = rows.filter((row) => !row.includes('boilerplate'));
  return { real, boilerplate: rows.length - real.length };
}

const reports = sourceFiles(ROOT).map(measure);
const longFiles = reports.filter((report) => report.lines > FILE_LIMIT).sort((a, b) => b.lines - a.lines);
const longFunctions = reports
  .flatMap((report) => report.longFunctions.map((fn) => ({ ...fn, file: report.file })))
  .sort((a, b) => b.lines - a.lines);
const casts = reports.reduce((sum, report) => sum + report.casts, 0);
const unknownCasts = reports.reduce((sum, report) => sum + report.unknownCasts, 0);
const duplicates = duplicatePairs();
const list = process.argv.includes('--list');

console.log(`files: ${reports.length}, lines: ${reports.reduce((sum, report) => sum + report.lines, 0)}`);
console.log(`files over ${FILE_LIMIT} lines: ${longFiles.length}`);
if (list) for (const report of longFiles) console.log(`  ${report.lines} ${report.file}`);
console.log(`functions over ${FUNCTION_LIMIT} lines: ${longFunctions.length}`);
if (list) for (const fn of longFunctions) console.log(`  ${fn.lines} ${fn.file}:${fn.line} ${fn.name}`);
console.log(`'as' casts (not 'as const'): ${casts}; 'as unknown as': ${unknownCasts}`);
if (list) {
  for (const report of [...reports]
    .sort((a, b) => b.casts - a.casts)
    .filter((r) => r.casts > 0)
    .slice(0, 25)) {
    console.log(`  ${report.casts} ${report.file}`);
  }
}
if (process.argv.includes('--casts'))
  for (const report of reports) for (const site of report.castSites) console.log(`  ${report.file}:${site}`);
console.log(`duplicates pairs over ${ROOT}/: ${duplicates.real.length} real, ${duplicates.boilerplate} boilerplate`);
for (const row of duplicates.real) console.log(`  ${row}`);
