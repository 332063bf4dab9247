/**
 * The Codex harness on `codex exec` (the protocol of a codex without an app-server; forced here with
 * AGENTPIPE_CODEX_PROTOCOL=exec) with the real `codex` CLI against a local Responses API fake
 * (offline, throwaway CODEX_HOME). codex-app-server.test.ts tests the app-server protocol.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { toAcpUpdates, type AgentMessage, type SessionUpdate } from '../../src/index.ts';
import { liveGroupCount } from '../../src/process/run.ts';
import type { HarnessConfig } from '../../src/harness/types.ts';
import { INTERRUPTED, INTERRUPTED_TOOLS } from '../../src/messages/notices.ts';
import { scratchDir } from '../helpers/temp.ts';
import { assertOneTerminalUpdate } from '../helpers/acp-properties.ts';
import { processesWith } from '../helpers/processes.ts';
import { driveHarness, harnessDirs, noticesOf, toolResults, toolUses, typesOf, type DrivenHarness } from './helpers.ts';
import {
  FAKE_USAGE,
  startResponsesServer,
  bodies,
  type ResponsesReply,
  type ResponsesServer,
} from './fakes/responses-api.ts';

/** A harness on the fake, in a fresh HOME (= CODEX_HOME) unless `home` is given. */
async function codexOn(
  script: ResponsesReply[],
  config: Partial<HarnessConfig> = {},
  home?: string,
  configToml?: string,
): Promise<{ server: ResponsesServer; driven: DrivenHarness; cwd: string; home: string }> {
  const server = await startResponsesServer(script);
  const dirs = harnessDirs('codex');
  const codexHome = home ?? dirs.home;
  if (configToml) writeFileSync(path.join(codexHome, 'config.toml'), configToml);
  const driven = await driveHarness(
    { name: 'codex', cwd: dirs.cwd, baseUrl: server.baseUrl, model: 'fake-model', ...config },
    { HOME: codexHome, CODEX_HOME: codexHome, CODEX_API_KEY: 'sk-fake', AGENTPIPE_CODEX_PROTOCOL: 'exec' },
  );
  return { server, driven, cwd: dirs.cwd, home: codexHome };
}

/** Warnings other than codex's notice about the fake's unknown model. */
const ownWarnings = (warnings: string[]): string[] =>
  warnings.filter((w) => !w.includes('Model metadata for `fake-model` not found'));

