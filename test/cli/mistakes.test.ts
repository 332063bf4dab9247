/**
 * Every mistake is one clear line with the way out, through the real CLI: a mistyped command never runs as a prompt,
 * `help <command>`, a port in use, session flags given to `worker`, and the library's missing cwd.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import path from 'node:path';
import { mkdirSync, writeFileSync } from 'node:fs';
import { CLI_PATH, parseLines, runCli, type RunResult } from '../helpers/cli.ts';
import { DEMO_NOTICE } from '../../src/model/resolve.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { query } from '../../src/index.ts';
import { closedPort } from '../helpers/ports.ts';

/** One line on stderr, exit 1, nothing on stdout, no stack trace. */
function oneLineError(result: RunResult, pattern: RegExp): void {
  assert.equal(result.code, 1, result.stderr);
  assert.equal(result.stdout, '');
  assert.equal(result.stderr.split('\n').filter(Boolean).length, 1, result.stderr);
  assert.doesNotMatch(result.stderr, /internal error|\n\s+at /);
  assert.match(result.stderr, pattern);
}

test('a mistyped or unknown command is refused with the nearest command and the way to send it as a prompt', async () => {
  // A script that would answer if a model ran: it must not.
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'A MODEL RAN' }]);
  const cases: Array<[string[], RegExp]> = [
    [['sesions'], /^agentpipe: error: unknown command 'sesions' \(did you mean sessions\?\); .*agentpipe -p sesions/],
    [['serv', '--port', '0'], /unknown command 'serv' \(did you mean serve\?\)/],
    [['completion'], /^agentpipe: error: unknown command 'completion'; .*: agentpipe -p completion /],
    [['help', 'sevre'], /^agentpipe: error: no command 'sevre' \(did you mean serve\?\); agentpipe help lists/],
  ];
  for (const [args, pattern] of cases) oneLineError(await runCli(args, { cwd: dir }), pattern);
  // With -p a word is a prompt; so is a prompt of several words, and a word after the flags (as scripts write it).
  for (const args of [['-p', 'serv'], ['list the files'], ['--model', 'scripted', 'atach']]) {
    const run = await runCli([...args, '--script', script, '--model', 'scripted'], { cwd: dir });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'A MODEL RAN\n');
  }
});

