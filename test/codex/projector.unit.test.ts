/**
 * The shared Codex item projection on hand-made streams: deltas, output tails, declines, subagents, the end, and
 * WebSearch (through codex exec's format too).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentMessage } from '../../src/messages/types.ts';
import { CodexItemProjector, tailDelta } from '../../src/codex/projector.ts';
import type { ItemEvent } from '../../src/codex/items.ts';
import { apiMessage } from '../../src/messages/usage.ts';
import { CodexExecFormat } from '../../src/codex/exec/format.ts';
import type { OutputLine } from '../../src/pipeline/format/types.ts';

const S = 'session-1';
let n = 0;
const uuid = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}` as const;

function assistant(
  id: string,
  content: unknown[],
  parent: string | null = null,
  stop: string | null = null,
): AgentMessage {
  return {
    type: 'assistant',
    parent_tool_use_id: parent,
    session_id: S,
    uuid: uuid(),
    message: apiMessage({ id, model: 'scripted', content: content as never, stop_reason: stop as never }),
  } as AgentMessage;
}
function result(
  id: string,
  content: string,
  isError = false,
  structured?: unknown,
  parent: string | null = null,
): AgentMessage {
  return {
    type: 'user',
    parent_tool_use_id: parent,
    session_id: S,
    uuid: uuid(),
    message: {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: id, content, ...(isError ? { is_error: true } : {}) }],
    },
    ...(structured !== undefined ? { tool_use_result: structured } : {}),
  } as AgentMessage;
}
function event(e: unknown): AgentMessage {
  return { type: 'stream_event', event: e, parent_tool_use_id: null, session_id: S, uuid: uuid() } as AgentMessage;
}
const kinds = (events: ItemEvent[]) =>
  events.map((e) => ('item' in e ? `${e.type}:${e.item.kind}` : e.type === 'delta' ? `delta:${e.stream}` : e.type));

test('streamed text: started, deltas, completed with the same id and the whole text; then the request usage', () => {
  const p = new CodexItemProjector({ cwd: '/w' });
  const out = [
    event({ type: 'message_start', message: apiMessage({ id: 'msg_1', model: 'scripted', content: [] }) }),
    event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } }),
    event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'lo' } }),
    event({ type: 'content_block_stop', index: 0 }),
    assistant('msg_1', [{ type: 'text', text: 'Hello', citations: null }], null, 'end_turn'),
  ].flatMap((m) => p.push(m));
  assert.deepEqual(kinds(out), [
    'started:agentMessage',
    'delta:agentMessage',
    'delta:agentMessage',
    'completed:agentMessage',
    'usage',
  ]);
  const [started, , , completed] = out;
  assert.ok(started!.type === 'started' && completed!.type === 'completed');
  assert.equal(started.item.id, completed.item.id);
  assert.deepEqual(completed.item, { kind: 'agentMessage', id: 'msg_1_0', text: 'Hello' });
});

test('a provider that reuses a message id across responses: each response counts its blocks from 0 again', () => {
  const p = new CodexItemProjector({ cwd: '/w' });
  const response = (text: string) => [
    event({ type: 'message_start', message: apiMessage({ id: 'msg_1', model: 'scripted', content: [] }) }),
    event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }),
    event({ type: 'content_block_stop', index: 0 }),
    assistant('msg_1', [{ type: 'text', text, citations: null }], null, 'end_turn'),
  ];
  const out = [...response('one'), ...response('two')].flatMap((m) => p.push(m));
  const texts = out.flatMap((e) => (e.type === 'completed' && e.item.kind === 'agentMessage' ? [e.item.text] : []));
  assert.deepEqual(texts, ['one', 'two'], 'each streamed block completes once, none again from its final message');
});

test("Claude Code's shape (assistant messages with stop_reason null): the usage of each request from its message_delta, once", () => {
  const p = new CodexItemProjector({ cwd: '/w' });
  const start = (id: string, input: number) =>
    event({
      type: 'message_start',
      message: {
        ...apiMessage({ id, model: 'scripted', content: [] }),
        usage: { input_tokens: input, output_tokens: 0 },
      },
    });
  const delta = (output: number, stop: string) =>
    event({
      type: 'message_delta',
      delta: { stop_reason: stop, stop_sequence: null, container: null, stop_details: null },
      usage: {
        input_tokens: null,
        output_tokens: output,
        cache_creation_input_tokens: null,
        cache_read_input_tokens: 7,
      },
      context_management: null,
    });
  const out = [
    start('msg_1', 60),
    assistant('msg_1', [{ type: 'text', text: 'hi', citations: null }]),
    delta(8, 'tool_use'),
    start('msg_2', 163),
    assistant('msg_2', [{ type: 'text', text: 'done', citations: null }]),
    delta(1, 'end_turn'),
    assistant('msg_2', [], null, 'end_turn'),
  ].flatMap((m) => p.push(m));
  const usage = out.flatMap((e) => (e.type === 'usage' ? [e.usage] : []));
  assert.deepEqual(usage, [
    {
      input_tokens: 60,
      cache_read_input_tokens: 7,
      cache_creation_input_tokens: 0,
      output_tokens: 8,
      thinking_tokens: 0,
    },
    {
      input_tokens: 163,
      cache_read_input_tokens: 7,
      cache_creation_input_tokens: 0,
      output_tokens: 1,
      thinking_tokens: 0,
    },
  ]);
});

/** A Bash call's `tool_progress` with its output so far. */
const progressOf = (toolUseId: string, output: string): AgentMessage =>
  ({
    type: 'tool_progress',
    tool_use_id: toolUseId,
    tool_name: 'Bash',
    parent_tool_use_id: null,
    elapsed_time_seconds: 1,
    session_id: S,
    uuid: uuid(),
    output,
  }) as AgentMessage;