test('codex: a text answer, its deltas joining to the final text; system prompts and usage', async () => {
  const { server, driven } = await codexOn(
    [{ kind: 'text', text: 'Hello from the fake Responses API', chunks: 4, reasoning: 'Thinking it over' }],
    {
      includePartialMessages: true,
      systemPrompt: 'You are the agentpipe test agent.',
      appendSystemPrompt: 'Always answer briefly.',
      maxTurns: 3,
    },
  );
  try {
    const { messages, outcome, usage, warnings } = await driven.prompt('say hi');
    // supports_websockets=false: codex goes straight to HTTP (its WebSocket retries cost ~10 s).
    assert.deepEqual(server.upgrades, [], 'no WebSocket attempts before HTTP');
    assert.deepEqual(typesOf(messages), [
      'system/init',
      'stream_event',
      'stream_event',
      'stream_event',
      'stream_event',
      'assistant',
      'stream_event',
      'stream_event',
      'stream_event',
      'stream_event',
      'assistant',
    ]);
    assert.equal(outcome.subtype, 'success');
    assert.equal(outcome.text, 'Hello from the fake Responses API');
    assert.equal(outcome.numTurns, 1);
    const init = messages[0]!;
    assert.ok(init.type === 'system' && init.subtype === 'init');
    assert.equal(init.harness_session_id, driven.harness.nativeSessionId);
    assert.match(driven.harness.nativeSessionId ?? '', /^[0-9a-f-]{36}$/);
    // Deltas join to the final blocks.
    const deltas = messages.flatMap((m) =>
      m.type === 'stream_event' && m.event.type === 'content_block_delta' && m.event.delta.type === 'text_delta'
        ? [m.event.delta.text]
        : [],
    );
    assert.equal(deltas.join(''), outcome.text);
    const last = messages.at(-1)!;
    assert.ok(last.type === 'assistant');
    assert.deepEqual(last.message.content, [
      { type: 'text', text: 'Hello from the fake Responses API', citations: null },
    ]);
    const thinking = messages[5]!;
    assert.ok(thinking.type === 'assistant');
    assert.deepEqual(thinking.message.content, [{ type: 'thinking', thinking: 'Thinking it over', signature: '' }]);
    // Usage: OpenAI's input_tokens include the cached ones.
    assert.equal(usage.usage.input_tokens, FAKE_USAGE.input_tokens - FAKE_USAGE.cached_input_tokens);
    assert.equal(usage.usage.cache_read_input_tokens, FAKE_USAGE.cached_input_tokens);
    assert.equal(usage.usage.output_tokens, FAKE_USAGE.output_tokens);
    // Straight to HTTPS SSE: every request is the model's POST.
    assert.deepEqual(
      server.requests.map((r) => `${r.method} ${r.path}`),
      ['POST /v1/responses'],
    );
    assert.equal(server.requests[0]!.headers.authorization, 'Bearer sk-fake');
    const [body] = bodies(server);
    assert.ok(body!.includes('You are the agentpipe test agent.'), 'systemPrompt replaces the instructions');
    assert.ok(
      !body!.includes('You are a coding agent running in the Codex CLI'),
      "codex's own instructions are replaced",
    );
    assert.ok(body!.includes('Always answer briefly.'), 'appendSystemPrompt is a developer message');
    assert.deepEqual(ownWarnings(warnings), ['harness codex: ignored options codex exec cannot honour: maxTurns']);
    // ACP: the text is shown once.
    const chunks = toAcpUpdates(messages).filter((u) => u.sessionUpdate === 'agent_message_chunk');
    assert.equal(chunks.map((u) => (u as { content: { text: string } }).content.text).join(''), outcome.text);
  } finally {
    await driven.harness.close();
    await server.close();
  }
});

test('codex: a shell command shows as Bash with its output and exit code', async () => {
  const { server, driven } = await codexOn(
    [
      { kind: 'call', name: 'exec_command', arguments: { cmd: "{ printf 'hello\\n'; echo oops >&2; } 2>&1; exit 3" } },
      { kind: 'text', text: 'The command failed with code 3.' },
    ],
    { permissionMode: 'bypassPermissions' },
  );
  try {
    const { messages, outcome } = await driven.prompt('run it');
    assert.deepEqual(typesOf(messages), ['system/init', 'assistant', 'user', 'assistant']);
    assert.equal(outcome.subtype, 'success');
    assert.equal(outcome.numTurns, 2);
    const [use] = toolUses(messages);
    assert.equal(use!.name, 'Bash');
    assert.deepEqual(use!.input, { command: "{ printf 'hello\\n'; echo oops >&2; } 2>&1; exit 3" });
    const [first] = toolResults(messages);
    assert.ok(first);
    const { block, result } = first;
    assert.equal(block.tool_use_id, use!.id);
    assert.equal(block.is_error, true);
    assert.equal(block.content, 'hello\noops\nExit code 3');
    assert.deepEqual(result, { stdout: 'hello\noops\n', stderr: '', interrupted: false, isImage: false, exitCode: 3 });
    assert.match(bodies(server)[1]!, /exited with code 3/);
    const updates = toAcpUpdates(messages);
    assertOneTerminalUpdate(updates);
    assert.ok(updates.some((u) => u.sessionUpdate === 'tool_call' && u.kind === 'execute'));
  } finally {
    await driven.harness.close();
    await server.close();
  }
});

/** An apply_patch call the way codex models make it (a heredoc to exec_command, which codex intercepts). */
const patch = (body: string): ResponsesReply => ({
  kind: 'call',
  name: 'exec_command',
  arguments: { cmd: `apply_patch <<'EOF'\n*** Begin Patch\n${body}*** End Patch\nEOF` },
});

