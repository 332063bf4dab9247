/**
 * The real Codex TypeScript SDK (@openai/codex-sdk, pinned) driving `agentpipe exec` through
 * `codexPathOverride`: run(), runStreamed(), resumeThread(), an output schema and an abort, on the
 * scripted model and on a local OpenAI-compatible server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Codex } from '@openai/codex-sdk';
import { processesWith } from '../helpers/processes.ts';
import type { FakeServer } from '../model/fake-servers.ts';
import {
  AGENTPIPE,
  chatCompletionsServer,
  codexDirs,
  collectEvents,
  eventKinds,
  scriptedCodex,
  sdkEnv,
} from './helpers.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** The events of a streamed turn that runs one command and answers. */
const ONE_COMMAND = [
  'thread.started',
  'turn.started',
  'item.started:command_execution',
  'item.completed:command_execution',
  'item.completed:agent_message',
  'turn.completed',
];
/** The output schema of the structured-output tests. */
const CITY_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, population: { type: 'number' } },
  required: ['city', 'population'],
  additionalProperties: false,
};

test('run(): the items of a turn (reasoning, message, command, tool, file changes, to-dos), its answer and usage', async () => {
  const dir = codexDirs('run');
  writeFileSync(path.join(dir.cwd, 'a.txt'), 'alpha\nbeta\n');
  const codex = scriptedCodex(dir, [
    {
      thinking: 'Look first.',
      text: 'Looking.',
      tool_calls: [{ name: 'Bash', input: { command: 'echo hi; exit 3' } }],
    },
    { tool_calls: [{ name: 'Read', input: { file_path: 'a.txt' } }] },
    {
      tool_calls: [
        { name: 'Edit', input: { file_path: 'a.txt', old_string: 'beta', new_string: 'BETA' } },
        { name: 'Write', input: { file_path: 'b.txt', content: 'new\n' } },
      ],
    },
    {
      tool_calls: [
        { name: 'TodoWrite', input: { todos: [{ content: 'edit', status: 'completed', activeForm: 'e' }] } },
      ],
    },
    { text: 'Edited a.txt and wrote b.txt.' },
  ]);
  const thread = codex.startThread({ workingDirectory: dir.cwd, sandboxMode: 'danger-full-access' });
  const turn = await thread.run('edit the files');
  assert.match(thread.id ?? '', UUID);
  assert.equal(turn.finalResponse, 'Edited a.txt and wrote b.txt.');
  assert.deepEqual(
    turn.items.map((i) => i.type),
    [
      'reasoning',
      'agent_message',
      'command_execution',
      'mcp_tool_call',
      'file_change',
      'file_change',
      'agent_message',
      'todo_list',
    ],
  );
  assert.deepEqual(turn.items[2], {
    id: 'item_2',
    type: 'command_execution',
    command: 'echo hi; exit 3',
    aggregated_output: 'hi',
    exit_code: 3,
    status: 'failed',
  });
  assert.deepEqual(turn.items[4], {
    id: 'item_4',
    type: 'file_change',
    changes: [{ path: path.join(dir.cwd, 'a.txt'), kind: 'update' }],
    status: 'completed',
  });
  assert.deepEqual(turn.items[5]!.type === 'file_change' && turn.items[5].changes, [
    { path: path.join(dir.cwd, 'b.txt'), kind: 'add' },
  ]);
  assert.deepEqual(turn.items[7], { id: 'item_6', type: 'todo_list', items: [{ text: 'edit', completed: true }] });
  assert.equal(readFileSync(path.join(dir.cwd, 'a.txt'), 'utf8'), 'alpha\nBETA\n');
  assert.ok(turn.usage && turn.usage.input_tokens > 0 && turn.usage.output_tokens > 0);
  assert.deepEqual(Object.keys(turn.usage).sort(), [
    'cache_write_input_tokens',
    'cached_input_tokens',
    'input_tokens',
    'output_tokens',
    'reasoning_output_tokens',
  ]);
});

test('runStreamed(): thread.started, turn.started, items as they happen, turn.completed last', async () => {
  const dir = codexDirs('streamed');
  const codex = scriptedCodex(dir, [
    { tool_calls: [{ name: 'Bash', input: { command: 'printf "one\\ntwo\\n"' } }] },
    { text: 'Two lines.' },
  ]);
  const thread = codex.startThread({ workingDirectory: dir.cwd, sandboxMode: 'workspace-write' });
  const { events } = await thread.runStreamed('count');
  const all = await collectEvents(events);
  assert.deepEqual(eventKinds(all), ONE_COMMAND);
  const started = all[0]!;
  assert.ok(started.type === 'thread.started' && started.thread_id === thread.id);
  const done = all[3]!;
  assert.ok(done.type === 'item.completed' && done.item.type === 'command_execution');
  // agentpipe's Bash drops the final newline of an output, as Claude Code does.
  assert.equal(done.item.aggregated_output, 'one\ntwo');
  assert.equal(done.item.exit_code, 0);
  assert.equal(done.item.status, 'completed');
});

