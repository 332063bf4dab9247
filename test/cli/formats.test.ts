/** Every output format of `agentpipe -p` on the built-in demo, through the real CLI. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLines, runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/workspace.ts';

const dir = tempDir({ 'README.md': '# Demo project\nSecond line\n', 'notes.txt': 'hello\n' });
const demo = (...args: string[]) => runCli(['-p', 'What is in this folder?', ...args], { cwd: dir });

test('text: prints the final answer built from real tool results', async () => {
  const run = await demo();
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /holds 2 entries: 2 files and 0 folders/);
  assert.match(run.stdout, /I read README\.md; it begins with: "# Demo project"/);
  assert.ok(run.stdout.endsWith('\n'));
});

test('json: one result object', async () => {
  const run = await demo('--output-format', 'json');
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(run.stdout);
  assert.equal(result.type, 'result');
  assert.equal(result.subtype, 'success');
  assert.notEqual(result.is_error, true);
  assert.equal(result.num_turns, 4);
  assert.match(result.result, /README\.md/);
  assert.ok(result.usage.input_tokens > 0 && result.usage.output_tokens > 0);
  assert.deepEqual(Object.keys(result.modelUsage), ['scripted']);
});

test('json --verbose: an array of every conversation message', async () => {
  const run = await demo('--output-format', 'json', '--verbose');
  const messages = JSON.parse(run.stdout) as Array<Record<string, any>>;
  assert.equal(messages[0].subtype, 'init');
  assert.equal(messages.at(-1)!.type, 'result');
  const tools = messages
    .flatMap((m) => (m.type === 'assistant' ? m.message.content : []))
    .filter((b: any) => b.type === 'tool_use')
    .map((b: any) => b.name);
  assert.deepEqual(tools, ['Bash', 'Read', 'TodoWrite']);
});

test('stream-json: init, one assistant line per block, tool results, one result last', async () => {
  const run = await demo('--output-format', 'stream-json', '--verbose');
  assert.equal(run.code, 0, run.stderr);
  // A heartbeat (tool_progress) may come when a tool runs past a second on a busy machine.
  const all = parseLines(run.stdout).filter((l) => l.type !== 'tool_progress');
  // The demo thinks first: system/thinking_tokens before each thinking delta (Claude Code 2.1.332 sends them too),
  // their running estimate rising to the block's size (a token per 4 characters).
  const estimates = all.filter((l) => l.subtype === 'thinking_tokens');
  assert.ok(estimates.length > 0);
  assert.ok(
    estimates.every(
      (l, i) => l.estimated_tokens === (estimates[i - 1]?.estimated_tokens ?? 0) + l.estimated_tokens_delta,
    ),
  );
  const thinking = all
    .flatMap((l) => (l.type === 'assistant' ? l.message.content : []))
    .find((b) => b.type === 'thinking');
  assert.equal(estimates.at(-1)!.estimated_tokens, Math.round(thinking.thinking.length / 4));
  const lines = all.filter((l) => l.subtype !== 'thinking_tokens');
  assert.deepEqual(
    lines.map((l) => l.type),
    [
      'system',
      'assistant',
      'assistant',
      'assistant',
      'user',
      'assistant',
      'assistant',
      'user',
      'assistant',
      'assistant',
      'user',
      'assistant',
      'result',
    ],
  );
  const init = lines[0];
  assert.equal(init.cwd, dir);
  assert.deepEqual(init.tools, [
    'Task',
    'Bash',
    'Edit',
    'Glob',
    'Grep',
    'NotebookEdit',
    'Read',
    'TaskCreate',
    'TaskGet',
    'TaskList',
    'TaskUpdate',
    'TodoWrite',
    'WebFetch',
    'Write',
  ]);
  for (const line of lines) {
    assert.equal(line.session_id, init.session_id);
    assert.match(line.uuid, /^[0-9a-f-]{36}$/);
  }
  const first = lines.slice(1, 4).map((l) => l.message);
  assert.deepEqual(
    first.map((m) => m.content[0].type),
    ['thinking', 'text', 'tool_use'],
  );
  assert.equal(new Set(first.map((m) => m.id)).size, 1, 'blocks of one API message share its id');
  // As Claude Code 2.1.332 sends them: each block at its end with message_start's fields (no stop reason yet, the
  // usage so far); the request's stop reason and final usage are in the result.
  assert.deepEqual(
    first.map((m) => m.stop_reason),
    [null, null, null],
  );
  assert.deepEqual(
    first.map((m) => m.usage.output_tokens),
    [0, 0, 0],
  );
  assert.notEqual(lines[4].message.content[0].is_error, true);
  assert.equal(lines[4].tool_use_result.interrupted, false);
});

test('stream-json --include-partial-messages: deltas join to exactly the final blocks', async () => {
  const run = await demo('--output-format', 'stream-json', '--verbose', '--include-partial-messages');
  const lines = parseLines(run.stdout);
  const text = new Map<string, string>();
  let current = '';
  for (const line of lines) {
    if (line.type !== 'stream_event') continue;
    const event = line.event;
    if (event.type === 'message_start') current = event.message.id;
    if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
      text.set(current, (text.get(current) ?? '') + event.delta.text);
  }
  const finals = new Map<string, string>();
  for (const line of lines) {
    if (line.type !== 'assistant') continue;
    for (const block of line.message.content)
      if (block.type === 'text') finals.set(line.message.id, (finals.get(line.message.id) ?? '') + block.text);
  }
  assert.ok(finals.size >= 4);
  assert.deepEqual(text, finals);
  const kinds = new Set(lines.filter((l) => l.type === 'stream_event').map((l) => l.event.type));
  assert.deepEqual([...kinds].sort(), [
    'content_block_delta',
    'content_block_start',
    'content_block_stop',
    'message_delta',
    'message_start',
    'message_stop',
  ]);
});

test('stream-json without --verbose is refused', async () => {
  const run = await demo('--output-format', 'stream-json');
  assert.equal(run.code, 1);
  assert.equal(run.stdout, '');
  assert.equal(run.stderr.trim(), 'agentpipe: error: --output-format=stream-json requires --verbose');
});

test('the prompt may come from stdin', async () => {
  const run = await runCli(['-p', '--output-format', 'json'], { cwd: dir, stdin: 'What is here?' });
  assert.equal(JSON.parse(run.stdout).subtype, 'success');
});
