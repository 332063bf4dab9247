/**
 * `agentpipe exec`'s command line as codex exec takes it: errors, the prompt (after `--` too), resume and fork, plain
 * output, the config keys that reach the model request, `--image` and `--add-dir`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseLines, runCli } from '../helpers/cli.ts';
import { scratchDir } from '../helpers/temp.ts';
import { parseOverride } from '../../src/codex/config-overrides.ts';
import { anthropicBlock, anthropicStream, startFakeServer } from '../model/fake-servers.ts';
import { chatCompletionsServer, codexDirs } from './helpers.ts';

/** Runs `agentpipe exec` in `cwd` with a scripted model of `turns`. */
async function exec(
  dir: { cwd: string; home: string },
  args: string[],
  o: { turns?: unknown[]; stdin?: string; env?: Record<string, string> } = {},
) {
  const script = path.join(dir.home, `script-${Math.random()}.json`);
  writeFileSync(script, JSON.stringify({ turns: o.turns ?? [{ text: 'Done.' }] }));
  const scripted = o.turns ? ['-c', `agentpipe.script=${JSON.stringify(script)}`] : [];
  return runCli(['exec', ...scripted, ...args], {
    cwd: dir.cwd,
    stdin: o.stdin ?? '',
    env: { AGENTPIPE_HOME: dir.home, ...o.env },
  });
}

test('a flag codex exec does not have is one clear error (exit 2), nothing on stdout', async () => {
  const dir = codexDirs('flags');
  const bogus = await exec(dir, ['--json', '--bogus', 'hi']);
  assert.equal(bogus.code, 2);
  assert.equal(bogus.stdout, '');
  assert.match(bogus.stderr, /^error: unexpected argument '--bogus' found\n/);
  const sandbox = await exec(dir, ['--sandbox', 'everything', 'hi']);
  assert.equal(sandbox.code, 2);
  assert.match(sandbox.stderr, /invalid value 'everything' for '--sandbox <SANDBOX_MODE>'/);
  const oss = await exec(dir, ['--oss', 'hi']);
  assert.equal(oss.code, 2);
  assert.match(oss.stderr, /--oss is not supported by agentpipe exec: use -c openai_base_url/);
  const extra = await exec(dir, ['one', 'two']);
  assert.equal(extra.code, 2);
  assert.match(extra.stderr, /unexpected argument 'two' found/);
  const policy = await exec(dir, ['-c', 'approval_policy="sometimes"', 'hi'], { turns: [] });
  assert.equal(policy.code, 2);
  assert.match(policy.stderr, /-c approval_policy: unknown value "sometimes"/);
});

test('outside a git repository without --skip-git-repo-check: codex refuses, and so does agentpipe exec', async () => {
  const dir = codexDirs('git');
  const cwd = scratchDir('codex-nogit-');
  const refused = await runCli(['exec', '--json', 'hi'], { cwd, env: { AGENTPIPE_HOME: dir.home } });
  assert.equal(refused.code, 1);
  assert.equal(refused.stdout, '');
  assert.match(refused.stderr, /Not inside a trusted directory and --skip-git-repo-check was not specified\./);
  const script = path.join(dir.home, 'script.json');
  writeFileSync(script, JSON.stringify({ turns: [{ text: 'Fine.' }] }));
  const ok = await runCli(['exec', '--json', '--skip-git-repo-check', '-c', `agentpipe.script="${script}"`, 'hi'], {
    cwd,
    env: { AGENTPIPE_HOME: dir.home },
  });
  assert.equal(ok.code, 0, ok.stderr);
});

test('the prompt: on stdin, or an argument with piped stdin appended as a <stdin> block', async () => {
  const server = await chatCompletionsServer([{ text: 'Read it.' }]);
  try {
    const dir = codexDirs('prompt');
    const env = { CODEX_API_KEY: 'sk-test', OPENAI_BASE_URL: `${server.url}/v1` };
    const onStdin = await exec(dir, ['--json', '--model', 'gpt-test'], { stdin: 'the whole prompt\n', env });
    assert.equal(onStdin.code, 0, onStdin.stderr);
    const both = await exec(dir, ['--json', '--model', 'gpt-test', 'summarize this'], { stdin: 'log line 1\n', env });
    assert.equal(both.code, 0, both.stderr);
    const prompts = server.requests.map((r) => JSON.stringify(r.body.messages.at(-1)));
    assert.match(prompts[0]!, /the whole prompt/);
    assert.match(prompts[1]!, /summarize this\\n\\n<stdin>\\nlog line 1\\n<\/stdin>/);
    const none = await exec(dir, ['--json'], { stdin: '' });
    assert.equal(none.code, 1);
    assert.match(none.stderr, /No prompt provided via stdin\./);
  } finally {
    await server.close();
  }
});

