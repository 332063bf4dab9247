/**
 * The task list (TaskCreate, TaskList ...) is the session's: a resumed session goes on with it, a fork starts with a
 * copy that then goes its own way, and a new session starts empty.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseLines } from '../helpers/cli.ts';
import { anthropic, CLAUDE, place, run, STREAM, text, toolCall } from './helpers.ts';

/** The text of the tool result the model got for the last call of `run`'s stream. */
const lastToolResult = (stdout: string): unknown =>
  parseLines(stdout)
    .filter((l) => l.type === 'user')
    .map((l) => l.message.content[0].content)
    .at(-1);

test('the task list survives --resume and --continue, and a --fork-session starts with a copy', async () => {
  const p = place();
  const server = await anthropic([
    toolCall('t1', 'TaskCreate', { subject: 'First', description: 'one' }),
    text('made'),
    toolCall('t2', 'TaskList', {}),
    text('listed'),
    toolCall('t3', 'TaskCreate', { subject: 'Forked', description: 'two' }),
    text('made in the fork'),
    toolCall('t4', 'TaskList', {}),
    text('listed again'),
    toolCall('t5', 'TaskList', {}),
    text('fresh'),
  ]);
  const first = await run(p, [...STREAM, ...CLAUDE, 'plan'], { env: server.env });
  assert.equal(first.code, 0, first.stderr);
  assert.equal(lastToolResult(first.stdout), 'Task #1 created successfully: First');
  const id = parseLines(first.stdout)[0].session_id;

  const resumed = await run(p, [...STREAM, ...CLAUDE, '--resume', id, 'list'], { env: server.env });
  assert.equal(lastToolResult(resumed.stdout), '#1 [pending] First');

  const fork = await run(p, [...STREAM, ...CLAUDE, '--resume', id, '--fork-session', 'more'], { env: server.env });
  assert.equal(lastToolResult(fork.stdout), 'Task #2 created successfully: Forked');

  const original = await run(p, [...STREAM, ...CLAUDE, '--continue', 'list'], { env: server.env });
  // --continue takes the latest session of the folder: the fork.
  assert.equal(lastToolResult(original.stdout), '#1 [pending] First\n#2 [pending] Forked');
  const again = await run(p, [...STREAM, ...CLAUDE, '--resume', id, 'list'], { env: server.env });
  assert.equal(lastToolResult(again.stdout), '#1 [pending] First', "the original has not the fork's task");
});