test('a read-only sandbox runs read-only commands and declines the rest (nobody to ask in exec)', async () => {
  const dir = codexDirs('readonly');
  const codex = scriptedCodex(dir, [
    { tool_calls: [{ name: 'Bash', input: { command: 'ls' } }] },
    { tool_calls: [{ name: 'Bash', input: { command: 'touch made.txt' } }] },
    { text: 'Could not write.' },
  ]);
  const turn = await codex.startThread({ workingDirectory: dir.cwd, sandboxMode: 'read-only' }).run('try');
  const commands = turn.items.filter((i) => i.type === 'command_execution');
  assert.deepEqual(
    commands.map((c) => [c.command, c.status]),
    [
      ['ls', 'completed'],
      ['touch made.txt', 'declined'],
    ],
  );
  assert.throws(() => readFileSync(path.join(dir.cwd, 'made.txt')));
});

test('an output schema: the final message is the JSON the model gave', async () => {
  const dir = codexDirs('schema');
  const codex = scriptedCodex(dir, [
    { tool_calls: [{ name: 'StructuredOutput', input: { city: 'Paris', population: 2_100_000 } }] },
  ]);
  const turn = await codex
    .startThread({ workingDirectory: dir.cwd })
    .run('capital of France?', { outputSchema: CITY_SCHEMA });
  assert.deepEqual(JSON.parse(turn.finalResponse), { city: 'Paris', population: 2_100_000 });
  assert.deepEqual(
    turn.items.map((i) => i.type),
    ['agent_message'],
  );
});

test('abort: the SDK kills agentpipe mid-command; the command stops with it', async () => {
  const dir = codexDirs('abort');
  const marker = `sleep 31.${process.pid}`;
  const codex = scriptedCodex(dir, [{ tool_calls: [{ name: 'Bash', input: { command: marker } }] }, { text: 'never' }]);
  const controller = new AbortController();
  const thread = codex.startThread({ workingDirectory: dir.cwd, sandboxMode: 'danger-full-access' });
  const { events } = await thread.runStreamed('sleep', { signal: controller.signal });
  const seen: string[] = [];
  await assert.rejects(async () => {
    for await (const event of events) {
      seen.push(event.type);
      if (event.type === 'item.started') controller.abort();
    }
  }, /abort/i);
  // agentpipe ends the turn on SIGTERM: what the SDK still reads before the pipe closes is that end.
  assert.deepEqual(seen.slice(0, 3), ['thread.started', 'turn.started', 'item.started']);
  if (seen.length > 3) assert.deepEqual(seen.slice(3), ['item.completed', 'error', 'turn.failed']);
  for (let i = 0; i < 100 && processesWith(marker).length; i++) await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(processesWith(marker), [], 'the command agentpipe ran is gone too');
});

test('an OpenAI-compatible server: the SDK baseUrl and apiKey reach it; resumeThread() carries the history', async () => {
  const server = await chatCompletionsServer([
    { tool: 'Bash', args: { command: 'echo from-the-tool' } },
    { text: 'The tool said from-the-tool.' },
    { text: 'You asked me to run a tool.' },
  ]);
  try {
    const dir = codexDirs('openai');
    const codex = new Codex({
      codexPathOverride: AGENTPIPE,
      env: sdkEnv(dir.home),
      baseUrl: `${server.url}/v1`,
      apiKey: 'sk-codex-test',
    });
    const options = { workingDirectory: dir.cwd, model: 'gpt-test', sandboxMode: 'danger-full-access' as const };
    const thread = codex.startThread(options);
    const first = await thread.run('run a tool');
    assert.equal(first.finalResponse, 'The tool said from-the-tool.');
    assert.deepEqual(
      first.items.map((i) => i.type),
      ['command_execution', 'agent_message'],
    );
    assert.equal(first.items[0]!.type === 'command_execution' && first.items[0].aggregated_output, 'from-the-tool');
    assert.equal(first.usage?.input_tokens, 200, 'two requests of 100 input tokens (20 of them cached each)');
    assert.equal(first.usage?.cached_input_tokens, 40);
    const resumed = codex.resumeThread(thread.id!, options);
    const second = await resumed.run('what did I ask?');
    assert.equal(second.finalResponse, 'You asked me to run a tool.');
    assert.equal(resumed.id, thread.id);
    assert.deepEqual(
      server.requests.map((r) => `${r.method} ${r.path}`),
      Array(3).fill('POST /v1/chat/completions'),
    );
    for (const r of server.requests) {
      assert.equal(r.headers.authorization, 'Bearer sk-codex-test');
      assert.equal(r.body.model, 'gpt-test');
    }
    const history = JSON.stringify(server.requests[2]!.body.messages);
    assert.ok(
      history.includes('run a tool') && history.includes('from-the-tool') && history.includes('what did I ask?'),
    );
  } finally {
    await server.close();
  }
});

