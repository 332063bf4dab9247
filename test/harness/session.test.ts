/**
 * Harnesses behind every face: the real CLI with `--harness` (stream-json, text), agentpipe's
 * `--resume` resuming the wrapped agent's own session, the library's `query()` with the ACP
 * harness round-tripping `agentpipe acp` (its ACP updates and session events keep the faces'
 * properties), and the setup errors a user meets first.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { existsSync, writeFileSync } from 'node:fs';
import { CLI_PATH, parseLines, runCli } from '../helpers/cli.ts';
import { writeScript } from '../helpers/workspace.ts';
import { StreamDriver } from '../helpers/stream-driver.ts';
import { anthropicBlock, anthropicStream, startFakeServer, type RecordedRequest } from '../model/fake-servers.ts';
import { harnessDirs, testPath } from './helpers.ts';
import { SessionEventProjector, query, toAcpUpdates, type AgentMessage } from '../../src/index.ts';

const text = (t: string) =>
  anthropicStream(
    [
      anthropicBlock(0, { type: 'text', text: '' }, [
        { type: 'text_delta', text: t.slice(0, 3) },
        { type: 'text_delta', text: t.slice(3) },
      ]),
    ],
    'end_turn',
  );

async function fakeClaudeApi() {
  const seen: string[] = [];
  const api = await startFakeServer((request: RecordedRequest) => {
    if (request.method !== 'POST' || !request.path.startsWith('/v1/messages'))
      return { kind: 'json', status: 200, body: { input_tokens: 1 } };
    // Claude Code 2.1.332 checks a set_model's model with a small request that does not stream.
    if (request.body?.stream !== true)
      return {
        kind: 'json',
        status: 200,
        body: {
          id: 'msg_check',
          type: 'message',
          role: 'assistant',
          model: String(request.body?.model),
          content: [{ type: 'text', text: 'ok' }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        },
      };
    const messages = JSON.stringify(request.body?.messages ?? []);
    seen.push(messages);
    return { kind: 'sse', frames: text(messages.includes('second') ? 'You said blue.' : 'Noted: blue.') };
  });
  return { api, seen };
}

function claudeEnv(url: string, home: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PATH: testPath(),
    HOME: home,
    AGENTPIPE_HOME: path.join(home, '.agentpipe'),
    ANTHROPIC_API_KEY: 'sk-ant-test',
    AGENTPIPE_PASS_ENV: '',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_MAX_RETRIES: '0',
    CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
  };
}

test("CLI --harness claude: stream-json with one result under agentpipe's session id; --resume <that id> resumes Claude Code's own session", async () => {
  const { api, seen } = await fakeClaudeApi();
  const { home, cwd } = harnessDirs('session-claude');
  const env = claudeEnv(api.url, home);
  try {
    const first = await runCli(
      [
        '-p',
        'first: my colour is blue',
        '--harness',
        'claude',
        '--base-url',
        api.url,
        '--output-format',
        'stream-json',
        '--verbose',
        '--include-partial-messages',
      ],
      { cwd, env, timeoutMs: 60_000 },
    );
    assert.equal(first.code, 0, first.stderr);
    const lines = parseLines(first.stdout);
    const init = lines[0]!;
    assert.equal(init.type, 'system');
    assert.equal(init.subtype, 'init');
    assert.equal(init.harness, 'claude');
    assert.match(init.harness_session_id, /^[0-9a-f-]{36}$/);
    assert.notEqual(init.harness_session_id, init.session_id, "agentpipe's session id is its own");
    const results = lines.filter((l) => l.type === 'result');
    assert.equal(results.length, 1);
    assert.equal(results[0]!.subtype, 'success');
    assert.equal(results[0]!.result, 'Noted: blue.');
    assert.ok(
      lines.every((l) => l.session_id === init.session_id),
      "every line carries agentpipe's session id",
    );
    const deltas = lines
      .filter((l) => l.type === 'stream_event' && l.event.type === 'content_block_delta')
      .map((l) => l.event.delta.text)
      .join('');
    assert.equal(deltas, 'Noted: blue.');

    const second = await runCli(
      ['-p', 'second: what was it?', '--resume', init.session_id, '--harness', 'claude', '--base-url', api.url],
      { cwd, env, timeoutMs: 60_000 },
    );
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.stdout.trim(), 'You said blue.');
    assert.match(seen.at(-1)!, /my colour is blue/, 'Claude Code was resumed with its own history');
  } finally {
    await api.close();
  }
});

test('stream-json input with --harness claude: two prompts on one Claude Code process; set_model reaches it before the second', async () => {
  const { api, seen } = await fakeClaudeApi();
  const models: string[] = [];
  const { home, cwd } = harnessDirs('session-claude-control');
  const env = claudeEnv(api.url, home);
  const driver = new StreamDriver(
    ['--harness', 'claude', '--base-url', api.url, '--model', 'claude-sonnet-4-5'],
    cwd,
    env as Record<string, string>,
  );
  try {
    const first = await driver.prompt('first: my colour is blue');
    assert.equal(first.subtype, 'success', JSON.stringify(first));
    assert.equal((await driver.control({ subtype: 'set_model', model: 'claude-haiku-4-5' })).subtype, 'success');
    const second = await driver.prompt('second: what was it?');
    assert.equal(second.result, 'You said blue.');
    for (const request of api.requests)
      if (request.method === 'POST' && request.path.startsWith('/v1/messages'))
        models.push(String(request.body?.model));
    assert.equal(models[0], 'claude-sonnet-4-5');
    assert.equal(models.at(-1), 'claude-haiku-4-5');
    assert.equal(seen.length, 2, 'one process answered both prompts (no restart: one request each)');
    const inits = driver.lines.filter((l) => l.type === 'system' && l.subtype === 'init');
    assert.equal(new Set(inits.map((l) => l.harness_session_id)).size, 1, 'one Claude Code session');
  } finally {
    await driver.end();
    await api.close();
  }
});

test("library query() with the ACP harness round-trips agentpipe acp; its ACP updates and session events keep the faces' properties", async () => {
  const { cwd } = harnessDirs('session-acp');
  const script = writeScript(cwd, [
    { text: 'Listing.', tool_calls: [{ id: 'toolu_ls', name: 'Bash', input: { command: 'echo listed' } }] },
    { text: 'The folder is listed.' },
  ]);
  const messages: AgentMessage[] = [];
  const q = query({
    prompt: 'list it',
    options: {
      cwd,
      harness: 'acp',
      harnessCommand: `${process.execPath} ${CLI_PATH} acp --model scripted --script ${script}`,
      permissionMode: 'bypassPermissions',
      includePartialMessages: true,
      persistSession: false,
      replayUserMessages: true,
      env: { ...process.env, PATH: testPath() },
    },
  });
  for await (const message of q) messages.push(message);
  const types = messages
    .map((m) => (m.type === 'system' ? `system/${m.subtype}` : m.type === 'user' && m.isReplay ? 'echo' : m.type))
    .filter((t) => t !== 'stream_event' && t !== 'system/status');
  // The prompt's echo follows the system/init the wrapped agent's turn sent, as on agentpipe's own loop.
  assert.deepEqual(types, ['system/init', 'echo', 'assistant', 'assistant', 'user', 'assistant', 'result']);
  const result = messages.at(-1)!;
  assert.ok(result.type === 'result' && result.subtype === 'success' && result.result === 'The folder is listed.');
  const toolResult = messages.find((m) => m.type === 'user' && !m.isReplay);
  assert.match(JSON.stringify(toolResult), /listed/);

  const updates = toAcpUpdates(messages);
  const calls = updates.filter((u) => u.sessionUpdate === 'tool_call');
  assert.equal(calls.length, 1);
  const terminal = updates.filter(
    (u) => u.sessionUpdate === 'tool_call_update' && (u.status === 'completed' || u.status === 'failed'),
  );
  assert.equal(terminal.length, 1, 'one terminal update per tool call');

  const projector = new SessionEventProjector();
  const events = messages.flatMap((m) => projector.push(m));
  const starts = events.filter((e) => e.type === 'tool.execution_start').length;
  const completes = events.filter((e) => e.type === 'tool.execution_complete').length;
  assert.equal(starts, 1);
  assert.equal(completes, 1);
  assert.equal(events.filter((e) => e.type === 'session.idle').length, 1, 'the prompt ends once');
  assert.deepEqual(
    events.filter((e) => e.type === 'user.message').map((e) => e.data),
    [{ content: 'list it' }],
  );
});

test('setup errors: a missing CLI names its package; --harness-command needs --harness; --harness acp needs a command', async () => {
  const { cwd } = harnessDirs('session-errors');
  const env = { ...process.env, PATH: path.dirname(process.execPath) };
  const missing = await runCli(['-p', 'hi', '--harness', 'codex'], { cwd, env });
  assert.notEqual(missing.code, 0);
  assert.match(missing.stderr, /codex CLI is not on PATH \(install it: npm install -g @openai\/codex\)/);
  assert.doesNotMatch(missing.stdout + missing.stderr, /\n\s+at /, 'no stack trace');
  const stray = await runCli(['-p', 'hi', '--harness-command', 'goose acp'], { cwd, env });
  assert.notEqual(stray.code, 0);
  assert.match(stray.stderr, /--harness-command needs --harness/);
  const acp = await runCli(['-p', 'hi', '--harness', 'acp', '--output-format', 'stream-json', '--verbose'], {
    cwd,
    env,
  });
  assert.notEqual(acp.code, 0);
  assert.match(acp.stderr, /--harness acp needs --harness-command/);
  const piped = await runCli(['-p', 'hi', '--harness', 'acp', '--harness-command', 'agent | tee log'], { cwd, env });
  assert.match(piped.stderr, /one plain command/);
});

test("a wrapped agent's permission questions meet the session's rules first: a deny rule wins over canUseTool, read-only commands pass", async () => {
  const { cwd } = harnessDirs('session-acp-rules');
  writeFileSync(path.join(cwd, 'keep.txt'), 'keep me\n');
  const script = writeScript(cwd, [
    { tool_calls: [{ id: 'toolu_rm', name: 'Bash', input: { command: 'rm -f keep.txt' } }] },
    { tool_calls: [{ id: 'toolu_touch', name: 'Bash', input: { command: 'touch made.txt' } }] },
    { text: 'done' },
  ]);
  const asked: string[] = [];
  const shown: unknown[] = [];
  const messages: AgentMessage[] = [];
  const q = query({
    prompt: 'go',
    options: {
      cwd,
      harness: 'acp',
      harnessCommand: `${process.execPath} ${CLI_PATH} acp --model scripted --script ${script}`,
      persistSession: false,
      disallowedTools: ['Bash(rm:*)'],
      env: { ...process.env, PATH: testPath() },
      canUseTool: async (tool, input, options) => {
        asked.push(`${tool}:${String(input.command)}`);
        shown.push({ suggestions: options.suggestions, description: options.description });
        return { behavior: 'allow', updatedInput: input };
      },
    },
  });
  for await (const message of q) messages.push(message);
  assert.ok(existsSync(path.join(cwd, 'keep.txt')), 'the deny rule held although canUseTool allows everything');
  assert.ok(existsSync(path.join(cwd, 'made.txt')));
  assert.deepEqual(asked, ['Bash:touch made.txt'], 'only the open question reached canUseTool');
  // An ACP agent sends no suggestions: agentpipe's own for the call (Claude Code 2.1.332's: the exact command, the
  // folder of the path it writes, acceptEdits).
  assert.deepEqual(shown, [
    {
      suggestions: [
        {
          type: 'addRules',
          rules: [{ toolName: 'Bash', ruleContent: 'touch made.txt' }],
          behavior: 'allow',
          destination: 'localSettings',
        },
        { type: 'addDirectories', directories: [cwd], destination: 'session' },
        { type: 'setMode', mode: 'acceptEdits', destination: 'session' },
      ],
      description: 'touch made.txt',
    },
  ]);
  const result = messages.at(-1)!;
  assert.ok(result.type === 'result');
  assert.deepEqual(
    result.permission_denials.map((d) => d.tool_name),
    ['Bash'],
  );
});
