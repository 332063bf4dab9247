/**
 * What `npm test` does before the tests: the build (the tests run dist/), the two type-checks, the
 * lint (ESLint with types, then Prettier's check, as two steps) and the wrapped CLIs' install
 * (test/harness/clis). None needs another's output, so two workers (two cores) take them from one
 * list, longest first: the typed ESLint alone is about as long as the type-check and the format
 * check together. The build is left out when dist/ is a finished build of the sources as they are
 * (scripts/build-stamp.ts): in a clean clone `npm ci` has just built it. Each step's output is held
 * and printed whole when it ends, so the workers' lines do not interleave; the first failing step
 * fails the run (the other worker's step is stopped) with its output and exit code.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { buildIsCurrent } from './build-stamp.ts';

const root = path.resolve(import.meta.dirname, '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

type Step = [label: string, command: string, args: string[]];
const build: Step[] = buildIsCurrent() ? [] : [['build', npm, ['run', '--silent', 'build']]];
if (build.length === 0) process.stderr.write('pretest: dist/ is a build of these sources (dist/.build-stamp)\n');
/** About longest first (CPU seconds on a quiet machine: 60, 26, 30, 27, 0-20 as it installs or not, 5). */
const STEPS: Step[] = [
  ['lint (ESLint)', npm, ['run', '--silent', 'lint:code']],
  ...build,
  ['type-check', 'tsc', ['-p', 'tsconfig.check.json']],
  ['lint (format)', npm, ['run', '--silent', 'lint:format']],
  ['wrapped CLIs', process.execPath, ['scripts/harness-clis.ts']],
  ['type-check web', 'tsc', ['-p', 'web/tsconfig.json']],
];
const WORKERS = 2;

const running = new Set<ChildProcess>();
let failed = false;

/** Runs one step with its output held; resolves with its exit code (1 when it could not start). */
function run([label, command, args]: Step): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.end();
    running.add(child);
    const output: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    child.on('error', (error) => output.push(Buffer.from(`${label}: ${error.message}\n`)));
    child.on('close', (code, signal) => {
      running.delete(child);
      const text = Buffer.concat(output).toString();
      if (!failed || code === 0) process.stderr.write(text);
      if (code !== 0 && !failed && signal === null) process.stderr.write(`pretest: ${label} failed (exit ${code})\n`);
      resolve(code ?? 1);
    });
  });
}

/** Takes the next step from STEPS until none is left or one failed. */
async function worker(): Promise<number> {
  for (let step = STEPS.shift(); step; step = STEPS.shift()) {
    if (failed) return 1;
    const code = await run(step);
    if (code !== 0) {
      if (!failed) for (const child of running) child.kill('SIGTERM');
      failed = true;
      return code;
    }
  }
  return 0;
}

// node_modules/.bin on PATH as npm scripts have it (tsc is called directly).
process.env.PATH = `${path.join(root, 'node_modules/.bin')}${path.delimiter}${process.env.PATH ?? ''}`;
const codes = await Promise.all(Array.from({ length: WORKERS }, worker));
process.exitCode = codes.find((code) => code !== 0) ?? 0;
