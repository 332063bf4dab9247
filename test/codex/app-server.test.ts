/**
 * `agentpipe app-server` over stdio with the scripted model: a turn with its items, deltas and
 * approvals; declines and cancels; steering and interrupts; the read-only methods; errors. Every
 * frame the server sends validates against the JSON Schema of the pinned codex.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Frame } from './app-server-client.ts';
import { appServer, runTurn, startThread } from './app-server-turns.ts';

/** `method` and, for items, `type:status`. */
function shape(frames: Frame[]): string[] {
  return frames.flatMap((f) => {
    if (f.method === 'item/started' || f.method === 'item/completed')
      return [`${f.method} ${f.params.item.type}${f.params.item.status ? `:${f.params.item.status}` : ''}`];
    if (f.method === 'turn/completed') return [`turn/completed ${f.params.turn.status}`];
    if (
      typeof f.method === 'string' &&
      !/delta|tokenUsage|status\/changed|summaryPart|patchUpdated|thread\/started/i.test(f.method)
    )
      return [f.id !== undefined ? `request ${f.method}` : f.method];
    return [];
  });
}

test('a turn: user message, reasoning and text with deltas, a command and a file change asked and accepted, the plan', async () => {
  const { client, cwd } = appServer([
    {
      thinking: 'Plan it.',
      text: 'Writing now.',
      tool_calls: [{ name: 'Bash', input: { command: 'echo hi > out.txt' } }],
    },
    {
      tool_calls: [
        { name: 'TodoWrite', input: { todos: [{ content: 'write', status: 'completed', activeForm: 'w' }] } },
      ],
    },
    { tool_calls: [{ name: 'Write', input: { file_path: 'notes.txt', content: 'one\ntwo\n' } }] },
    { text: 'Both written.', chunk_size: 4 },
  ]);
  try {
    const threadId = await startThread(client, cwd);
    const { completed, frames } = await runTurn(client, threadId, 'write two files');
    assert.deepEqual(shape(frames), [
      'turn/started',
      'item/started userMessage',
      'item/completed userMessage',
      'item/started reasoning',
      'item/completed reasoning',
      'item/started agentMessage',
      'item/completed agentMessage',
      'item/started commandExecution:inProgress',
      'request item/commandExecution/requestApproval',
      'serverRequest/resolved',
      'item/completed commandExecution:completed',
      'turn/plan/updated',
      'item/started fileChange:inProgress',
      'request item/fileChange/requestApproval',
      'serverRequest/resolved',
      'item/completed fileChange:completed',
      'turn/diff/updated',
      'item/started agentMessage',
      'item/completed agentMessage',
      'turn/completed completed',
    ]);
    assert.equal(readFileSync(path.join(cwd, 'out.txt'), 'utf8'), 'hi\n');
    assert.equal(readFileSync(path.join(cwd, 'notes.txt'), 'utf8'), 'one\ntwo\n');
    // The deltas of the last message join to its text; the turn's summary is that message.
    const last = frames.filter((f) => f.method === 'item/completed' && f.params.item.type === 'agentMessage').at(-1)!;
    const deltas = frames.filter(
      (f) => f.method === 'item/agentMessage/delta' && f.params.itemId === last.params.item.id,
    );
    assert.ok(deltas.length >= 3);
    assert.equal(deltas.map((d) => d.params.delta).join(''), 'Both written.');
    assert.deepEqual(completed.params.turn.items, [last.params.item]);
    const approval = frames.find((f) => f.method === 'item/commandExecution/requestApproval')!;
    assert.equal(approval.params.command, 'echo hi > out.txt');
    assert.equal(
      approval.params.itemId,
      frames.find((f) => f.method === 'item/started' && f.params.item.type === 'commandExecution')!.params.item.id,
    );
    assert.ok(
      client.sent('thread/status/changed').some((f) => f.params.status.activeFlags?.includes('waitingOnApproval')),
    );
    assert.equal(client.sent('thread/status/changed').at(-1)!.params.status.type, 'idle');
    const plan = client.sent('turn/plan/updated')[0]!;
    assert.deepEqual(plan.params.plan, [{ step: 'write', status: 'completed' }]);
    const diff = client.sent('turn/diff/updated')[0]!;
    assert.match(diff.params.diff, /^diff --git a\/notes.txt b\/notes.txt\nnew file mode 100644\n/);
    const usage = client.sent('thread/tokenUsage/updated');
    assert.equal(usage.length, 4, 'one per model request');
    assert.deepEqual(client.schemaErrors, []);
  } finally {
    await client.close();
  }
});

test('decline: the command does not run and the turn goes on; cancel: the turn stops, interrupted', async () => {
  const { client, cwd } = appServer([
    { tool_calls: [{ name: 'Bash', input: { command: 'touch declined.txt' } }] },
    { text: 'It was declined.' },
    { tool_calls: [{ name: 'Bash', input: { command: 'touch cancelled.txt' } }] },
    { text: 'never' },
  ]);
  try {
    const threadId = await startThread(client, cwd);
    client.answer = () => ({ decision: 'decline' });
    const first = await runTurn(client, threadId, 'try');
    const declined = first.frames.find(
      (f) => f.method === 'item/completed' && f.params.item.type === 'commandExecution',
    )!;
    assert.equal(declined.params.item.status, 'declined');
    assert.equal(first.completed.params.turn.status, 'completed');
    client.answer = () => ({ decision: 'cancel' });
    const second = await runTurn(client, threadId, 'try again');
    assert.equal(second.completed.params.turn.status, 'interrupted');
    const cancelled = second.frames.find(
      (f) => f.method === 'item/completed' && f.params.item.type === 'commandExecution',
    )!;
    assert.equal(cancelled.params.item.status, 'declined');
    assert.throws(() => readFileSync(path.join(cwd, 'declined.txt')));
    assert.throws(() => readFileSync(path.join(cwd, 'cancelled.txt')));
    assert.deepEqual(client.schemaErrors, []);
  } finally {
    await client.close();
  }
});

