/**
 * What `npm test` does before the tests, in two lanes that run side by side: the build and the two
 * type-checks in one (the tests run dist/), the lint beside it with the wrapped CLIs' install
 * (test/harness/clis) after it. The lint reads the sources, not dist/, so it needs no build; on two
 * cores the two lanes take about as long as the lint alone. Each step's output is held and printed
 * whole when it ends, so the lanes' lines do not interleave; the first failing step fails the run
 * (the other lane is stopped) with its output and exit code.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

type Step = [label: string, command: string, args: string[]];
const LANES: Step[][] = [
  [
    ['build', npm, ['run', '--silent', 'build']],
    ['type-check', 'tsc', ['-p', 'tsconfig.check.json']],
    ['type-check web', 'tsc', ['-p', 'web/tsconfig.json']],
  ],
  [
    ['lint', npm, ['run', '--silent', 'lint']],
    ['wrapped CLIs', process.execPath, ['scripts/harness-clis.ts']],
  ],
];

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

async function lane(steps: Step[]): Promise<number> {
  for (const step of steps) {
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
const codes = await Promise.all(LANES.map(lane));
process.exitCode = codes.find((code) => code !== 0) ?? 0;