test('without --json: the final message on stdout; -o writes it to a file; unknown -c keys are named once', async () => {
  const dir = codexDirs('plain');
  const out = path.join(dir.home, 'last.txt');
  const run = await exec(
    dir,
    ['-o', out, '-c', 'show_raw_agent_reasoning=true', '-c', 'hide_agent_reasoning=1', 'hi'],
    {
      turns: [
        { text: 'Working.', tool_calls: [{ name: 'Bash', input: { command: 'echo step' } }] },
        { text: 'Final answer.' },
      ],
    },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, 'Final answer.\n');
  assert.equal(readFileSync(out, 'utf8'), 'Final answer.');
  assert.match(run.stderr, /-c show_raw_agent_reasoning, hide_agent_reasoning has no effect in agentpipe/);
  assert.match(run.stderr, /exec\necho step/);
});

test('resume <id> continues the session, resume --last the latest one, fork <id> copies it under a new id', async () => {
  const dir = codexDirs('resume');
  const first = await exec(dir, ['--json', 'first'], { turns: [{ text: 'One.' }] });
  assert.equal(first.code, 0, first.stderr);
  const threadId = (parseLines(first.stdout)[0] as { thread_id: string }).thread_id;
  const resumed = await exec(dir, ['--json', 'resume', threadId, 'second'], { turns: [{ text: 'Two.' }] });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.deepEqual(parseLines(resumed.stdout)[0], { type: 'thread.started', thread_id: threadId });
  const last = await exec(dir, ['--json', 'resume', '--last', 'third'], { turns: [{ text: 'Three.' }] });
  assert.deepEqual(parseLines(last.stdout)[0], { type: 'thread.started', thread_id: threadId });
  const forked = await exec(dir, ['--json', 'fork', threadId, 'fourth'], { turns: [{ text: 'Four.' }] });
  assert.equal(forked.code, 0, forked.stderr);
  const forkId = (parseLines(forked.stdout)[0] as { thread_id: string }).thread_id;
  assert.notEqual(forkId, threadId);
  const unknown = await exec(dir, ['--json', 'resume', '0d9c1b2e-0000-4000-8000-000000000000', 'x'], { turns: [] });
  assert.equal(unknown.code, 1);
  assert.equal(unknown.stdout, '');
  assert.match(unknown.stderr, /^Error: /m);
});

test('a failed model request: error then turn.failed, exit 1 (as codex exec)', async () => {
  const dir = codexDirs('failed');
  const run = await exec(dir, ['--json', 'hi'], {
    turns: [{ error: { status: 401, message: 'invalid x-api-key' } }],
    env: { CLAUDE_CODE_MAX_RETRIES: '0' },
  });
  assert.equal(run.code, 1);
  const lines = parseLines(run.stdout);
  assert.deepEqual(
    lines.map((l) => l.type),
    ['thread.started', 'turn.started', 'error', 'turn.failed'],
  );
  assert.equal(lines[2]!.message, lines[3]!.error.message);
  // The text agentpipe's other faces show for a rejected key (Claude Code's words).
  assert.match(lines[3]!.error.message, /Not logged in/);
});

test('-c values are TOML as the Codex SDK writes them; a value that is not TOML is a literal string', () => {
  assert.deepEqual(parseOverride('model="gpt-5"'), { key: 'model', value: 'gpt-5' });
  assert.deepEqual(parseOverride('sandbox_workspace_write.network_access=true'), {
    key: 'sandbox_workspace_write.network_access',
    value: true,
  });
  assert.deepEqual(parseOverride('a.b=1_000'), { key: 'a.b', value: 1000 });
  assert.deepEqual(parseOverride('list=["x", 2, false]'), { key: 'list', value: ['x', 2, false] });
  assert.deepEqual(parseOverride('t={ x = 1, "y z" = \'lit\' }'), { key: 't', value: { x: 1, 'y z': 'lit' } });
  assert.deepEqual(parseOverride('s="\\u00e9\\U0001F600"'), { key: 's', value: 'é😀' });
  assert.deepEqual(parseOverride('raw=hello world'), { key: 'raw', value: 'hello world' });
  assert.throws(() => parseOverride('novalue'), /missing '='/);
});

