/**
 * Where a client can tell agentpipe from Claude Code (issue 14, items 1-4), driven through the
 * real official SDK and the real CLI's stream-json: `num_turns` counted as Claude Code counts it,
 * read-only calls of one model turn run together (results as they complete), Task with the
 * general-purpose agent always offered, and an interrupt mid-stream keeps the text cut short.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { createSdkMcpServer, query, tool, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { sdkOptions } from '../sdk/helpers.ts';
import { StreamDriver } from '../helpers/stream-driver.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { CLAUDE, anthropic, place, text } from '../session/helpers.ts';
import { anthropicBlock, anthropicStart, anthropicStream } from '../model/fake-servers.ts';

const ARGS = ['--model', 'scripted', '--no-session-persistence'];

/** Every message of one prompt (the SDK throws after an error result: the messages are kept). */
async function collect(prompt: string, options: ReturnType<typeof sdkOptions>): Promise<SDKMessage[]> {
  const messages: SDKMessage[] = [];
  try {
    for await (const message of query({ prompt, options })) messages.push(message);
  } catch (error) {
    if (messages.at(-1)?.type !== 'result') throw error;
  }
  return messages;
}

const resultOf = (messages: SDKMessage[]) => {
  const result = messages.at(-1);
  assert.ok(result?.type === 'result', 'the last message is the result');
  return result;
};

test('num_turns: the prompt plus one per tool result (two calls in one turn are two), as Claude Code counts', async () => {
  const dir = tempDir();
  const options = sdkOptions(
    [
      {
        tool_calls: [
          { name: 'Glob', input: { pattern: '*.json' } },
          { name: 'Glob', input: { pattern: '*.txt' } },
        ],
      },
      { tool_calls: [{ name: 'Glob', input: { pattern: '*' } }] },
      { text: 'done' },
    ],
    { cwd: dir },
  );
  const result = resultOf(await collect('look around', options));
  assert.equal(result.subtype, 'success');
  assert.equal(result.num_turns, 4);
});

test('num_turns under --max-turns: the run stops after the limit of model requests and counts its tool results', async () => {
  const options = sdkOptions([{ tool_calls: [{ name: 'Glob', input: { pattern: '*' } }] }, { text: 'never' }], {
    maxTurns: 1,
  });
  const result = resultOf(await collect('go', options));
  assert.equal(result.subtype, 'error_max_turns');
  assert.equal(result.num_turns, 2);
});

test('num_turns at the --max-turns limit is the turn that would begin, however many results the turns had', async () => {
  // As Claude Code 2.1.332: three results of one turn, then the limit of 1 -> num_turns 2 (not 1 + 3 results).
  const glob = (pattern: string) => ({ name: 'Glob', input: { pattern } });
  const options = sdkOptions([{ tool_calls: [glob('*'), glob('*.txt'), glob('*.json')] }, { text: 'never' }], {
    maxTurns: 1,
  });
  const messages = await collect('go', options);
  assert.equal(messages.filter((m) => m.type === 'user').length, 3, 'the three calls ran');
  const result = resultOf(messages);
  assert.deepEqual([result.subtype, result.num_turns], ['error_max_turns', 2]);
});

test('a reply cut at max_tokens is continued within its turn: --max-turns does not count the continuation', async () => {
  const options = sdkOptions(
    [
      { text: 'cut sho', stop_reason: 'max_tokens' },
      { tool_calls: [{ name: 'Glob', input: { pattern: '*' } }] },
      { text: 'never' },
    ],
    { maxTurns: 1 },
  );
  const messages = await collect('go', options);
  const calls = messages.flatMap((m) => (m.type === 'assistant' ? m.message.content : []));
  assert.deepEqual(
    calls.map((b) => b.type),
    ['text', 'tool_use'],
    'the cut reply, then its continuation in the same turn',
  );
  const result = resultOf(messages);
  assert.deepEqual([result.subtype, result.num_turns], ['error_max_turns', 2]);
});

