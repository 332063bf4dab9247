/** Control requests beyond the SDK's everyday ones: files, usage, cost, models, tasks. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { StreamDriver } from '../helpers/stream-driver.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

test('rewind_files restores what the session changed since a user message; read_file, usage, cost, models', async () => {
  const dir = tempDir({ 'a.txt': 'original\n' });
  const script = writeScript(dir, [
    {
      tool_calls: [
        { name: 'Read', input: { file_path: 'a.txt' } },
        { name: 'Edit', input: { file_path: 'a.txt', old_string: 'original', new_string: 'changed' } },
        { name: 'Write', input: { file_path: 'sub/new.txt', content: 'x' } },
      ],
    },
    { text: 'edited', usage: { input_tokens: 50, output_tokens: 5 } },
  ]);
  const cli = new StreamDriver(
    ['--model', 'scripted', '--script', script, '--permission-mode', 'acceptEdits', '--no-session-persistence'],
    dir,
  );
  const uuid = randomUUID();
  const result = await cli.prompt('edit please', uuid);
  assert.equal(result.subtype, 'success');
  assert.equal(readFileSync(path.join(dir, 'a.txt'), 'utf8'), 'changed\n');

  const dry = await cli.control({ subtype: 'rewind_files', user_message_id: uuid, dry_run: true });
  assert.equal(dry.subtype, 'success');
  assert.deepEqual(dry.response.filesChanged.sort(), [path.join(dir, 'a.txt'), path.join(dir, 'sub/new.txt')]);
  assert.equal(readFileSync(path.join(dir, 'a.txt'), 'utf8'), 'changed\n', 'a dry run changes nothing');
  assert.equal((await cli.control({ subtype: 'rewind_files', user_message_id: uuid })).subtype, 'success');
  assert.equal(readFileSync(path.join(dir, 'a.txt'), 'utf8'), 'original\n');
  assert.equal(existsSync(path.join(dir, 'sub/new.txt')), false);
  const unknown = await cli.control({ subtype: 'rewind_files', user_message_id: randomUUID() });
  assert.equal(unknown.subtype, 'error');
  assert.match(unknown.error, /no checkpoint/);

  const file = await cli.control({ subtype: 'read_file', path: 'a.txt' });
  assert.deepEqual(file.response, {
    contents: 'original\n',
    absPath: path.join(dir, 'a.txt'),
    truncated: false,
    encoding: 'utf8',
  });
  const usage = await cli.control({ subtype: 'get_context_usage' });
  assert.ok(usage.response.totalTokens > 0);
  assert.equal(usage.response.model, 'scripted');
  const cost = await cli.control({ subtype: 'get_session_cost' });
  assert.equal(cost.response.total_cost_usd, 0);
  const models = await cli.control({ subtype: 'list_models' });
  assert.deepEqual(
    models.response.models.map((m: { value: string }) => m.value),
    ['scripted'],
  );
  assert.equal(
    (await cli.control({ subtype: 'set_max_thinking_tokens', max_thinking_tokens: 2048 })).subtype,
    'success',
  );
  const bad = await cli.control({ subtype: 'no_such_request' });
  assert.equal(bad.subtype, 'error');
  assert.match(bad.error, /no_such_request/);
  assert.equal(await cli.end(), 0);
});

test('stop_task stops a running subagent alone; the parent goes on', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [
    {
      tool_calls: [
        {
          name: 'Task',
          input: { description: 'slow work', prompt: 'take your time', subagent_type: 'general-purpose' },
        },
      ],
    },
    { text: 'a very slow subagent answer that takes seconds to stream', chunk_size: 1, delay_ms: 100 },
    { text: 'the parent went on' },
  ]);
  const cli = new StreamDriver(
    ['--model', 'scripted', '--script', script, '--agents', '{}', '--no-session-persistence'],
    dir,
  );
  const done = cli.prompt('delegate');
  const task = await cli.waitFor((l) => l.type === 'assistant' && l.message.content[0].type === 'tool_use');
  await cli.waitFor((l) => l.parent_tool_use_id === task.message.content[0].id);
  const stopped = await cli.control({ subtype: 'stop_task', task_id: task.message.content[0].id });
  assert.equal(stopped.subtype, 'success');
  const result = await done;
  assert.equal(result.subtype, 'success');
  assert.equal(result.result, 'the parent went on');
  const toolResult = cli.lines.find(
    (l) => l.type === 'user' && l.parent_tool_use_id === null && l.message.content[0].type === 'tool_result',
  );
  assert.equal(toolResult!.message.content[0].is_error, true);
  assert.match(toolResult!.message.content[0].content, /was stopped/);
  const again = await cli.control({ subtype: 'stop_task', task_id: task.message.content[0].id });
  assert.equal(again.subtype, 'error');
  assert.match(again.error, /no running task/);
  assert.equal(await cli.end(), 0);
});
