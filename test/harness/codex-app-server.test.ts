/**
 * The Codex harness on `codex app-server` (the real codex-cli 0.169.0 from test/harness/clis, a local
 * Responses API fake, a throwaway CODEX_HOME): live deltas, commands and file changes, codex's
 * approvals asked through agentpipe's session, interrupts, threads resumed, provider errors, and the
 * fallback to `codex exec` for a codex without an app-server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AgentMessage } from '../../src/index.ts';
import type { HarnessConfig } from '../../src/harness/types.ts';
import { liveGroupCount } from '../../src/process/run.ts';
import { INTERRUPTED } from '../../src/messages/notices.ts';
import { scratchDir } from '../helpers/temp.ts';
import { processesWith } from '../helpers/processes.ts';
import { driveHarness, harnessDirs, toolResults, toolUses, testPath, typesOf, type DrivenHarness } from './helpers.ts';
import { StreamDriver } from '../helpers/stream-driver.ts';
import { startResponsesServer, bodies, type ResponsesReply, type ResponsesServer } from './fakes/responses-api.ts';

async function codexOn(
  script: ResponsesReply[],
  config: Partial<HarnessConfig> = {},
  home?: string,
): Promise<{ server: ResponsesServer; driven: DrivenHarness; cwd: string; home: string }> {
  const server = await startResponsesServer(script);
  const dirs = harnessDirs('codex-as');
  const codexHome = home ?? dirs.home;
  writeFileSync(
    path.join(codexHome, 'config.toml'),
    '[model_providers.agentpipe]\nrequest_max_retries = 0\nstream_max_retries = 0\n',
  );
  const driven = await driveHarness(
    { name: 'codex', cwd: dirs.cwd, baseUrl: server.baseUrl, model: 'fake-model', ...config },
    { HOME: codexHome, CODEX_HOME: codexHome, CODEX_API_KEY: 'sk-fake', AGENTPIPE_CODEX_PROTOCOL: 'app-server' },
  );
  return { server, driven, cwd: dirs.cwd, home: codexHome };
}

test('codex app-server: live text deltas join to the answer; instructions, thread id and usage', async () => {
  const { server, driven } = await codexOn(
    [{ kind: 'text', text: 'Hello over the app-server', chunks: 5, reasoning: 'Think.' }],
    {
      includePartialMessages: true,
      systemPrompt: 'You are the agentpipe test agent.',
      appendSystemPrompt: 'Answer briefly.',
    },
  );
  try {
    const { messages, outcome, usage } = await driven.prompt('say hi');
    assert.equal(outcome.subtype, 'success', outcome.errors.join('\n'));
    assert.equal(outcome.text, 'Hello over the app-server');
    const deltas = messages.flatMap((m) =>
      m.type === 'stream_event' && m.event.type === 'content_block_delta' && m.event.delta.type === 'text_delta'
        ? [m.event.delta.text]
        : [],
    );
    assert.ok(deltas.length >= 3, `deltas: ${deltas.length}`);
    assert.equal(deltas.join(''), outcome.text);
    const final = messages.filter((m) => m.type === 'assistant').at(-1)!;
    const start = messages.find(
      (m) =>
        m.type === 'stream_event' &&
        m.event.type === 'message_start' &&
        m.event.message.id === (final.type === 'assistant' ? final.message.id : ''),
    );
    assert.ok(start, 'the final message has the id of its deltas');
    const init = messages[0]!;
    assert.ok(init.type === 'system' && init.subtype === 'init');
    assert.match(init.harness_session_id ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(driven.harness.nativeSessionId, init.harness_session_id);
    assert.ok(bodies(server)[0]!.includes('You are the agentpipe test agent.'));
    assert.ok(bodies(server)[0]!.includes('Answer briefly.'));
    assert.ok(usage.usage.output_tokens > 0);
    assert.deepEqual(server.upgrades, []);
  } finally {
    await driven.harness.close();
    await server.close();
  }
});

// In default mode codex's own sandbox is read-only. A command that writes asks to run outside it
// (`require_escalated`), as codex's instructions tell its models: once approved, it runs there at once. Without the
// request codex runs an approved command in its read-only sandbox first and retries outside only when it failed
// within 150 ms (codex 0.169, unified exec's denial check), which a loaded machine misses: the model then sees
// "Read-only file system" (the flake this test had).
const escalated = { sandbox_permissions: 'require_escalated', justification: 'Write the file?' };

test('codex app-server: codex asks before a command; the session answers (allow runs it, deny declines it)', async () => {
  const { server, driven, cwd } = await codexOn([
    { kind: 'call', name: 'exec_command', arguments: { cmd: 'echo made > made.txt', ...escalated } },
    { kind: 'text', text: 'Made it.' },
    { kind: 'call', name: 'exec_command', arguments: { cmd: 'echo no > refused.txt', ...escalated } },
    { kind: 'text', text: 'Refused.' },
  ]);
  try {
    const asked: Array<[string, Record<string, unknown>]> = [];
    const first = await driven.prompt('make a file', {
      askPermission: async (tool, input) => {
        asked.push([tool, input]);
        return { behavior: 'allow' };
      },
    });
    assert.equal(first.outcome.subtype, 'success', first.outcome.errors.join('\n'));
    assert.deepEqual(asked, [['Bash', { command: 'echo made > made.txt' }]]);
    assert.equal(readFileSync(path.join(cwd, 'made.txt'), 'utf8'), 'made\n');
    const [use] = toolUses(first.messages);
    assert.equal(use!.name, 'Bash');
    assert.deepEqual(
      toolResults(first.messages).map((r) => r.block.is_error ?? false),
      [false],
    );
    const second = await driven.prompt('another', {
      askPermission: async () => ({ behavior: 'deny', message: 'not this one' }),
    });
    assert.equal(second.outcome.subtype, 'success');
    const [refused] = toolResults(second.messages);
    assert.equal(refused!.block.is_error, true);
    assert.match(String(refused!.block.content), /declined/);
    assert.throws(() => readFileSync(path.join(cwd, 'refused.txt')));
  } finally {
    await driven.harness.close();
    await server.close();
  }
});

test('codex app-server: file changes show as Write and Edit with the file before and after', async () => {
  const patch = (body: string): ResponsesReply => ({
    kind: 'call',
    name: 'exec_command',
    arguments: { cmd: `apply_patch <<'EOF'\n*** Begin Patch\n${body}*** End Patch\nEOF` },
  });
  const { server, driven, cwd } = await codexOn(
    [
      patch('*** Add File: notes.txt\n+one\n+two\n'),
      patch('*** Update File: old.txt\n@@\n alpha\n-beta\n+BETA\n'),
      { kind: 'text', text: 'Edited.' },
    ],
    { permissionMode: 'bypassPermissions' },
  );
  writeFileSync(path.join(cwd, 'old.txt'), 'alpha\nbeta\ngamma\n');
  try {
    const { messages, outcome } = await driven.prompt('edit');
    assert.equal(outcome.subtype, 'success', outcome.errors.join('\n'));
    const notes = path.join(cwd, 'notes.txt');
    const old = path.join(cwd, 'old.txt');
    assert.deepEqual(
      toolUses(messages).map((u) => [u.name, u.input]),
      [
        ['Write', { file_path: notes, content: 'one\ntwo\n' }],
        ['Edit', { file_path: old, old_string: 'beta\n', new_string: 'BETA\n' }],
      ],
    );
    const [created, edited] = toolResults(messages);
    assert.equal((created!.result as { type: string }).type, 'create');
    assert.equal((edited!.result as { originalFile: string }).originalFile, 'alpha\nbeta\ngamma\n');
    assert.equal(readFileSync(old, 'utf8'), 'alpha\nBETA\ngamma\n');
  } finally {
    await driven.harness.close();
    await server.close();
  }
});

test('codex app-server: an interrupt is turn/interrupt; the command stops; the next prompt runs on the same thread', async () => {
  const marker = `sleep 33.${process.pid}`;
  const { server, driven } = await codexOn(
    [
      { kind: 'call', name: 'exec_command', arguments: { cmd: marker, yield_time_ms: 30000 } },
      { kind: 'text', text: 'After the interrupt.' },
    ],
    { permissionMode: 'bypassPermissions' },
  );
  try {
    const { messages, outcome } = await driven.prompt('sleep', {
      onMessage: (m, controller) => {
        if (m.type === 'assistant' && m.message.content.some((b) => b.type === 'tool_use')) controller.abort();
      },
    });
    assert.equal(outcome.terminalReason, 'aborted_streaming');
    assert.deepEqual(outcome.errors, [INTERRUPTED]);
    assert.ok(typesOf(messages).includes('user'));
    for (let i = 0; i < 100 && processesWith(marker).length; i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(processesWith(marker), [], 'the command codex ran is gone');
    const next = await driven.prompt('go on');
    assert.equal(next.outcome.subtype, 'success', next.outcome.errors.join('\n'));
    assert.equal(next.outcome.text, 'After the interrupt.');
  } finally {
    await driven.harness.close();
    await server.close();
  }
  assert.equal(liveGroupCount(), 0, 'codex app-server is stopped with the harness');
});

test('codex app-server: a new harness resumes the thread by resumeNativeId; a provider error fails the prompt', async () => {
  const { server, driven, home } = await codexOn([{ kind: 'text', text: 'first answer' }]);
  let second: Awaited<ReturnType<typeof codexOn>> | undefined;
  try {
    const one = await driven.prompt('remember apples');
    assert.equal(one.outcome.text, 'first answer');
    const thread = driven.harness.nativeSessionId!;
    await driven.harness.close();
    second = await codexOn(
      [
        { kind: 'text', text: 'apples' },
        { kind: 'status', status: 401, message: 'Incorrect API key provided' },
      ],
      { resumeNativeId: thread },
      home,
    );
    const two = await second.driven.prompt('what did I say?');
    assert.equal(two.outcome.text, 'apples');
    assert.equal(second.driven.harness.nativeSessionId, thread);
    assert.ok(bodies(second.server)[0]!.includes('remember apples'), 'the resumed thread carries the history');
    const three = await second.driven.prompt('again');
    assert.equal(three.outcome.subtype, 'error_during_execution');
    assert.match(three.outcome.errors.join('\n'), /401 Unauthorized: Incorrect API key provided/);
  } finally {
    await server.close();
    await second?.driven.harness.close();
    await second?.server.close();
  }
});

test('a codex without an app-server: the harness says so once and runs codex exec', async () => {
  const dir = scratchDir('codex-noapp');
  const script = path.join(dir, 'old-codex.mjs');
  writeFileSync(
    script,
    [
      'if (process.argv[2] === "app-server") {',
      '  console.error("error: unrecognized subcommand \'app-server\'");',
      '  process.exit(2);',
      '}',
      'const out = (v) => process.stdout.write(JSON.stringify(v) + "\\n");',
      'out({ type: "thread.started", thread_id: "thread-old-1" });',
      'out({ type: "turn.started" });',
      'out({ type: "item.completed", item: { id: "i1", type: "agent_message", text: "from exec" } });',
      'out({ type: "turn.completed", usage: { input_tokens: 1, cached_input_tokens: 0, output_tokens: 1 } });',
    ].join('\n'),
  );
  const { cwd, home } = harnessDirs('codex-noapp');
  const driven = await driveHarness(
    { name: 'codex', cwd, command: [process.execPath, script] },
    { HOME: home, CODEX_HOME: home },
  );
  try {
    const first = await driven.prompt('hi');
    assert.equal(first.outcome.text, 'from exec');
    const second = await driven.prompt('again');
    assert.equal(second.outcome.text, 'from exec');
    assert.equal(driven.harness.nativeSessionId, 'thread-old-1');
    assert.equal(first.warnings.filter((w) => w.includes('using codex exec instead')).length, 1);
    assert.match(
      first.warnings[0]!,
      /codex app-server exited with code 2: error: unrecognized subcommand 'app-server'/,
    );
  } finally {
    await driven.harness.close();
  }
});

test('codex app-server: steer() adds a message to the running turn (turn/steer); the prompt ends once', async () => {
  const { server, driven } = await codexOn(
    [
      { kind: 'call', name: 'exec_command', arguments: { cmd: 'sleep 1; echo slept', yield_time_ms: 10000 } },
      { kind: 'text', text: 'Slept, and saying bye as asked.' },
    ],
    { permissionMode: 'bypassPermissions' },
  );
  try {
    let steered: Promise<boolean | undefined> | undefined;
    const { outcome } = await driven.prompt('sleep', {
      onMessage: (m) => {
        if (!steered && m.type === 'assistant' && m.message.content.some((b) => b.type === 'tool_use'))
          steered = driven.harness.steer?.('and then say bye');
      },
    });
    assert.equal(await steered, true);
    assert.equal(outcome.subtype, 'success', outcome.errors.join('\n'));
    assert.equal(outcome.text, 'Slept, and saying bye as asked.');
    assert.equal(server.modelRequests.length, 2);
    assert.ok(bodies(server)[1]!.includes('and then say bye'), 'the steered message reaches the next model request');
    assert.equal(await driven.harness.steer?.('too late'), false, 'no turn runs');
  } finally {
    await driven.harness.close();
    await server.close();
  }
});

test('stream-json with --harness codex: a user message with priority "now" joins the running prompt; one result', async () => {
  const server = await startResponsesServer([
    { kind: 'call', name: 'exec_command', arguments: { cmd: 'sleep 1; echo slept', yield_time_ms: 10000 } },
    { kind: 'text', text: 'Done, with the extra request.' },
  ]);
  const { home, cwd } = harnessDirs('codex-steer');
  writeFileSync(path.join(home, 'config.toml'), '[model_providers.agentpipe]\nrequest_max_retries = 0\n');
  const driver = new StreamDriver(
    [
      '--harness',
      'codex',
      '--base-url',
      server.baseUrl,
      '--model',
      'fake-model',
      '--permission-mode',
      'bypassPermissions',
      '--replay-user-messages',
    ],
    cwd,
    {
      PATH: testPath(),
      HOME: home,
      CODEX_HOME: home,
      CODEX_API_KEY: 'sk-fake',
      AGENTPIPE_HOME: path.join(home, '.agentpipe'),
    },
  );
  try {
    driver.send({
      type: 'user',
      message: { role: 'user', content: 'sleep' },
      parent_tool_use_id: null,
      session_id: '',
    });
    await driver.waitFor(
      (l) => l.type === 'assistant' && l.message.content.some((b: { type: string }) => b.type === 'tool_use'),
    );
    const uuid = '5d1c1b2e-0000-4000-8000-000000000001';
    driver.send({
      type: 'user',
      message: { role: 'user', content: 'and also this' },
      parent_tool_use_id: null,
      session_id: '',
      uuid,
      priority: 'now',
    });
    const result = await driver.waitFor((l) => l.type === 'result');
    assert.equal(result.subtype, 'success');
    assert.equal(result.result, 'Done, with the extra request.');
    const echo = driver.lines.find((l) => l.type === 'user' && l.isReplay && l.uuid === uuid);
    assert.ok(echo, 'the steered message is echoed on the stream');
    assert.ok(JSON.stringify(server.modelRequests[1]!.body).includes('and also this'));
    driver.child.stdin!.end();
    await new Promise((resolve) => driver.child.once('close', resolve));
    assert.equal(driver.lines.filter((l) => l.type === 'result').length, 1);
  } finally {
    await server.close();
  }
});