test('turn/steer queues a message into the running turn; turn/interrupt stops a turn and its command', async () => {
  const marker = `sleep 32.${process.pid}`;
  const { client, cwd } = appServer([
    { tool_calls: [{ name: 'Bash', input: { command: 'sleep 0.5; echo slept' } }] },
    { text: 'First part.' },
    { text: 'Steered part.' },
    { tool_calls: [{ name: 'Bash', input: { command: marker } }] },
    { text: 'never' },
  ]);
  try {
    const threadId = await startThread(client, cwd, { sandbox: 'danger-full-access' });
    const from = client.frames.length;
    const start = await client.request('turn/start', {
      threadId,
      input: [{ type: 'text', text: 'sleep', text_elements: [] }],
    });
    const turnId = start.result.turn.id as string;
    await client.waitFor((f) => f.method === 'item/started' && f.params.item.type === 'commandExecution', from);
    const steer = await client.request('turn/steer', {
      threadId,
      expectedTurnId: turnId,
      input: [{ type: 'text', text: 'and then this', text_elements: [] }],
    });
    assert.deepEqual(steer.result, { turnId });
    const wrong = await client.request('turn/steer', { threadId, expectedTurnId: 'nope', input: [] });
    assert.equal(wrong.error.code, -32600);
    const completed = await client.turnCompleted(turnId, from);
    assert.equal(completed.params.turn.status, 'completed');
    const frames = client.frames.slice(from);
    const users = frames.filter((f) => f.method === 'item/completed' && f.params.item.type === 'userMessage');
    assert.deepEqual(
      users.map((u) => u.params.item.content[0].text),
      ['sleep', 'and then this'],
    );
    assert.equal(client.sent('turn/completed').length, 1, 'one turn for both messages');
    assert.deepEqual(
      completed.params.turn.items.map((i: Frame) => i.text),
      ['Steered part.'],
    );

    const at = client.frames.length;
    const second = await client.request('turn/start', {
      threadId,
      input: [{ type: 'text', text: 'sleep long', text_elements: [] }],
    });
    const secondId = second.result.turn.id as string;
    await client.waitFor((f) => f.method === 'item/started' && f.params.item.type === 'commandExecution', at);
    assert.deepEqual((await client.request('turn/interrupt', { threadId, turnId: secondId })).result, {});
    const interrupted = await client.turnCompleted(secondId, at);
    assert.equal(interrupted.params.turn.status, 'interrupted');
    const command = client.frames
      .slice(at)
      .find((f) => f.method === 'item/completed' && f.params.item.type === 'commandExecution')!;
    assert.equal(command.params.item.status, 'failed');
    const again = await client.request('turn/interrupt', { threadId, turnId: secondId });
    assert.equal(again.error.code, -32600);
    assert.deepEqual(client.schemaErrors, []);
  } finally {
    await client.close();
  }
});

test('model/list, config/read, account/read, mcpServerStatus/list; unknown methods -32601; errors for bad input', async () => {
  const { client, cwd } = appServer([{ text: 'hi' }]);
  try {
    const early = await client.request('thread/list', {});
    assert.equal(early.error.code, -32600);
    assert.match(early.error.message, /Not initialized/);
    await client.initialize();
    const models = await client.request('model/list', { limit: 2 });
    assert.equal(models.result.data.length, 2);
    assert.equal(models.result.data[0].id, 'scripted');
    assert.equal(models.result.data[0].isDefault, true);
    assert.equal(models.result.nextCursor, '2');
    const config = await client.request('config/read', {});
    assert.equal(config.result.config.model, 'scripted');
    assert.deepEqual((await client.request('account/read', {})).result, {
      account: null,
      userId: null,
      requiresOpenaiAuth: false,
    });
    assert.deepEqual((await client.request('mcpServerStatus/list', {})).result, { data: [], nextCursor: null });
    const unknown = await client.request('thread/archive', { threadId: 'x' });
    assert.deepEqual(unknown.error, {
      code: -32601,
      message: 'Method not found: thread/archive',
      data: { method: 'thread/archive' },
    });
    const invalid = await client.request('turn/start', { threadId: 5 });
    assert.equal(invalid.error.code, -32602);
    assert.match(invalid.error.message, /Invalid params for turn\/start/);
    const notLoaded = await client.request('turn/start', { threadId: 'nope', input: [] });
    assert.equal(notLoaded.error.code, -32600);
    // A line that is not JSON cannot be answered (no id): it is logged, and the connection goes on.
    client.raw('{not json\n');
    const fine = await client.request('thread/start', { cwd });
    assert.match(client.stderr, /a line that is not JSON was ignored/);
    assert.ok(fine.result.thread.id);
    assert.deepEqual(client.schemaErrors, []);
  } finally {
    await client.close();
  }
});
