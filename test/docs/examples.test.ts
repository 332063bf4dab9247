/**
 * The examples in examples/ run as written, and the README and docs show them verbatim (so an example cannot rot):
 * each file is executed with the pinned Node against the built package, as a user's project imports it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CLI_PATH, ROOT } from '../helpers/cli.ts';
import { tempDir } from '../helpers/workspace.ts';
import { anthropicBlock, anthropicStream, startFakeServer } from '../model/fake-servers.ts';

const example = (name: string) => readFileSync(path.join(ROOT, 'examples', name), 'utf8');

/** Runs examples/`name` in `cwd` (the package imports itself by name: `import ... from 'agentpipe'`). */
function runExample(name: string, cwd: string, env: Record<string, string>, args: string[] = []) {
  const child = spawn(process.execPath, [path.join(ROOT, 'examples', name), ...args], {
    cwd,
    env: { ...process.env, ANTHROPIC_API_KEY: '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.end();
  let [stdout, stderr] = ['', ''];
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
}

test('README: the query() example is examples/query.ts; a failed run reports failed (exit 1), a good one its answer', async () => {
  assert.ok(readFileSync(path.join(ROOT, 'README.md'), 'utf8').includes(example('query.ts')));
  const cwd = tempDir({ 'a.ts': 'export const a = 1;\n' });
  const failed = await runExample('query.ts', cwd, {});
  assert.equal(failed.code, 1, failed.stderr);
  assert.match(failed.stderr, /^failed \(success\): No Anthropic API key/);
  assert.equal(failed.stdout, '');
  const frames = anthropicStream(
    [anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'One file: a.ts.' }])],
    'end_turn',
  );
  const api = await startFakeServer({ kind: 'sse', frames });
  try {
    const ok = await runExample('query.ts', cwd, { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-ant-x' });
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /^One file: a\.ts\.\ncost \$\d+\.\d{4}, denied: 0\n$/);
  } finally {
    await api.close();
  }
});

/** Starts `agentpipe serve` as the README shows it (port 0: any free port); resolves with its URL and the process. */
async function startServe(args: string[], cwd: string) {
  const child = spawn(process.execPath, [CLI_PATH, ...args], {
    cwd,
    env: { ...process.env, ANTHROPIC_API_KEY: '' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      const found = /listening on (ws:\/\/\S+?)\/?(?:\?\S*)? /.exec(stderr);
      if (found) resolve(`${found[1]}/`);
    });
    child.on('close', () => reject(new Error(`serve ended: ${stderr}`)));
  });
  return { url, stop: () => new Promise((resolve) => (child.on('close', resolve), child.kill('SIGTERM'))) };
}

test('README: the serve example and examples/serve-client.ts: one prompt over a WebSocket, its result', async () => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  assert.ok(readme.includes(example('serve-client.ts')));
  const command = /^agentpipe (serve --port 0 --token secret --model scripted)\s/m.exec(readme);
  assert.ok(command, 'the README shows the serve command');
  const cwd = tempDir({ 'NOTES.md': '# Notes\n' });
  const server = await startServe(command[1]!.split(' '), cwd);
  try {
    const client = await runExample('serve-client.ts', cwd, {}, [server.url, 'secret']);
    assert.equal(client.code, 0, client.stderr);
    assert.match(client.stdout, /NOTES\.md/);
  } finally {
    await server.stop();
  }
});

test('README: examples/official-sdk.ts runs the official Claude Agent SDK on the agentpipe on PATH', async () => {
  assert.ok(readFileSync(path.join(ROOT, 'README.md'), 'utf8').includes(example('official-sdk.ts')));
  const cwd = tempDir({ 'NOTES.md': '# Notes\n' });
  const run = await runExample('official-sdk.ts', cwd, {
    // The checkout's launcher is the agentpipe on PATH; the pinned Node first (the SDK starts `node`).
    PATH: [ROOT, path.dirname(process.execPath), process.env.PATH ?? ''].join(path.delimiter),
  });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^tools: .*Bash.*\n/);
  assert.match(run.stdout, /NOTES\.md/);
});