test('--image attaches files to the prompt; a missing or unknown image is an error', async () => {
  const server = await chatCompletionsServer([{ text: 'A pixel.' }]);
  try {
    const dir = codexDirs('image');
    const png = path.join(dir.cwd, 'pixel.png');
    mkdirSync(path.dirname(png), { recursive: true });
    writeFileSync(png, Buffer.from('89504e470d0a1a0a', 'hex'));
    const env = { CODEX_API_KEY: 'sk-test', OPENAI_BASE_URL: `${server.url}/v1` };
    const ok = await exec(dir, ['--json', '--model', 'gpt-test', '--image', png, 'what is it?'], { env });
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(JSON.stringify(server.requests[0]!.body.messages.at(-1)), /data:image\/png;base64,iVBORw0KGgo=/);
    const missing = await exec(dir, ['--json', '--image', 'nope.png', 'x'], { env });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /--image nope\.png: cannot read it \(ENOENT\)/);
  } finally {
    await server.close();
  }
});

test('-c model_reasoning_effort reaches the model request; a prompt after -- is the prompt, dashes and all', async () => {
  const server = await chatCompletionsServer([{ text: 'Fine.' }]);
  try {
    const dir = codexDirs('effort');
    const env = { CODEX_API_KEY: 'sk-test', OPENAI_BASE_URL: `${server.url}/v1` };
    const json = ['--json', '--model', 'gpt-test'];
    const effort = await exec(dir, [...json, '-c', 'model_reasoning_effort="high"', '--', '--help me out'], { env });
    assert.equal(effort.code, 0, effort.stderr);
    const plain = await exec(dir, [...json, 'plain'], { env });
    assert.equal(plain.code, 0, plain.stderr);
    const [first, second] = server.requests.map((r) => r.body);
    assert.equal(first.reasoning_effort, 'high');
    assert.equal(second.reasoning_effort, undefined);
    assert.deepEqual(first.messages.at(-1), { role: 'user', content: '--help me out' });
    const bad = await exec(dir, [...json, '-c', 'model_reasoning_effort="extreme"', 'x'], { env });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /-c model_reasoning_effort: unknown effort "extreme"/);
  } finally {
    await server.close();
  }
});

test('-c web_search="disabled" takes WebSearch out of the tools the model is offered', async () => {
  const frames = anthropicStream(
    [anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'Fine.' }])],
    'end_turn',
  );
  const server = await startFakeServer({ kind: 'sse', frames });
  try {
    const dir = codexDirs('web-search');
    const env = { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.url };
    const json = ['--json', '--model', 'claude-sonnet-4-6'];
    const on = await exec(dir, [...json, 'search if you like'], { env });
    assert.equal(on.code, 0, on.stderr);
    const off = await exec(dir, [...json, '-c', 'web_search="disabled"', 'no search'], { env });
    assert.equal(off.code, 0, off.stderr);
    const tools = (n: number) => (server.requests[n]!.body.tools as Array<{ name: string }>).map((t) => t.name);
    assert.ok(tools(0).includes('WebSearch'));
    assert.deepEqual(
      tools(1),
      tools(0).filter((name) => name !== 'WebSearch'),
    );
  } finally {
    await server.close();
  }
});

test('--add-dir: a file in the added folder is read in a read-only sandbox; without it, the read is declined', async () => {
  const dir = codexDirs('add-dir');
  const other = scratchDir('codex-other-');
  writeFileSync(path.join(other, 'shared.txt'), 'from the other folder\n');
  const turns = [
    { tool_calls: [{ name: 'Read', input: { file_path: path.join(other, 'shared.txt') } }] },
    { text: 'Read.' },
  ];
  const read = (args: string[]) => exec(dir, ['--json', '--sandbox', 'read-only', ...args, 'read it'], { turns });
  const item = (stdout: string) =>
    parseLines(stdout).find((l) => l.type === 'item.completed' && l.item.type === 'mcp_tool_call')!.item;
  const added = await read(['--add-dir', other]);
  assert.equal(added.code, 0, added.stderr);
  assert.equal(item(added.stdout).status, 'completed');
  assert.match(JSON.stringify(item(added.stdout).result), /from the other folder/);
  const without = await read([]);
  assert.equal(without.code, 0, without.stderr);
  assert.equal(item(without.stdout).status, 'failed');
  assert.doesNotMatch(JSON.stringify(item(without.stdout)), /from the other folder/);
});