test('agentpipe help [command] prints the help of the program or of the command, exit 0', async () => {
  const cases: Array<[string[], RegExp]> = [
    [['help'], /^Usage: agentpipe \[options\] \[command\] \[prompt\]/],
    [['help', 'serve'], /^Usage: agentpipe serve \[options\]/],
    // serve and view --live take the session flags: their help says so.
    [['serve', '--help'], /takes? the model and session flags \(--model,\s+--permission-mode, --cwd/],
    [['view', '--help'], /take the model and session flags\s+\(--model, --permission-mode, --cwd/],
    [['help', 'sandbox', 'doctor'], /^Usage: agentpipe sandbox doctor \[options\]/],
    [['help', 'acp'], /^Usage: agentpipe acp \[options\]/],
    [['help', 'exec'], /codex exec|Usage: agentpipe exec/i],
  ];
  for (const [args, pattern] of cases) {
    const run = await runCli(args);
    assert.equal(run.code, 0, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stdout, pattern);
  }
});

test('serve, view --live and view of a file on a port in use: one line naming the port and the way out, exit 1', async () => {
  const taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const port = (taken.address() as net.AddressInfo).port;
  const dir = tempDir({
    'saved.jsonl': `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'hi' }, uuid: 'u' })}\n`,
  });
  const saved = path.join(dir, 'saved.jsonl');
  try {
    const line = new RegExp(`^agentpipe: error: port ${port} is in use: pick another --port, or --port 0`);
    for (const args of [
      ['serve', '--port', String(port)],
      ['view', '--live', '--port', String(port)],
      ['view', saved, '--port', String(port)],
    ])
      oneLineError(await runCli(args, { cwd: dir }), line);
  } finally {
    await new Promise((resolve) => taken.close(resolve));
  }
});

test('worker refuses the session flags it would ignore, naming them and where they belong', async () => {
  const run = await runCli(['worker', '--redis', 'redis://127.0.0.1:1', '--model', 'scripted', '--cwd', '/no/such']);
  oneLineError(run, /^agentpipe worker: error: --model, --cwd are session flags: .*agentpipe serve --redis/);
  // Before the subcommand too.
  const before = await runCli(['--permission-mode', 'plan', 'worker', '--redis', 'redis://127.0.0.1:1']);
  oneLineError(before, /--permission-mode is a session flag/);
});

test('query() with a cwd that does not exist fails with one clear error, in process and with the CLI as executable', async () => {
  const cwd = '/no/such/project';
  for (const executable of [undefined, CLI_PATH]) {
    const q = query({ prompt: 'hi', options: { cwd, model: 'scripted', ...(executable ? { executable } : {}) } });
    await assert.rejects(
      async () => {
        for await (const message of q) assert.fail(`no message expected, got ${message.type}`);
      },
      { message: `query(): cwd ${cwd}: no such folder (give an existing folder, or leave cwd out)` },
    );
  }
});

test('a model name that cannot be right is one line with the nearest name or the way to a non-Claude model', async () => {
  const dir = tempDir();
  const cases: Array<[string[], RegExp]> = [
    [['--model', 'scriptd'], /^agentpipe: error: unknown model 'scriptd' \(did you mean scripted\?/],
    [['--model', 'claude-sonet-4-6'], /unknown model 'claude-sonet-4-6' \(did you mean claude-sonnet-4-6\?\)/],
    [['--model', 'gpt-4o'], /: gpt-4o is not a Claude model: give --base-url .* or --provider openai/],
    [['--model', 'qwen3:8b'], /: qwen3:8b is not a Claude model: give --base-url/],
  ];
  // Said before the key is looked at: the same with a key as without one.
  for (const env of [{}, { ANTHROPIC_API_KEY: 'sk-ant-test' }])
    for (const [args, pattern] of cases) oneLineError(await runCli(['-p', 'hi', ...args], { cwd: dir, env }), pattern);
  // A Claude model this table does not know yet, and an alias, get as far as the key check.
  for (const model of ['claude-opus-5', 'sonnet']) {
    const run = await runCli(['-p', 'hi', '--model', model], { cwd: dir });
    assert.match(run.stdout, /^No Anthropic API key/, run.stderr);
  }
  // Behind a gateway or with --base-url any name may be right: the request is made (and here refused).
  const gateway = await runCli(['-p', 'hi', '--model', 'gpt-4o'], {
    cwd: dir,
    env: { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: `http://127.0.0.1:${await closedPort()}`, ...NO_RETRY },
  });
  assert.match(gateway.stdout, /^API Error: Connection refused/);
});

test('a connection that fails names the host and port the request went to, and the setting that names them', async () => {
  const dir = tempDir();
  const port = await closedPort();
  const anthropic = await runCli(['-p', 'hi', '--model', 'claude-sonnet-4-6'], {
    cwd: dir,
    env: { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`, ...NO_RETRY },
  });
  assert.equal(anthropic.code, 1);
  assert.equal(
    anthropic.stdout,
    'API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED) · ' +
      `the API at 127.0.0.1:${port} (ANTHROPIC_BASE_URL)\n`,
  );
  const local = await runCli(['-p', 'hi', '--model', 'qwen3:8b', '--base-url', `http://localhost:${port}/v1`], {
    cwd: dir,
    env: NO_RETRY,
  });
  assert.match(local.stdout, new RegExp(`· the API at localhost:${port} \\(--base-url, OPENAI_BASE_URL\\)\\n$`));
  // A name that does not resolve: Claude Code's words for it, and the host.
  const unresolved = await runCli(['-p', 'hi', '--model', 'm', '--base-url', 'http://no-such-host.invalid/v1'], {
    cwd: dir,
    env: NO_RETRY,
  });
  assert.match(
    unresolved.stdout,
    /^API Error: Can't reach the API server — check your internet or DNS \((ENOTFOUND|EAI_AGAIN)\) · /,
  );
  assert.match(unresolved.stdout, / · the API at no-such-host\.invalid:80 \(--base-url, OPENAI_BASE_URL\)\n$/);
});

test('settings: unknown keys and malformed rules are one warning line each naming the file, and the run goes on', async () => {
  const dir = tempDir();
  mkdirSync(path.join(dir, '.agentpipe'));
  const project = path.join(dir, '.agentpipe', 'settings.json');
  const settings = {
    modle: 'claude-opus-4-8',
    env: { X: '1' },
    permissions: { allow: ['Bash(echo hi)', 'Bash(npm test:*', 'bash'], deny: ['Raed(./secret)'] },
  };
  writeFileSync(project, JSON.stringify(settings));
  const script = writeScript(dir, [
    { tool_calls: [{ name: 'Bash', input: { command: 'echo hi' } }] },
    { text: 'done' },
  ]);
  const flag = JSON.stringify({ permissions: { deny: ['WebFetch('] } });
  const run = await runCli(
    ['-p', 'go', '--model', 'scripted', '--script', script, '--trust-project', '--settings', flag, ...STREAM],
    { cwd: dir },
  );
  // The run goes on, and the well-formed rule beside the malformed ones is in effect: echo ran without asking.
  assert.equal(run.code, 0, run.stderr);
  const lines = parseLines(run.stdout);
  const result = lines.find((l) => l.type === 'user' && l.message.content[0]?.type === 'tool_result');
  assert.equal(result?.message.content[0].content, 'hi');
  assert.equal(lines.at(-1)?.type, 'result');
  const at = `agentpipe: warning: project settings ${project}`;
  assert.deepEqual(run.stderr.trimEnd().split('\n'), [
    `${at}: unknown key "modle" (did you mean model?), ignored`,
    `${at}: env is a Claude Code setting agentpipe does not apply, ignored ` +
      '(instead, env: the environment agentpipe starts in)',
    `${at} (permissions.allow): invalid permission rule "Bash(npm test:*" skipped: malformed Tool(content) rule: ` +
      'rules take the form Tool or Tool(content) and must end at the closing ")"; parentheses inside the content ' +
      'are literal',
    `${at} (permissions.allow): invalid permission rule "bash" skipped: ` +
      'tool names start with an uppercase letter (Bash)',
    'agentpipe: warning: --settings (permissions.deny): invalid permission rule "WebFetch(" skipped: malformed ' +
      'Tool(content) rule: rules take the form Tool or Tool(content) and must end at the closing ")"; parentheses ' +
      'inside the content are literal',
    `agentpipe: warning: ${project}: permission deny rule "Raed(./secret)" matches no known tool (did you mean Read?)`,
  ]);
});

test('the offline demo says once on stderr that it is the demo and how to use a real model', async () => {
  const dir = tempDir({ 'notes.txt': 'hello\n' });
  const run = await runCli(['-p', 'Write a haiku about cats'], { cwd: dir });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /notes\.txt/);
  assert.deepEqual(run.stderr.trimEnd().split('\n'), [DEMO_NOTICE]);
  assert.match(DEMO_NOTICE, /offline demo .*ANTHROPIC_API_KEY.*--base-url/);
  // Asked for by name, the scripted model is not a surprise.
  assert.equal((await runCli(['-p', 'hi', '--model', 'scripted'], { cwd: dir })).stderr, '');
});

const STREAM = ['--output-format', 'stream-json', '--verbose'];

/** No retries of a failed request (each would wait). */
const NO_RETRY = { CLAUDE_CODE_MAX_RETRIES: '0' };

test('attach prints stream-json by default; another format is one line saying so; its help says what it prints', async () => {
  const redis = ['--redis', `redis://127.0.0.1:${await closedPort()}`, '--no-follow'];
  oneLineError(
    await runCli(['attach', 'some-session', ...redis, '--output-format', 'text']),
    /^agentpipe attach: error: attach prints stream-json only \(its default\), not text: leave --output-format out/,
  );
  // No format flags: past the format check, to the Redis server (which is not there).
  const plain = await runCli(['attach', 'some-session', ...redis]);
  assert.equal(plain.code, 1);
  assert.doesNotMatch(plain.stderr, /output-format/);
  assert.match(plain.stderr, /redis|Redis/);
  assert.match((await runCli(['help', 'attach'])).stdout, /stream-json, as\s+--output-format stream-json --verbose/);
  // serve and view say they take the model and session flags.
  for (const command of ['serve', 'view'])
    assert.match((await runCli(['help', command])).stdout, /model and session flags\s+\(--model,/, command);
});