test("a command's output tails become deltas that join to its output; the exit code comes from the result", () => {
  const p = new CodexItemProjector({ cwd: '/w' });
  const progress = (output: string) => progressOf('toolu_1', output);
  const out = [
    assistant(
      'msg_1',
      [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'make' } }],
      null,
      'tool_use',
    ),
    progress('step 1\n'),
    progress('step 1\nstep 2\n'),
    progress('step 1\nstep 2\n'),
    result('toolu_1', 'Exit code 2\nstep 1\nstep 2\nfailed', true),
  ].flatMap((m) => p.push(m));
  assert.deepEqual(kinds(out), [
    'started:commandExecution',
    'usage',
    'delta:commandOutput',
    'delta:commandOutput',
    'delta:commandOutput',
    'completed:commandExecution',
  ]);
  const deltas = out.flatMap((e) => (e.type === 'delta' ? [e.delta] : []));
  const done = out.at(-1)!;
  assert.ok(done.type === 'completed' && done.item.kind === 'commandExecution');
  assert.equal(deltas.join(''), done.item.output);
  assert.equal(done.item.exitCode, 2);
  assert.equal(done.item.status, 'failed');
});

test('output whose trailing newline the result trims: the deltas still join to the output (held back until more)', () => {
  const p = new CodexItemProjector({ cwd: '/w' });
  const progress = (output: string) => progressOf('toolu_2', output);
  const out = [
    assistant(
      'msg_2',
      [{ type: 'tool_use', id: 'toolu_2', name: 'Bash', input: { command: 'count' } }],
      null,
      'tool_use',
    ),
    progress('one\n'),
    progress('one\ntwo\nthree\n'),
    result('toolu_2', 'one\ntwo\nthree', false),
  ].flatMap((m) => p.push(m));
  const deltas = out.flatMap((e) => (e.type === 'delta' ? [e.delta] : []));
  assert.deepEqual(deltas, ['one', '\ntwo\nthree']);
  const done = out.at(-1)!;
  assert.ok(done.type === 'completed' && done.item.kind === 'commandExecution');
  assert.equal(deltas.join(''), done.item.output);
});

test('tailDelta: what a sliding tail of the output added', () => {
  assert.equal(tailDelta('', 'abc'), 'abc');
  assert.equal(tailDelta('abc', 'abcdef'), 'def');
  assert.equal(tailDelta('abcdef', 'defghi'), 'ghi');
  assert.equal(tailDelta('abc', 'xyz'), 'xyz');
});