test('read-only calls of one model turn run at the same time; each result is emitted as it completes', async () => {
  // Each call waits until the other has started: run one after the other, the first would never finish.
  const started = new Set<string>();
  const wakers: Array<() => void> = [];
  const meet = async (name: string, order: string[]) => {
    started.add(name);
    for (const wake of wakers.splice(0)) wake();
    const deadline = Date.now() + 20_000;
    while (started.size < 2 && Date.now() < deadline) await new Promise<void>((resolve) => wakers.push(resolve));
    order.push(name);
  };
  const finished: string[] = [];
  let releaseSlow!: () => void;
  const slowMayEnd = new Promise<void>((resolve) => (releaseSlow = resolve));
  const probe = createSdkMcpServer({
    name: 'probe',
    version: '1.0.0',
    tools: [
      tool(
        'look',
        'Looks (read-only)',
        { name: z.string() },
        async ({ name }) => {
          await meet(name, finished);
          if (name === 'slow') await slowMayEnd;
          else releaseSlow();
          return { content: [{ type: 'text', text: `${name} seen` }] };
        },
        { annotations: { readOnlyHint: true } },
      ),
    ],
  });
  const look = (id: string, name: string, index: number) =>
    anthropicBlock(index, { type: 'tool_use', id, name: 'mcp__probe__look', input: {} }, [
      { type: 'input_json_delta', partial_json: JSON.stringify({ name }) },
    ]);
  const server = await anthropic([
    {
      kind: 'sse',
      frames: anthropicStream([look('toolu_slow', 'slow', 0), look('toolu_fast', 'fast', 1)], 'tool_use'),
    },
    text('both seen'),
  ]);
  const options = sdkOptions([], {
    mcpServers: { probe },
    allowedTools: ['mcp__probe__look'],
    model: 'claude-sonnet-4-5',
    extraArgs: {},
  });
  options.env = { ...options.env, ...server.env };
  const messages = await collect('look twice', options);
  assert.equal(started.size, 2);
  const results = messages
    .flatMap((m) => (m.type === 'user' && Array.isArray(m.message.content) ? m.message.content : []))
    .filter((b) => b.type === 'tool_result')
    .map((b) => b.tool_use_id);
  assert.deepEqual(results, ['toolu_fast', 'toolu_slow'], 'the result that completed first comes first');
  // The model gets them in that order too, as Claude Code 2.1.332 sends them.
  const next = server.requests[1]!.body as { messages: Array<{ content: Array<{ tool_use_id?: string }> }> };
  assert.deepEqual(
    next.messages.at(-1)!.content.map((b) => b.tool_use_id),
    ['toolu_fast', 'toolu_slow'],
  );
  const result = resultOf(messages);
  assert.equal(result.subtype, 'success');
  assert.equal(result.num_turns, 3);
});

test('calls that change things run one at a time, in order', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [
    {
      tool_calls: [
        { name: 'Write', input: { file_path: 'a.txt', content: 'one' } },
        { name: 'Bash', input: { command: 'cat a.txt > b.txt' } },
      ],
    },
    { text: 'copied' },
  ]);
  const cli = new StreamDriver([...ARGS, '--script', script, '--permission-mode', 'bypassPermissions'], dir);
  const result = await cli.prompt('copy');
  assert.equal(result.subtype, 'success');
  const results = cli.lines.filter((l) => l.type === 'user').map((l) => l.message.content[0]);
  // Neither failed (Claude Code says is_error: false only for a shell command).
  assert.deepEqual(
    results.map((b) => b.is_error),
    [undefined, false],
  );
  const { readFileSync } = await import('node:fs');
  assert.equal(readFileSync(`${dir}/b.txt`, 'utf8'), 'one', 'Bash ran after the Write it depends on');
  assert.equal(await cli.end(), 0);
});

