/**
 * Traces in the GenAI conventions, end to end: the real CLI on the scripted model exports with the real OTLP
 * exporter to a receiver on loopback, which decodes what it got. One session: two model requests of the main agent,
 * parallel Read and Grep, a Task subagent, an MCP call on a real stdio server that records the `_meta.traceparent` it
 * got, and a denied Bash; TRACEPARENT names the caller's span.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseLines, runCli } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { fixtureServer } from '../mcp/helpers.ts';
import { otlpEnv, startOtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.ts';

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const SECRET_PROMPT = 'the prompt text must not leave the machine';

const TURNS = [
  {
    tool_calls: [
      { name: 'Read', input: { file_path: 'notes.txt' } },
      { name: 'Grep', input: { pattern: 'alpha' } },
      { name: 'Task', input: { description: 'look around', prompt: 'Say hi', subagent_type: 'general-purpose' } },
      { name: 'mcp__rec__traced', input: {} },
      { name: 'Bash', input: { command: 'touch made-by-bash' } },
    ],
  },
  { text: 'Hi from the subagent.' },
  { text: 'All done.' },
];

function sessionRun(dir: string, env: Record<string, string>, extra: string[] = []) {
  const script = writeScript(dir, TURNS);
  const marker = path.join(dir, 'mcp-marker.txt');
  const servers = { rec: fixtureServer({ MARKER_FILE: marker }) };
  return {
    marker,
    run: runCli(
      [
        '-p',
        SECRET_PROMPT,
        '--model',
        'scripted',
        '--script',
        script,
        '--output-format',
        'stream-json',
        '--verbose',
        '--allowedTools',
        'mcp__rec__traced',
        '--mcp-config',
        JSON.stringify({ mcpServers: servers }),
        ...extra,
      ],
      { cwd: dir, env, timeoutMs: 60_000 },
    ),
  };
}

const byName = (spans: ReceivedSpan[], name: string) => spans.filter((s) => s.name === name);
const one = (spans: ReceivedSpan[], name: string) => {
  const found = byName(spans, name);
  assert.equal(found.length, 1, `one ${name} span: ${spans.map((s) => s.name).join(', ')}`);
  return found[0]!;
};

test('a session exports its span tree in the GenAI conventions under the caller’s TRACEPARENT', async () => {
  const receiver = await startOtlpReceiver();
  const dir = tempDir({ 'notes.txt': 'alpha beta\n' });
  const { run, marker } = sessionRun(
    dir,
    otlpEnv(receiver, { TRACEPARENT: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`, OTEL_SERVICE_NAME: 'otel-test' }),
  );
  const result = await run;
  assert.equal(result.code, 0, result.stderr);
  const messages = parseLines(result.stdout) as Array<Record<string, unknown>>;
  const final = messages.at(-1)!;
  assert.equal(final.type, 'result');
  assert.deepEqual(receiver.errors, []);

  const spans = receiver.spans;
  // Every span is in the caller's trace; the root's parent is the caller's span.
  assert.ok(spans.length > 0, 'spans were exported');
  assert.deepEqual([...new Set(spans.map((s) => s.traceId))], [CALLER_TRACE]);
  assert.equal(spans[0]!.resource['service.name'], 'otel-test');
  const root = one(spans, 'invoke_agent agentpipe');
  assert.equal(root.parentSpanId, CALLER_SPAN);
  assert.equal(root.attributes['gen_ai.operation.name'], 'invoke_agent');
  assert.equal(root.attributes['gen_ai.conversation.id'], final.session_id);

  // Two chat spans of the main agent, one of the subagent.
  const chats = byName(spans, 'chat scripted');
  assert.equal(chats.length, 3);
  assert.equal(chats.filter((c) => c.parentSpanId === root.spanId).length, 2);
  for (const chat of chats) {
    assert.equal(chat.kind, 3, 'chat spans are CLIENT spans');
    assert.equal(chat.attributes['gen_ai.operation.name'], 'chat');
    assert.equal(chat.attributes['gen_ai.request.model'], 'scripted');
  }

  // The tools under the root, the subagent under its Task call, its chat under it.
  const tools = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool');
  assert.deepEqual(tools.map((t) => t.name).sort(), [
    'execute_tool Bash',
    'execute_tool Grep',
    'execute_tool Read',
    'execute_tool Task',
    'execute_tool mcp__rec__traced',
  ]);
  for (const tool of tools) assert.equal(tool.parentSpanId, root.spanId, tool.name);
  const task = one(spans, 'execute_tool Task');
  const sub = one(spans, 'invoke_agent general-purpose');
  assert.equal(sub.parentSpanId, task.spanId);
  assert.equal(chats.filter((c) => c.parentSpanId === sub.spanId).length, 1);
  const read = one(spans, 'execute_tool Read');
  const grep = one(spans, 'execute_tool Grep');
  assert.ok(
    read.startTimeUnixNano < grep.endTimeUnixNano && grep.startTimeUnixNano < read.endTimeUnixNano,
    'Read and Grep overlap',
  );
  const readCall = messages
    .flatMap(
      (m) => ((m.message as { content?: unknown[] } | undefined)?.content ?? []) as Array<Record<string, unknown>>,
    )
    .find((b) => b.type === 'tool_use' && b.name === 'Read');
  assert.equal(read.attributes['gen_ai.tool.call.id'], readCall?.id);

  // Usage only on chat spans, and their sum is the result's.
  const usage = final.usage as { input_tokens: number; output_tokens: number };
  const sum = (key: string) => chats.reduce((n, c) => n + Number(c.attributes[key] ?? 0), 0);
  assert.equal(sum('gen_ai.usage.input_tokens'), usage.input_tokens);
  assert.equal(sum('gen_ai.usage.output_tokens'), usage.output_tokens);
  for (const span of spans.filter((s) => !s.name.startsWith('chat ')))
    assert.deepEqual(
      Object.keys(span.attributes).filter((k) => k.startsWith('gen_ai.usage.')),
      [],
      `${span.name} carries no usage`,
    );

  // The MCP server saw the span id of its execute_tool span.
  const mcp = one(spans, 'execute_tool mcp__rec__traced');
  assert.equal(mcp.attributes['gen_ai.tool.type'], 'extension');
  assert.match(readFileSync(marker, 'utf8'), new RegExp(`^traceparent 00-${CALLER_TRACE}-${mcp.spanId}-01$`, 'm'));

  // The denial is an event with its reason; the span is an error.
  const bash = one(spans, 'execute_tool Bash');
  const denial = bash.events.find((e) => e.name === 'permission');
  assert.equal(denial?.attributes['agentpipe.permission.decision'], 'deny');
  assert.match(String(denial?.attributes['agentpipe.permission.reason']), /permission|needs approval/i);
  assert.equal(bash.status?.code, 2);

  // The metrics went out with the same variables.
  const points = receiver.points.filter((p) => p.metric === 'gen_ai.client.token.usage');
  const tokens = (type: string) =>
    points.filter((p) => p.attributes['gen_ai.token.type'] === type).reduce((n, p) => n + p.value, 0);
  assert.equal(tokens('input'), usage.input_tokens);
  assert.equal(tokens('output'), usage.output_tokens);
  const durations = receiver.points.filter((p) => p.metric === 'gen_ai.client.operation.duration');
  assert.equal(
    durations.reduce((n, p) => n + (p.count ?? 0), 0),
    3,
  );
  assert.equal(receiver.points.find((p) => p.metric === 'agentpipe.session.count')?.value, 1);

  // No prompt text by default (nor tool arguments or results).
  const exported = JSON.stringify(spans);
  assert.ok(!exported.includes(SECRET_PROMPT), 'the prompt is not exported');
  assert.ok(!exported.includes('alpha beta'), 'tool output is not exported');
  assert.ok(!exported.includes('gen_ai.input.messages') && !exported.includes('gen_ai.tool.call.arguments'));
});

test('--otel-content exports the prompt and the tool calls’ inputs and outputs', async () => {
  const receiver = await startOtlpReceiver();
  const dir = tempDir({ 'notes.txt': 'alpha beta\n' });
  const { run } = sessionRun(dir, otlpEnv(receiver), ['--otel-content']);
  const result = await run;
  assert.equal(result.code, 0, result.stderr);
  const root = one(receiver.spans, 'invoke_agent agentpipe');
  assert.match(String(root.attributes['gen_ai.input.messages']), new RegExp(SECRET_PROMPT));
  const read = one(receiver.spans, 'execute_tool Read');
  assert.match(String(read.attributes['gen_ai.tool.call.arguments']), /notes\.txt/);
  assert.match(String(read.attributes['gen_ai.tool.call.result']), /alpha beta/);
});

test('the default protocol is OTLP over HTTP with protobuf', async () => {
  const receiver = await startOtlpReceiver();
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'Short.' }]);
  const result = await runCli(['-p', 'hi', '--model', 'scripted', '--script', script, '--output-format', 'json'], {
    cwd: dir,
    env: {
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_TIMEOUT: '10000',
    },
  });
  assert.equal(result.code, 0, result.stderr);
  const traces = receiver.protobuf.filter((b) => b.path === '/v1/traces');
  assert.equal(traces.length, 1);
  // The span's name and the session id are strings of the protobuf message, as they were sent.
  assert.ok(traces[0]!.body.includes('invoke_agent agentpipe'));
  assert.ok(traces[0]!.body.includes((JSON.parse(result.stdout) as { session_id: string }).session_id));
  assert.deepEqual(receiver.spans, [], 'nothing came as JSON');
});
