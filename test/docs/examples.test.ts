/**
 * The examples of docs/trust.md and docs/servers.md, run as written. A ```console block is a shell
 * session: each `$ command` runs with `sh` (an `agentpipe` on PATH runs the built CLI) and the lines
 * after it are its output, stdout then stderr, where `…` stands for any text; a command ending in
 * ` &` keeps running in the background until its lines appeared and the block ends. A ```ts block
 * runs with `agentpipe` imported from the build. Each page gets the folder its examples talk about.
 *
 * The examples in examples/ run as written too, and the README shows them verbatim (so an example cannot rot): each
 * file is executed with the pinned Node against the built package, as a user's project imports it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CLI_PATH, ROOT } from '../helpers/cli.ts';
import { scratchDir } from '../helpers/temp.ts';
import { FIXTURE } from '../mcp/helpers.ts';
import { docsShellEnv } from './shell.ts';
import { clonedRepository } from '../helpers/git-clone.ts';
import { tempDir } from '../helpers/workspace.ts';
import { runToEnd } from '../helpers/processes.ts';
import { anthropicBlock, anthropicStream, startFakeServer } from '../model/fake-servers.ts';

interface Place {
  cwd: string;
  env: Record<string, string>;
  /** Paths as the page writes them, and as they are here. */
  paths: Array<[string, string]>;
}

/** A shell with `agentpipe` on PATH and a throwaway AGENTPIPE_HOME. */
function basePlace(cwd: string): Place {
  return { cwd, env: docsShellEnv(), paths: [] };
}

/** docs/trust.md talks about /home/me/repo: a real clone of a repository with hooks, rules, an MCP server, an agent. */
function trustPlace(): Place {
  const repo = clonedRepository({
    '.agentpipe/settings.json': JSON.stringify({
      hooks: { SessionStart: [{ hooks: [{ type: 'command', command: 'touch hook-ran' }] }] },
      permissions: { allow: ['Bash'] },
      mcpServers: { tools: { command: process.execPath, args: [FIXTURE] } },
    }),
    '.agentpipe/agents/reviewer.md': '---\ndescription: Reviews\n---\nReview.\n',
  });
  const place = basePlace(repo);
  place.paths.push(['/home/me/repo', repo]);
  return place;
}

/** docs/servers.md runs in a folder with a saved session. */
function serversPlace(): Place {
  const cwd = scratchDir('docs-servers-');
  writeFileSync(
    path.join(cwd, 'saved.jsonl'),
    `${JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'ok', session_id: 's' })}\n`,
  );
  return basePlace(cwd);
}

/** The fenced blocks of a page with this info string. */
function blocks(page: string, info: string): string[] {
  return [...page.matchAll(new RegExp(`^\`\`\`${info}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1]!);
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** An expected line as a pattern: the page's paths replaced, `…` any text. */
const pattern = (line: string, place: Place): RegExp => {
  let text = line;
  for (const [written, real] of place.paths) text = text.split(written).join(real);
  return new RegExp(`^${text.split('…').map(escape).join('.*')}$`);
};

function unmatched(actual: string[], expected: string[], place: Place): string | undefined {
  if (actual.length !== expected.length) return `${actual.length} lines, expected ${expected.length}`;
  const bad = expected.findIndex((line, i) => !pattern(line, place).test(actual[i]!));
  return bad < 0 ? undefined : `line ${bad + 1}: ${actual[bad]}\n  expected: ${expected[bad]}`;
}

const linesOf = (text: string) => text.split('\n').filter((line) => line !== '');

/** Runs one console block; background commands are stopped at its end. */
async function runConsole(block: string, place: Place): Promise<void> {
  const steps: Array<{ command: string; output: string[] }> = [];
  for (const line of block.split('\n').filter((l) => l !== '')) {
    if (line.startsWith('$ ')) steps.push({ command: line.slice(2), output: [] });
    else steps.at(-1)!.output.push(line);
  }
  const background: ChildProcess[] = [];
  try {
    for (const { command, output } of steps) {
      const behind = command.endsWith(' &');
      const child = spawn('sh', ['-c', behind ? `exec ${command.slice(0, -2)}` : command], {
        cwd: place.cwd,
        env: { ...process.env, ...place.env },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      child.stdin.end();
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      if (behind) {
        background.push(child);
        const deadline = Date.now() + 20_000;
        while (unmatched([...linesOf(stdout), ...linesOf(stderr)], output, place)) {
          assert.ok(
            Date.now() < deadline,
            `${command}: ${unmatched([...linesOf(stdout), ...linesOf(stderr)], output, place)}`,
          );
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        continue;
      }
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      const problem = unmatched([...linesOf(stdout), ...linesOf(stderr)], output, place);
      assert.equal(problem, undefined, `${command}: ${problem}\n${stdout}${stderr}`);
      assert.equal(code === 0, !output.some((line) => / error: /.test(line)), `${command}: exit code ${code}`);
    }
  } finally {
    for (const child of background) child.kill('SIGTERM');
  }
}

/** Runs a ts block with `agentpipe` imported from the build; its stdout. */
function runTs(block: string, place: Place): string {
  let source = block.replace(
    /from 'agentpipe'/g,
    `from ${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist/index.js')).href)}`,
  );
  for (const [written, real] of place.paths) source = source.split(written).join(real);
  const file = path.join(scratchDir('docs-ts-'), 'example.ts');
  writeFileSync(file, source);
  return execFileSync(process.execPath, [file], {
    cwd: place.cwd,
    env: { ...process.env, ...place.env },
    encoding: 'utf8',
  });
}

const read = (name: string) => readFileSync(path.join(ROOT, 'docs', name), 'utf8');

test('docs/trust.md: the session with agentpipe trust runs as shown; the library example applies nothing untrusted', async () => {
  const place = trustPlace();
  const page = read('trust.md');
  const sessions = blocks(page, 'console');
  assert.equal(sessions.length, 2);
  for (const block of sessions) await runConsole(block, place);
  const [example] = blocks(page, 'ts');
  // After `agentpipe trust --remove`: settingSources names the project, trustProject: false waits for trust.
  assert.equal(runTs(example!, place), 'general-purpose\n');
});

test('docs/servers.md: the token and the depth-limit examples run as shown', async () => {
  const place = serversPlace();
  const sessions = blocks(read('servers.md'), 'console');
  assert.equal(sessions.length, 2);
  for (const block of sessions) await runConsole(block, place);
});

const example = (name: string) => readFileSync(path.join(ROOT, 'examples', name), 'utf8');

/** Runs examples/`name` in `cwd` (the package imports itself by name: `import ... from 'agentpipe'`). */
function runExample(name: string, cwd: string, env: Record<string, string>, args: string[] = []) {
  const file = path.join(ROOT, 'examples', name);
  return runToEnd(process.execPath, [file, ...args], { cwd, env: { ...process.env, ANTHROPIC_API_KEY: '', ...env } });
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
