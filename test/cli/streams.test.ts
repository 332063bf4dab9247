/** Streams and processes: slow consumers, closed pipes, bad flags. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, openSync, readFileSync, readSync } from 'node:fs';
import { Socket } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CLI_PATH, runCli, scriptedStreamArgs, startCli } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

const dir = tempDir();

test('a 10 MB tool output through a slow consumer: no line lost or cut', async () => {
  const lines = 100_000;
  const script = writeScript(dir, [
    { tool_calls: [{ name: 'Bash', input: { command: `seq -f 'line %06g ${'x'.repeat(90)}' 1 ${lines}` } }] },
    { text: 'done' },
  ]);
  const child = startCli(['-p', 'go', ...scriptedStreamArgs(script), '--allowedTools', 'Bash'], {
    cwd: dir,
    env: { BASH_MAX_OUTPUT_LENGTH: String(20 * 1024 * 1024) },
  });
  child.stdin!.end();
  const chunks: Buffer[] = [];
  // Read slowly: pause after every chunk so the CLI's writes must wait for 'drain'.
  child.stdout!.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    child.stdout!.pause();
    setTimeout(() => child.stdout!.resume(), 2);
  });
  const code = await new Promise((resolve) => child.on('close', resolve));
  assert.equal(code, 0);
  const out = Buffer.concat(chunks)
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const toolResult = out.find((l) => l.type === 'user').message.content[0].content as string;
  const got = toolResult.split('\n');
  assert.equal(got.length, lines);
  assert.ok(toolResult.length > 10_000_000);
  got.forEach((line, i) => assert.equal(line, `line ${String(i + 1).padStart(6, '0')} ${'x'.repeat(90)}`));
  assert.equal(out.at(-1).type, 'result');
  assert.equal(out.at(-1).result, 'done');
});

/** Every line of a streamed run (deltas, then the result) parses, in order. */
function assertWholeRun(out: string, deltas: number): void {
  const lines = out
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);
  const text = lines
    .filter((l) => l.type === 'stream_event' && l.event.type === 'content_block_delta')
    .map((l) => l.event.delta.text as string)
    .join('');
  assert.equal(text, 'ü'.repeat(deltas));
  assert.equal(lines.at(-1)!.type, 'result');
  assert.equal(lines.at(-1)!.result, 'ü'.repeat(deltas));
}

test('stdout a FIFO made non-blocking by the parent mid-run, read slowly: no byte lost (EAGAIN hands over to the stream)', async (t) => {
  const deltas = 20_000; // ~4 MB of lines: far more than a pipe holds
  const script = writeScript(dir, [{ text: 'ü'.repeat(deltas), chunk_size: 1 }], 'fifo.json');
  const fifo = path.join(dir, 'out.fifo');
  execFileSync('mkfifo', [fifo]);
  const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const writer = openSync(fifo, constants.O_WRONLY);
  const args = [CLI_PATH, '-p', 'go', ...scriptedStreamArgs(script), '--include-partial-messages'];
  const child = spawn(process.execPath, args, {
    cwd: dir,
    stdio: ['ignore', writer, 'pipe'],
    env: { ...process.env, ANTHROPIC_API_KEY: '' },
  });
  t.after(() => child.kill('SIGKILL'));
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const parts: Buffer[] = [];
  const buffer = Buffer.alloc(16 * 1024);
  /** One read: bytes, 0 at the end (no writer left), or undefined when the FIFO is empty. */
  const readOnce = (): number | undefined => {
    try {
      const n = readSync(reader, buffer);
      if (n > 0) parts.push(Buffer.from(buffer.subarray(0, n)));
      return n;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      return undefined;
    }
  };
  // Once the child writes (libuv made its stdout blocking when it started), the parent turns the
  // shared file description non-blocking, as a parent that keeps the pipe's other copy may do:
  // libuv's uv_pipe_open, under net.Socket, sets O_NONBLOCK on the descriptor it wraps.
  while (readOnce() === undefined) await sleep(1);
  const parentCopy = new Socket({ fd: writer, readable: false, writable: true });
  const flags = /flags:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/fdinfo/1`, 'utf8'))![1]!;
  assert.ok((parseInt(flags, 8) & constants.O_NONBLOCK) !== 0, `O_NONBLOCK in the child's stdout flags ${flags}`);
  parentCopy.destroy();
  for (;;) {
    const n = readOnce();
    if (n === 0) break; // every writer closed: the child is done
    await sleep(n === undefined ? 2 : 1); // slowly: the FIFO fills and the child's writes would block
  }
  closeSync(reader);
  assert.equal(await exited, 0, stderr);
  assertWholeRun(Buffer.concat(parts).toString('utf8'), deltas);
});