test('a denied call completes as declined; a subagent stays inside its Task item; the end fails what is open', () => {
  const p = new CodexItemProjector({ cwd: '/w' });
  const denied = {
    type: 'system',
    subtype: 'permission_denied',
    tool_name: 'Bash',
    tool_use_id: 'toolu_rm',
    message: 'no',
    session_id: S,
    uuid: uuid(),
  } as AgentMessage;
  const out = [
    assistant('m1', [{ type: 'tool_use', id: 'toolu_rm', name: 'Bash', input: { command: 'rm -rf x' } }]),
    denied,
    result('toolu_rm', 'Permission to use Bash was denied', true),
    assistant('m2', [{ type: 'tool_use', id: 'toolu_task', name: 'Task', input: { description: 'look' } }]),
    assistant('m3', [{ type: 'text', text: 'inside', citations: null }], 'toolu_task'),
    assistant('m4', [{ type: 'tool_use', id: 'toolu_in', name: 'Bash', input: { command: 'ls' } }], 'toolu_task'),
    result('toolu_in', 'a', false, undefined, 'toolu_task'),
  ].flatMap((m) => p.push(m));
  assert.deepEqual(kinds(out), ['started:commandExecution', 'completed:commandExecution', 'started:mcpToolCall']);
  const declined = out[1]!;
  assert.ok(declined.type === 'completed' && declined.item.kind === 'commandExecution');
  assert.equal(declined.item.status, 'declined');
  const task = out[2]!;
  assert.ok(task.type === 'started' && task.item.kind === 'mcpToolCall');
  assert.deepEqual([task.item.server, task.item.tool], ['agentpipe', 'Task']);
  const end = p.finish();
  assert.deepEqual(kinds(end), ['completed:mcpToolCall']);
  assert.ok(end[0]!.type === 'completed' && end[0]!.item.kind === 'mcpToolCall' && end[0]!.item.status === 'failed');
  assert.deepEqual(p.finish(), []);
});

test('TodoWrite is the plan; MCP tools keep their server; api_retry is a retry; the prompt echo a user message', () => {
  const p = new CodexItemProjector({ cwd: '/w' });
  const out = [
    {
      type: 'user',
      message: { role: 'user', content: 'do it' },
      parent_tool_use_id: null,
      session_id: S,
      uuid: 'u-1',
      isReplay: true,
    } as unknown as AgentMessage,
    {
      type: 'system',
      subtype: 'api_retry',
      attempt: 1,
      max_retries: 3,
      retry_delay_ms: 10,
      error_status: 529,
      error: 'overloaded',
      session_id: S,
      uuid: uuid(),
    } as AgentMessage,
    assistant('m1', [
      { type: 'tool_use', id: 't1', name: 'TodoWrite', input: { todos: [{ content: 'a', status: 'in_progress' }] } },
      { type: 'tool_use', id: 't2', name: 'mcp__docs__find', input: { q: 'x' } },
    ]),
    result('t2', 'found'),
  ].flatMap((m) => p.push(m));
  assert.deepEqual(kinds(out), [
    'started:userMessage',
    'completed:userMessage',
    'retry',
    'plan',
    'started:mcpToolCall',
    'completed:mcpToolCall',
  ]);
  assert.deepEqual(out[2], { type: 'retry', message: 'Reconnecting... 1/3 (overloaded 529)' });
  assert.deepEqual(out[3], { type: 'plan', steps: [{ step: 'a', status: 'inProgress' }] });
  const mcp = out[5]!;
  assert.ok(mcp.type === 'completed' && mcp.item.kind === 'mcpToolCall');
  assert.deepEqual([mcp.item.server, mcp.item.tool, mcp.item.status], ['docs', 'find', 'completed']);
  assert.deepEqual(mcp.item.result, { content: [{ type: 'text', text: 'found' }], structuredContent: null });
});

test('WebSearch is a webSearch item with its query; codex exec --json prints it as web_search', () => {
  const search = () => [
    assistant('m1', [{ type: 'tool_use', id: 'ws1', name: 'WebSearch', input: { query: 'agentpipe tapes' } }]),
    result('ws1', 'Links: [{"title":"Tapes","url":"https://example.com/tapes"}]'),
  ];
  const p = new CodexItemProjector({ cwd: '/w' });
  const events = search().flatMap((m) => p.push(m));
  assert.deepEqual(kinds(events), ['started:webSearch', 'completed:webSearch']);
  assert.deepEqual(events[0], {
    type: 'started',
    item: { kind: 'webSearch', id: 'ws1', query: 'agentpipe tapes', status: 'inProgress' },
  });
  assert.deepEqual(events[1], {
    type: 'completed',
    item: { kind: 'webSearch', id: 'ws1', query: 'agentpipe tapes', status: 'completed' },
  });

  const format = new CodexExecFormat({ json: true, cwd: '/w', log: () => {} });
  const init = { type: 'system', subtype: 'init', session_id: S, uuid: uuid() } as unknown as OutputLine;
  const lines = [init, ...search()]
    .map((m) => format.line(m as OutputLine) ?? '')
    .join('')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const search0 = { id: 'item_0', type: 'web_search', query: 'agentpipe tapes' };
  assert.deepEqual(lines, [
    { type: 'thread.started', thread_id: S },
    { type: 'turn.started' },
    { type: 'item.started', item: { ...search0, action: { type: 'search', query: 'agentpipe tapes' } } },
    { type: 'item.completed', item: { ...search0, action: { type: 'search', query: 'agentpipe tapes' } } },
  ]);
});
