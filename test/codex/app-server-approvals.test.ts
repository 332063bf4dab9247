/**
 * `agentpipe app-server`, what the first tests do not reach: the contents of the delta notifications (a command's
 * output, a reasoning summary, a file change's patch); the approval answers that last for the session
 * (`acceptForSession` for a command and for file changes, `acceptWithExecpolicyAmendment`); the elicitation request
 * for a tool that is neither a command nor a file change (a built-in one, an MCP server's); and `approvalPolicy:
 * 'never'` (nothing is asked; what would need asking fails, and the model is told why). Every frame validates
 * against the pinned codex schema.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Frame } from './app-server-client.ts';
import { appServer, completedItems, runTurn, startThread } from './app-server-turns.ts';
import { fixtureServer } from '../mcp/helpers.ts';

/** The `delta` texts of the notifications `method` about item `itemId`, joined. */
const joined = (frames: Frame[], method: string, itemId: string) =>
  frames
    .filter((f) => f.method === method && f.params.itemId === itemId)
    .map((f) => f.params.delta as string)
    .join('');

test('the deltas hold the content: command output, reasoning summary text, the patch of a file change', async () => {
  const { client, cwd } = appServer([
    {
      thinking: 'Count to three, then write it down.',
      chunk_size: 5,
      tool_calls: [{ name: 'Bash', input: { command: 'printf "one\\ntwo\\nthree\\n"' } }],
    },
    { tool_calls: [{ name: 'Write', input: { file_path: 'count.txt', content: 'one\ntwo\nthree\n' } }] },
    { text: 'Counted.' },
  ]);
  try {
    const threadId = await startThread(client, cwd, { approvalPolicy: 'never', sandbox: 'danger-full-access' });
    const { frames, turnId } = await runTurn(client, threadId, 'count');

    const [reasoning] = completedItems(frames, 'reasoning');
    const summary = frames.filter((f) => f.method === 'item/reasoning/summaryTextDelta');
    assert.ok(summary.length >= 2, 'the summary streams in pieces');
    for (const f of summary)
      assert.deepEqual([f.params.threadId, f.params.turnId, f.params.summaryIndex], [threadId, turnId, 0]);
    assert.equal(
      joined(frames, 'item/reasoning/summaryTextDelta', reasoning!.id),
      'Count to three, then write it down.',
    );
    assert.deepEqual(reasoning!.summary, ['Count to three, then write it down.']);

    const [command] = completedItems(frames, 'commandExecution');
    assert.equal(command!.aggregatedOutput, 'one\ntwo\nthree');
    assert.equal(joined(frames, 'item/commandExecution/outputDelta', command!.id), command!.aggregatedOutput);
    const firstOutput = frames.findIndex((f) => f.method === 'item/commandExecution/outputDelta');
    const commandDone = frames.findIndex((f) => f.method === 'item/completed' && f.params.item.id === command!.id);
    assert.ok(firstOutput >= 0 && firstOutput < commandDone, 'the output comes before the item completes');

    const patch = frames.find((f) => f.method === 'item/fileChange/patchUpdated')!;
    const started = frames.find((f) => f.method === 'item/started' && f.params.item.type === 'fileChange')!;
    assert.deepEqual(
      [patch.params.threadId, patch.params.turnId, patch.params.itemId],
      [threadId, turnId, started.params.item.id],
    );
    assert.deepEqual(patch.params.changes, started.params.item.changes);
    assert.equal(patch.params.changes.length, 1);
    assert.equal(patch.params.changes[0].path, path.join(cwd, 'count.txt'));
    assert.deepEqual(patch.params.changes[0].kind, { type: 'add' });
    assert.match(patch.params.changes[0].diff, /one\ntwo\nthree/);
    assert.equal(readFileSync(path.join(cwd, 'count.txt'), 'utf8'), 'one\ntwo\nthree\n');
    assert.deepEqual(client.schemaErrors, []);
  } finally {
    await client.close();
  }
});

test('acceptForSession: the same command, and then any file change, are not asked again', async () => {
  const { client, cwd } = appServer([
    { tool_calls: [{ name: 'Bash', input: { command: 'touch a.txt' } }] },
    { tool_calls: [{ name: 'Bash', input: { command: 'touch a.txt' } }] },
    { tool_calls: [{ name: 'Bash', input: { command: 'touch b.txt' } }] },
    { tool_calls: [{ name: 'Write', input: { file_path: 'c.txt', content: 'c\n' } }] },
    { tool_calls: [{ name: 'Write', input: { file_path: 'd.txt', content: 'd\n' } }] },
    { text: 'Done.' },
  ]);
  try {
    const threadId = await startThread(client, cwd, { sandbox: 'danger-full-access' });
    const asked: string[] = [];
    client.answer = (request) => {
      asked.push(request.method === 'item/fileChange/requestApproval' ? 'file change' : request.params.command);
      return { decision: 'acceptForSession' };
    };
    const { frames } = await runTurn(client, threadId, 'make files');
    assert.deepEqual(asked, ['touch a.txt', 'touch b.txt', 'file change'], 'touch a.txt once; d.txt not asked');
    assert.deepEqual(
      completedItems(frames, 'commandExecution').map((c) => c.status),
      ['completed', 'completed', 'completed'],
    );
    for (const file of ['a.txt', 'b.txt', 'c.txt', 'd.txt']) assert.ok(existsSync(path.join(cwd, file)), file);
    assert.deepEqual(client.schemaErrors, []);
  } finally {
    await client.close();
  }
});