test('Task with the general-purpose agent is offered in every session, first in the tool list; a subagent does not get Task', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [
    {
      tool_calls: [
        { name: 'Task', input: { description: 'look', prompt: 'list files', subagent_type: 'general-purpose' } },
      ],
    },
    { text: 'sub done' },
    { text: 'main done' },
  ]);
  const cli = new StreamDriver([...ARGS, '--script', script], dir);
  const init = await cli.control({ subtype: 'initialize' });
  assert.deepEqual(
    init.response.agents.map((a: { name: string }) => a.name),
    ['general-purpose'],
  );
  const result = await cli.prompt('delegate');
  const system = cli.lines.find((l) => l.type === 'system' && l.subtype === 'init')!;
  assert.equal(system.tools[0], 'Task');
  assert.equal(result.subtype, 'success');
  assert.equal(result.result, 'main done');
  const taskResult = cli.lines.find(
    (l) => l.type === 'user' && l.parent_tool_use_id === null && l.message.content[0]?.type === 'tool_result',
  )!;
  assert.notEqual(taskResult.message.content[0].is_error, true, JSON.stringify(taskResult.message.content[0]));
  assert.equal(await cli.end(), 0);

  const denied = new StreamDriver([...ARGS, '--script', script, '--disallowedTools', 'Task'], dir);
  await denied.prompt('delegate');
  assert.ok(!denied.lines.find((l) => l.type === 'system' && l.subtype === 'init')!.tools.includes('Task'));
  await denied.end();
});

test('interrupt mid-stream: the text streamed so far is emitted (stop_reason null), then the notice; the next request carries both', async () => {
  const p = place();
  const streamed = 'Counting: one, two, three';
  // The first answer stops after a few deltas and hangs; the second answers at once.
  const server = await anthropic([
    {
      kind: 'sse',
      then: 'hang',
      frames: [
        anthropicStart('msg_cut', 5),
        ...anthropicBlock(0, { type: 'text', text: '' }, [
          { type: 'text_delta', text: 'Counting: ' },
          { type: 'text_delta', text: 'one, two, three' },
        ]).slice(0, 3),
      ],
    },
    text('ok'),
  ]);
  const cli = new StreamDriver([...CLAUDE, '--include-partial-messages'], p.cwd, { ...p.env, ...server.env });
  cli.send({ type: 'user', message: { role: 'user', content: 'count' }, parent_tool_use_id: null, session_id: '' });
  await cli.waitFor((l) => l.type === 'system' && l.subtype === 'status' && l.status === 'requesting');
  await cli.waitFor(
    (l) =>
      l.type === 'stream_event' && l.event.type === 'content_block_delta' && l.event.delta.text === 'one, two, three',
  );
  assert.equal((await cli.control({ subtype: 'interrupt' })).subtype, 'success');
  const result = await cli.waitFor((l) => l.type === 'result');
  const kinds = cli.lines
    .filter((l) => l.type !== 'stream_event' && l.type !== 'control_response')
    .map((l) => (l.type === 'system' ? `system/${l.subtype}` : l.type));
  assert.deepEqual(kinds, ['system/init', 'system/status', 'assistant', 'user', 'result']);
  const partial = cli.lines.find((l) => l.type === 'assistant')!;
  assert.deepEqual(
    partial.message.content.map((b: { type: string; text: string }) => [b.type, b.text]),
    [['text', streamed]],
  );
  assert.equal(partial.message.stop_reason, null);
  assert.deepEqual(cli.lines.find((l) => l.type === 'user')!.message.content, [
    { type: 'text', text: '[Request interrupted by user]' },
  ]);
  assert.equal(result.subtype, 'error_during_execution');
  assert.equal(result.num_turns, 2);
  // What was shown is what the model is told on the next prompt, live and after --resume alike.
  assert.equal((await cli.prompt('go on')).subtype, 'success');
  const expected = [
    { role: 'user', content: 'count' },
    { role: 'assistant', content: [{ type: 'text', text: streamed }] },
    {
      role: 'user',
      content: [
        { type: 'text', text: '[Request interrupted by user]' },
        { type: 'text', text: 'go on' },
      ],
    },
  ];
  assert.deepEqual(server.requests[1]!.body.messages, expected);
  assert.equal(await cli.end(), 0);
  const session = result.session_id as string;
  const resumed = new StreamDriver([...CLAUDE, '--resume', session], p.cwd, { ...p.env, ...server.env });
  assert.equal((await resumed.prompt('again')).subtype, 'success');
  assert.deepEqual(server.requests[2]!.body.messages.slice(0, 3), expected);
  assert.equal(await resumed.end(), 0);
});