test('stdout a regular file: the whole run is in it', async () => {
  const deltas = 5_000;
  const script = writeScript(dir, [{ text: 'ü'.repeat(deltas), chunk_size: 1 }], 'file.json');
  const file = path.join(dir, 'out.jsonl');
  const fd = openSync(file, 'w');
  const child = spawn(
    process.execPath,
    [CLI_PATH, '-p', 'go', ...scriptedStreamArgs(script), '--include-partial-messages'],
    {
      cwd: dir,
      stdio: ['ignore', fd, 'inherit'],
      env: { ...process.env, ANTHROPIC_API_KEY: '' },
    },
  );
  closeSync(fd);
  assert.equal(await new Promise((resolve) => child.on('close', resolve)), 0);
  assertWholeRun(readFileSync(file, 'utf8'), deltas);
});

test('EPIPE: `| head -1` ends quietly with exit 0', async () => {
  const script = writeScript(dir, [{ text: 'x'.repeat(200_000), chunk_size: 1 }], 'epipe.json');
  const shell = spawn(
    'bash',
    [
      '-c',
      `"${process.execPath}" "${CLI_PATH}" -p go --model scripted --script ${script} --output-format ` +
        `stream-json --verbose --include-partial-messages | head -1; echo "status=\${PIPESTATUS[0]}" >&2`,
    ],
    {
      cwd: dir,
      env: { ...process.env, ANTHROPIC_API_KEY: '' },
    },
  );
  let stdout = '';
  let stderr = '';
  shell.stdout.on('data', (d) => (stdout += d));
  shell.stderr.on('data', (d) => (stderr += d));
  await new Promise((resolve) => shell.on('close', resolve));
  assert.equal(JSON.parse(stdout).subtype, 'init');
  assert.match(stderr, /status=0/);
  assert.doesNotMatch(stderr, /Error|at /);
});

test('an unknown flag: one line on stderr, exit 1', async () => {
  const run = await runCli(['-p', 'hi', '--no-such-flag'], { cwd: dir });
  assert.equal(run.code, 1);
  assert.equal(run.stdout, '');
  assert.equal(run.stderr.trim().split('\n').length, 1);
  assert.match(run.stderr, /unknown option '--no-such-flag'/);
});

test('invalid flag values and a missing prompt are one-line errors', async () => {
  for (const [args, message] of [
    [['-p', 'hi', '--max-turns', 'zero'], /--max-turns must be a whole number/],
    [['-p', 'hi', '--output-format', 'xml'], /Allowed choices are text, json, stream-json/],
    [['-p', 'hi', '--script', 'missing.json'], /--script missing.json: no such file/],
    [['-p'], /Input must be provided/],
  ] as const) {
    const run = await runCli([...args], { cwd: dir });
    assert.equal(run.code, 1, args.join(' '));
    assert.match(run.stderr, message);
    assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
  }
});

test('a malformed script file is a clear error', async () => {
  const script = writeScript(dir, [], 'bad.json');
  await import('node:fs/promises').then((fs) => fs.writeFile(script, '{"turns": 3}'));
  const run = await runCli(['-p', 'hi', '--script', script], { cwd: dir });
  assert.equal(run.code, 1);
  assert.match(run.stderr, /invalid script .*expected \{"turns": \[\.\.\.\]\}/);
});

test('--version and --help', async () => {
  assert.match((await runCli(['--version'])).stdout, /^\d+\.\d+\.\d+\n$/);
  const help = await runCli(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--output-format <format>/);
});

test('--verbose says when a model has no known price (its cost is 0)', async () => {
  const mystery = ['-p', 'hi', '--provider', 'scripted', '--model', 'mystery-model', '--output-format', 'json'];
  const run = await runCli([...mystery, '--verbose'], { cwd: dir });
  assert.match(run.stderr, /no price is known for model "mystery-model"; its cost is reported as 0/);
  assert.equal(JSON.parse(run.stdout).at(-1).total_cost_usd, 0);
  assert.equal((await runCli(mystery, { cwd: dir })).stderr, '', 'only with --verbose');
  assert.doesNotMatch(
    (await runCli(['-p', 'hi', '--verbose', '--output-format', 'json'], { cwd: dir })).stderr,
    /no price/,
    'the scripted model is free, not unknown',
  );
});