/** The SDK on agentpipe against the OpenAI-compatible fake `server`. */
function openaiCodex(server: FakeServer, dir: { home: string }): Codex {
  return new Codex({
    codexPathOverride: AGENTPIPE,
    env: sdkEnv(dir.home),
    baseUrl: `${server.url}/v1`,
    apiKey: 'sk-codex-test',
  });
}

test('an OpenAI-compatible server: runStreamed() gives the items as they happen, turn.completed with usage last', async () => {
  const server = await chatCompletionsServer([
    { tool: 'Bash', args: { command: 'echo streamed' } },
    { text: 'It printed streamed.' },
  ]);
  try {
    const dir = codexDirs('openai-streamed');
    const thread = openaiCodex(server, dir).startThread({
      workingDirectory: dir.cwd,
      model: 'gpt-test',
      sandboxMode: 'danger-full-access',
    });
    const all = await collectEvents((await thread.runStreamed('print')).events);
    assert.deepEqual(eventKinds(all), ONE_COMMAND);
    const [started, , , command, message, completed] = all;
    assert.ok(started!.type === 'thread.started' && started.thread_id === thread.id);
    assert.ok(command!.type === 'item.completed' && command.item.type === 'command_execution');
    assert.deepEqual([command.item.aggregated_output, command.item.exit_code], ['streamed', 0]);
    assert.ok(message!.type === 'item.completed' && message.item.type === 'agent_message');
    assert.equal(message.item.text, 'It printed streamed.');
    assert.ok(completed!.type === 'turn.completed');
    assert.deepEqual([completed.usage.input_tokens, completed.usage.cached_input_tokens], [200, 40]);
    assert.equal(server.requests.length, 2);
  } finally {
    await server.close();
  }
});

test('an OpenAI-compatible server: an output schema is a StructuredOutput tool; its call is the final JSON', async () => {
  const answer = { city: 'Paris', population: 2_100_000 };
  const server = await chatCompletionsServer([{ tool: 'StructuredOutput', args: answer }, { text: 'not asked for' }]);
  try {
    const dir = codexDirs('openai-schema');

    const turn = await openaiCodex(server, dir)
      .startThread({ workingDirectory: dir.cwd, model: 'gpt-test' })
      .run('capital of France?', { outputSchema: CITY_SCHEMA });
    assert.deepEqual(JSON.parse(turn.finalResponse), answer);
    assert.deepEqual(
      turn.items.map((i) => i.type),
      ['agent_message'],
    );
    assert.equal(server.requests.length, 1, 'the structured answer ends the turn');
    const tools = server.requests[0]!.body.tools as Array<{ function: { name: string; parameters: unknown } }>;
    const structured = tools.find((t) => t.function.name === 'StructuredOutput');
    assert.deepEqual(structured?.function.parameters, CITY_SCHEMA, 'the model is given the schema as the tool’s input');
  } finally {
    await server.close();
  }
});

test('an OpenAI-compatible server: an abort while the reply hangs closes the request and ends agentpipe', async () => {
  const server = await chatCompletionsServer([{ hang: 'Thinking about it' }]);
  try {
    const dir = codexDirs('openai-abort');
    const model = `gpt-hang-${process.pid}`;
    const controller = new AbortController();
    const thread = openaiCodex(server, dir).startThread({ workingDirectory: dir.cwd, model });
    const { events } = await thread.runStreamed('take your time', { signal: controller.signal });
    const seen: string[] = [];
    const reading = (async () => {
      for await (const event of events) seen.push(event.type);
    })();
    const request = await server.arrived(1);
    controller.abort();
    await assert.rejects(reading, /abort/i);
    await request.closed; // the model request agentpipe made is closed, not left hanging on the server
    assert.deepEqual(seen.slice(0, 2), ['thread.started', 'turn.started']);
    for (let i = 0; i < 100 && processesWith(model).length; i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(processesWith(model), [], 'agentpipe exec is gone');
  } finally {
    await server.close();
  }
});