// Under load the harness reads codex's file_change events behind codex, which may have applied its next patch by
// then (the fake model answers at once): each change's text comes from codex's rollout, not the disk (it failed 2 in
// 30 runs beside a busy CPU when the disk was read).
test('codex: file changes show as Write and Edit with diff-able results', async () => {
  const { server, driven, cwd } = await codexOn(
    [
      patch('*** Add File: notes.txt\n+one\n+two\n+three\n'),
      patch('*** Update File: notes.txt\n@@\n one\n-two\n+TWO\n three\n'),
      patch('*** Update File: old.txt\n@@\n alpha\n-beta\n+BETA\n gamma\n'),
      { kind: 'text', text: 'Edited.' },
    ],
    { permissionMode: 'acceptEdits' },
  );
  writeFileSync(path.join(cwd, 'old.txt'), 'alpha\nbeta\ngamma\ndelta\n');
  try {
    const { messages, outcome } = await driven.prompt('edit the notes');
    assert.equal(outcome.subtype, 'success');
    assert.deepEqual(typesOf(messages), [
      'system/init',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    const notes = path.join(cwd, 'notes.txt');
    const old = path.join(cwd, 'old.txt');
    assert.equal(readFileSync(notes, 'utf8'), 'one\nTWO\nthree\n');
    const uses = toolUses(messages);
    assert.deepEqual(
      uses.map((u) => [u.name, u.input]),
      [
        ['Write', { file_path: notes, content: 'one\ntwo\nthree\n' }],
        ['Edit', { file_path: notes, old_string: 'two\n', new_string: 'TWO\n' }],
        ['Edit', { file_path: old, old_string: 'beta\n', new_string: 'BETA\n' }],
      ],
    );
    const results = toolResults(messages);
    assert.deepEqual(
      results.map((r) => r.block.is_error ?? false),
      [false, false, false],
    );
    assert.deepEqual(results[0]!.result, {
      type: 'create',
      filePath: notes,
      content: 'one\ntwo\nthree\n',
      structuredPatch: [],
      originalFile: null,
      userModified: false,
    });
    const edit = results[1]!.result as { originalFile: string; structuredPatch: { lines: string[] }[] };
    assert.equal(edit.originalFile, 'one\ntwo\nthree\n');
    assert.deepEqual(edit.structuredPatch[0]!.lines, [' one', '-two', '+TWO', ' three']);
    const before = results[2]!.result as { originalFile: string };
    assert.equal(
      before.originalFile,
      'alpha\nbeta\ngamma\ndelta\n',
      'the before-text of a file codex had not touched comes from its rollout',
    );
    const updates = toAcpUpdates(messages);
    assertOneTerminalUpdate(updates);
    const diffs = updates.flatMap((u) =>
      u.sessionUpdate === 'tool_call_update' && u.status === 'completed'
        ? (u.content ?? []).filter((c) => c.type === 'diff')
        : [],
    );
    assert.deepEqual(diffs, [
      { type: 'diff', path: notes, oldText: null, newText: 'one\ntwo\nthree\n' },
      { type: 'diff', path: notes, oldText: 'one\ntwo\nthree\n', newText: 'one\nTWO\nthree\n' },
      { type: 'diff', path: old, oldText: 'alpha\nbeta\ngamma\ndelta\n', newText: 'alpha\nBETA\ngamma\ndelta\n' },
    ]);
    assert.equal(server.modelRequests.length, 4);
  } finally {
    await driven.harness.close();
    await server.close();
  }
});

test('codex: a provider error (HTTP 500, then 401) ends each prompt with one failure outcome', async () => {
  // Codex retries failed requests (5 stream retries with backoff, about 6 s for a 401 and 25 s for a 500): none here.
  const noRetries = '[model_providers.agentpipe]\nrequest_max_retries = 0\nstream_max_retries = 0\n';
  const { server, driven } = await codexOn(
    [
      { kind: 'status', status: 500, message: 'the fake server broke' },
      { kind: 'status', status: 401, message: 'Incorrect API key provided: sk-fake' },
    ],
    {},
    undefined,
    noRetries,
  );
  try {
    const started = Date.now();
    const first = await driven.prompt('say hi');
    assert.deepEqual(typesOf(first.messages), ['system/init']);
    assert.equal(first.outcome.subtype, 'error_during_execution');
    assert.equal(first.outcome.terminalReason, 'model_error');
    assert.equal(first.outcome.errors.length, 1);
    assert.equal(server.modelRequests.length, 1);
    const second = await driven.prompt('say hi again');
    assert.deepEqual(typesOf(second.messages), ['system/init']);
    assert.equal(second.outcome.subtype, 'error_during_execution');
    assert.deepEqual(second.outcome.errors, [
      `unexpected status 401 Unauthorized: Incorrect API key provided: sk-fake, url: ${server.baseUrl}/responses`,
    ]);
    assert.equal(server.modelRequests.length, 2);
    assert.ok(Date.now() - started < 10_000);
  } finally {
    await driven.harness.close();
    await server.close();
  }
});

test('codex: an interrupt mid-turn stops codex and its command; interrupted outcome', async () => {
  const marker = `sleep 29.${process.pid}`;
  const { server, driven } = await codexOn(
    [
      { kind: 'call', name: 'exec_command', arguments: { cmd: marker, yield_time_ms: 30000 } },
      { kind: 'text', text: 'never' },
    ],
    { permissionMode: 'bypassPermissions' },
  );
  try {
    const started = Date.now();
    const { messages, outcome } = await driven.prompt('sleep', {
      onMessage: (m, controller) => {
        if (m.type === 'assistant' && m.message.content.some((b) => b.type === 'tool_use'))
          setTimeout(() => controller.abort(), 300);
      },
    });
    assert.ok(Date.now() - started < 10_000);
    assert.deepEqual(typesOf(messages), ['system/init', 'assistant', 'user', 'user']);
    assert.equal(outcome.subtype, 'error_during_execution');
    assert.equal(outcome.terminalReason, 'aborted_streaming');
    assert.deepEqual(outcome.errors, [INTERRUPTED]);
    const [first] = toolResults(messages);
    assert.ok(first);
    const { block } = first;
    assert.equal(block.content, INTERRUPTED_TOOLS);
    assert.equal(block.is_error, true);
    assertOneTerminalUpdate(toAcpUpdates(messages));
    assert.equal(liveGroupCount(), 0, 'no codex process group left');
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(processesWith(marker), [], 'the command codex ran is gone too');
  } finally {
    await driven.harness.close();
    await server.close();
  }
});

test('codex: later prompts resume the thread; a new harness resumes it by resumeNativeId', async () => {
  const { server, driven, home } = await codexOn([
    { kind: 'text', text: 'first answer' },
    { kind: 'text', text: 'second answer' },
  ]);
  let second: Awaited<ReturnType<typeof codexOn>> | undefined;
  try {
    const one = await driven.prompt('first question');
    const thread = driven.harness.nativeSessionId;
    assert.ok(thread);
    const two = await driven.prompt('second question');
    assert.equal(one.outcome.text, 'first answer');
    assert.equal(two.outcome.text, 'second answer');
    assert.equal(driven.harness.nativeSessionId, thread);
    const init = two.messages[0]!;
    assert.ok(init.type === 'system' && init.subtype === 'init' && init.harness_session_id === thread);
    assert.ok(
      bodies(server)[1]!.includes('first question') && bodies(server)[1]!.includes('first answer'),
      'the second request carries the first exchange',
    );
    // A new harness (another agentpipe process) with the thread id, same CODEX_HOME.
    second = await codexOn([{ kind: 'text', text: 'third answer' }], { resumeNativeId: thread }, home);
    const three = await second.driven.prompt('third question');
    assert.equal(three.outcome.subtype, 'success');
    assert.equal(three.outcome.text, 'third answer');
    assert.equal(second.driven.harness.nativeSessionId, thread);
    const body = bodies(second.server)[0]!;
    assert.ok(body.includes('first question') && body.includes('second answer') && body.includes('third question'));
  } finally {
    await driven.harness.close();
    await server.close();
    await second?.driven.harness.close();
    await second?.server.close();
  }
});

test('codex: bad output (non-JSON, unknown events and items, exit without turn.completed) → one failure, warnings once per type', async () => {
  const dir = scratchDir('codex-bad');
  mkdirSync(dir, { recursive: true });
  const script = path.join(dir, 'fake-codex.mjs');
  writeFileSync(
    script,
    [
      'const out = (line) => process.stdout.write(line + "\\n");',
      'out("this is not JSON");',
      'out(JSON.stringify({ type: "thread.started", thread_id: "thread-bad-1" }));',
      'out("still not JSON");',
      'out(JSON.stringify({ type: "mystery.event", x: 1 }));',
      'out(JSON.stringify({ type: "mystery.event", x: 2 }));',
      'out(JSON.stringify({ type: "item.completed", item: { id: "i1", type: "alien_item" } }));',
      'out(JSON.stringify({ type: "item.completed", item: { id: "i2", type: "alien_item" } }));',
      'out(JSON.stringify({ type: "item.completed", item: { id: "i3", type: "agent_message", text: "partial ' +
        'answer" } }));',
      'out("[1,2]");',
      'process.stderr.write("fatal: the fake codex broke\\n");',
      'process.exit(3);',
    ].join('\n'),
  );
  const { cwd, home } = harnessDirs('codex-bad');
  const driven = await driveHarness(
    { name: 'codex', cwd, command: [process.execPath, script] },
    { HOME: home, CODEX_HOME: home, AGENTPIPE_CODEX_PROTOCOL: 'exec' },
  );
  try {
    const { messages, outcome, warnings } = await driven.prompt('anything');
    // Each unknown kind once: on stderr and in the stream, as a system notice.
    assert.deepEqual(typesOf(messages), [
      'system/init',
      'system/informational',
      'system/informational',
      'system/informational',
      'assistant',
    ]);
    assert.deepEqual(noticesOf(messages), warnings);
    assert.equal(outcome.subtype, 'error_during_execution');
    assert.equal(outcome.errors.length, 1);
    assert.match(outcome.errors[0]!, /codex exited with code 3 before its turn completed: fatal: the fake codex broke/);
    assert.equal(driven.harness.nativeSessionId, 'thread-bad-1');
    assert.deepEqual(warnings, [
      'harness codex: ignored an unknown non-JSON line (this is not JSON)',
      'harness codex: ignored an unknown event type mystery.event',
      'harness codex: ignored an unknown item type alien_item',
    ]);
  } finally {
    await driven.harness.close();
  }
});

test('codex: to-do lists, MCP calls, web searches, failed patches and commands without a start (scripted events)', async () => {
  const dir = scratchDir('codex-events');
  const script = path.join(dir, 'fake-codex.mjs');
  const item = (phase: string, body: Record<string, unknown>) => JSON.stringify({ type: `item.${phase}`, item: body });
  const mcp = { id: 'm1', type: 'mcp_tool_call', server: 'docs', tool: 'lookup', arguments: { q: 'x' }, error: null };
  const todo = (done: boolean[]) => ({
    id: 't1',
    type: 'todo_list',
    items: [
      { text: 'Read', completed: done[0] },
      { text: 'Write', completed: done[1] },
    ],
  });
  const lines = [
    JSON.stringify({ type: 'thread.started', thread_id: 'thread-events-1' }),
    JSON.stringify({ type: 'turn.started' }),
    item('started', todo([false, false])),
    item('updated', todo([false, false])),
    item('updated', todo([true, false])),
    item('started', { ...mcp, result: null, status: 'in_progress' }),
    item('completed', {
      ...mcp,
      result: { content: [{ type: 'text', text: 'found x' }], structured_content: null },
      status: 'completed',
    }),
    item('started', { id: 'w1', type: 'web_search', query: 'codex exec' }),
    item('completed', { id: 'w1', type: 'web_search', query: 'codex exec', action: { type: 'search' } }),
    item('completed', {
      id: 'c1',
      type: 'command_execution',
      command: "/bin/bash -lc 'echo '\\''quoted'\\'''",
      aggregated_output: 'quoted\n',
      exit_code: 0,
      status: 'completed',
    }),
    item('completed', {
      id: 'f1',
      type: 'file_change',
      changes: [{ path: path.join(dir, 'nope.txt'), kind: 'update' }],
      status: 'failed',
    }),
    item('completed', { id: 'e1', type: 'error', message: 'a non-fatal problem' }),
    item('completed', todo([true, true])),
    item('completed', { id: 'a1', type: 'agent_message', text: 'All done.' }),
    JSON.stringify({ type: 'turn.completed', usage: { input_tokens: 10, cached_input_tokens: 0, output_tokens: 5 } }),
  ];
  writeFileSync(script, `for (const line of ${JSON.stringify(lines)}) process.stdout.write(line + "\\n");\n`);
  const { cwd, home } = harnessDirs('codex-events');
  const config = {
    name: 'codex' as const,
    cwd,
    command: [process.execPath, script],
    allowedTools: ['Bash'],
    disallowedTools: ['Write'],
  };
  const driven = await driveHarness(config, { HOME: home, CODEX_HOME: home, AGENTPIPE_CODEX_PROTOCOL: 'exec' });
  try {
    const { messages, outcome, warnings } = await driven.prompt('go');
    assert.equal(outcome.subtype, 'success');
    assert.equal(outcome.text, 'All done.');
    const uses = toolUses(messages);
    assert.deepEqual(
      uses.map((u) => u.name),
      ['TodoWrite', 'TodoWrite', 'mcp__docs__lookup', 'WebSearch', 'Bash', 'Edit', 'TodoWrite'],
    );
    assert.deepEqual(uses[1]!.input, {
      todos: [
        { content: 'Read', status: 'completed', activeForm: 'Read' },
        { content: 'Write', status: 'in_progress', activeForm: 'Write' },
      ],
    });
    assert.deepEqual(uses[2]!.input, { q: 'x' });
    assert.deepEqual(uses[3]!.input, { query: 'codex exec' });
    assert.deepEqual(uses[4]!.input, { command: "echo 'quoted'" });
    const results = toolResults(messages);
    assert.equal(results.length, uses.length);
    assert.deepEqual(
      results.map((r) => r.block.tool_use_id),
      uses.map((u) => u.id),
    );
    assert.equal(results[2]!.block.content, 'found x');
    assert.deepEqual(
      results.map((r) => r.block.is_error ?? false),
      [false, false, false, false, false, true, false],
    );
    const updates = toAcpUpdates(messages);
    assertOneTerminalUpdate(updates);
    const plan = updates.filter((u) => u.sessionUpdate === 'plan').at(-1) as { entries: { status: string }[] };
    assert.deepEqual(
      plan.entries.map((e) => e.status),
      ['completed', 'completed'],
    );
    assert.deepEqual(warnings, [
      'harness codex: ignored options codex exec cannot honour: allowedTools, disallowedTools',
      'harness codex: a non-fatal problem',
    ]);
  } finally {
    await driven.harness.close();
  }
});

test('codex: a command that runs past the threshold gets tool_progress heartbeats until its result', async () => {
  const { server, driven } = await codexOn(
    [
      { kind: 'call', name: 'exec_command', arguments: { cmd: 'sleep 1.2 && echo slept', yield_time_ms: 10000 } },
      { kind: 'text', text: 'done' },
    ],
    { permissionMode: 'bypassPermissions', progress: { thresholdMs: 200, intervalMs: 200 } },
  );
  try {
    const { messages, outcome } = await driven.prompt('sleep a bit');
    assert.equal(outcome.subtype, 'success', outcome.errors.join('\n'));
    const types = typesOf(messages);
    const use = types.indexOf('assistant');
    const result = types.indexOf('user');
    const beats = messages.filter((m) => m.type === 'tool_progress');
    assert.ok(beats.length >= 2, `heartbeats: ${beats.length}`);
    assert.ok(
      types.slice(use + 1, result).every((t) => t === 'tool_progress') && types.lastIndexOf('tool_progress') < result,
      types.join(','),
    );
    const [first] = toolUses(messages);
    assert.ok(beats.every((b) => b.type === 'tool_progress' && b.tool_use_id === first?.id && b.tool_name === 'Bash'));
  } finally {
    await driven.harness.close();
    await server.close();
  }
});