test('acceptWithExecpolicyAmendment: commands that start with its words run unasked; others are asked', async () => {
  const { client, cwd } = appServer([
    { tool_calls: [{ name: 'Bash', input: { command: 'touch one.txt' } }] },
    { tool_calls: [{ name: 'Bash', input: { command: 'touch two.txt' } }] },
    { tool_calls: [{ name: 'Bash', input: { command: 'mkdir made' } }] },
    { text: 'Done.' },
  ]);
  try {
    const threadId = await startThread(client, cwd, { sandbox: 'danger-full-access' });
    const asked: Array<[string, unknown]> = [];
    client.answer = (request) => {
      const decision = request.params.command.startsWith('touch')
        ? { acceptWithExecpolicyAmendment: { execpolicy_amendment: ['touch'] } }
        : 'decline';
      asked.push([request.params.command, decision]);
      return { decision };
    };
    const { frames } = await runTurn(client, threadId, 'touch and mkdir');
    assert.deepEqual(
      asked.map(([command]) => command),
      ['touch one.txt', 'mkdir made'],
    );
    assert.deepEqual(
      completedItems(frames, 'commandExecution').map((c) => `${c.command} ${c.status}`),
      ['touch one.txt completed', 'touch two.txt completed', 'mkdir made declined'],
    );
    assert.ok(existsSync(path.join(cwd, 'two.txt')));
    assert.ok(!existsSync(path.join(cwd, 'made')));
    assert.deepEqual(client.schemaErrors, []);
  } finally {
    await client.close();
  }
});

test('another tool is asked with mcpServer/elicitation/request: declined, it does not run; accepted, it runs', async () => {
  const servers = { mcpServers: { tools: fixtureServer() } };
  const { client, cwd } = appServer(
    [
      { tool_calls: [{ name: 'WebFetch', input: { url: 'https://example.com/', prompt: 'What is it?' } }] },
      { tool_calls: [{ name: 'mcp__tools__fail', input: {} }] },
      { tool_calls: [{ name: 'mcp__tools__add', input: { a: 2, b: 3 } }] },
      { text: 'One declined, one ran.' },
    ],
    ['--mcp-config', JSON.stringify(servers)],
  );
  try {
    const threadId = await startThread(client, cwd);
    const requests: Frame[] = [];
    client.answer = (request) => {
      requests.push(request);
      return { action: requests.length === 1 ? 'decline' : 'accept', content: null, _meta: null };
    };
    const { frames, completed, turnId } = await runTurn(client, threadId, 'fetch it, fail, add');
    assert.deepEqual(
      requests.map((r) => [r.method, r.params.serverName, r.params.message]),
      [
        ['mcpServer/elicitation/request', 'agentpipe', 'Allow WebFetch?'],
        ['mcpServer/elicitation/request', 'tools', 'Allow tools.fail?'],
        ['mcpServer/elicitation/request', 'tools', 'Allow tools.add?'],
      ],
      "add's readOnlyHint is the server's claim, not the permission check's: asked too",
    );
    const [web] = requests.map((r) => r.params);
    assert.deepEqual([web.threadId, web.turnId, web.mode], [threadId, turnId, 'form']);
    assert.deepEqual(web._meta.input, { url: 'https://example.com/', prompt: 'What is it?' });
    assert.deepEqual(web.requestedSchema, { type: 'object', properties: {} });
    for (const r of requests)
      assert.ok(frames.some((f) => f.method === 'serverRequest/resolved' && f.params.requestId === r.id));
    const [fetch, fail, add] = completedItems(frames, 'mcpToolCall');
    assert.deepEqual([fetch!.server, fetch!.tool, fetch!.status], ['agentpipe', 'WebFetch', 'failed']);
    assert.deepEqual(fetch!.error, { message: 'The user declined WebFetch' }, 'declined: the model is told');
    assert.deepEqual([fail!.server, fail!.tool, fail!.status], ['tools', 'fail', 'failed']);
    assert.deepEqual(fail!.error, { message: 'it broke' }, 'accepted: the server ran it (and it reports an error)');
    assert.deepEqual([add!.server, add!.tool, add!.status], ['tools', 'add', 'completed']);
    assert.equal(completed.params.turn.status, 'completed');
    assert.deepEqual(client.schemaErrors, []);
  } finally {
    await client.close();
  }
});

test("approvalPolicy 'never': nothing is asked; a read-only command runs, what would need asking fails", async () => {
  const { client, cwd } = appServer([
    { tool_calls: [{ name: 'Bash', input: { command: 'ls' } }] },
    { tool_calls: [{ name: 'Bash', input: { command: 'touch nope.txt' } }] },
    { tool_calls: [{ name: 'Write', input: { file_path: 'nope.md', content: 'no\n' } }] },
    { text: 'Could not write.' },
  ]);
  try {
    const threadId = await startThread(client, cwd, { approvalPolicy: 'never', sandbox: 'read-only' });
    const { frames, completed } = await runTurn(client, threadId, 'try to write');
    assert.deepEqual(
      frames.filter((f) => f.id !== undefined && f.method !== undefined),
      [],
      'no request to the client',
    );
    // As in codex, no one declined: the calls failed, and the model is told why.
    const commands = completedItems(frames, 'commandExecution');
    assert.deepEqual(
      commands.map((c) => `${c.command} ${c.status}`),
      ['ls completed', 'touch nope.txt failed'],
    );
    assert.equal(commands[1]!.aggregatedOutput, 'Bash needs approval and the approval policy is never');
    assert.deepEqual(
      completedItems(frames, 'fileChange').map((c) => c.status),
      ['failed'],
    );
    assert.equal(completed.params.turn.status, 'completed');
    assert.ok(!existsSync(path.join(cwd, 'nope.txt')) && !existsSync(path.join(cwd, 'nope.md')));
    assert.deepEqual(client.schemaErrors, []);
  } finally {
    await client.close();
  }
});
