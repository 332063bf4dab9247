/** `agentpipe acp`: cancel, modes, list, load (replay), MCP servers from the client, "always allow". */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { ROOT } from '../helpers/cli.ts';
import { scriptedOptions } from '../sdk/scripted-session.ts';
import { withAcpAgent } from './client.ts';

test('acp: session/cancel ends the prompt with stopReason cancelled; set_mode, list and load', async () => {
  const { cwd } = scriptedOptions();
  const script = `${cwd}/script.json`;
  writeFileSync(
    script,
    JSON.stringify({ turns: [{ text: 'y'.repeat(300), delay_ms: 15, chunk_size: 1 }, { text: 'short answer' }] }),
  );
  const { value } = await withAcpAgent(['--model', 'scripted', '--script', script], async (ctx, recorded) => {
    await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await ctx.request('session/new', { cwd, mcpServers: [] });
    const prompt = ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'long one' }] });
    while (recorded.updates.length < 3) await new Promise((r) => setTimeout(r, 10));
    await ctx.notify('session/cancel', { sessionId });
    assert.equal((await prompt).stopReason, 'cancelled');
    assert.equal(
      (await ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'short' }] })).stopReason,
      'end_turn',
    );
    await ctx.request('session/set_mode', { sessionId, modeId: 'acceptEdits' });
    await assert.rejects(ctx.request('session/set_mode', { sessionId, modeId: 'sideways' }), /unknown mode/);
    const listed = (await ctx.request('session/list', {})) as {
      sessions: Array<{ sessionId: string; cwd: string; title?: string | null }>;
    };
    assert.deepEqual(
      listed.sessions.map((s) => [s.sessionId, s.cwd, s.title]),
      [[sessionId, cwd, 'long one']],
    );
    const before = recorded.updates.length;
    await ctx.request('session/load', { sessionId, cwd, mcpServers: [] });
    const replay = recorded.updates.slice(before).map((u) => u.update);
    await assert.rejects(ctx.request('session/load', { sessionId: 'missing', cwd, mcpServers: [] }));
    return { replay, all: recorded.updates.map((u) => u.update) };
  });
  assert.ok(value.all.some((u) => u.sessionUpdate === 'current_mode_update' && u.currentModeId === 'acceptEdits'));
  const chunks = value.replay.filter((u) => u.sessionUpdate === 'user_message_chunk').map((u) => u.content.text);
  assert.deepEqual(chunks, ['long one', 'short']);
  const text = value.replay
    .filter((u) => u.sessionUpdate === 'agent_message_chunk')
    .map((u) => u.content.text)
    .join('');
  assert.ok(text.endsWith('short answer') && text.startsWith('yyy'));
});

test('acp: MCP servers passed by the client become tools; "always allow" is remembered', async () => {
  const { cwd } = scriptedOptions();
  const script = `${cwd}/script.json`;
  const call = (id: string) => ({
    tool_calls: [{ id, name: 'Write', input: { file_path: `${id}.txt`, content: id } }],
  });
  writeFileSync(
    script,
    JSON.stringify({
      turns: [
        { tool_calls: [{ id: 'toolu_add', name: 'mcp__calc__add', input: { a: 2, b: 3 } }] },
        call('w1'),
        call('w2'),
        { text: 'done' },
      ],
    }),
  );
  const server = {
    name: 'calc',
    command: process.execPath,
    args: [path.join(ROOT, 'test/fixtures/mcp-test-server.ts')],
    env: [] as Array<{ name: string; value: string }>,
  };
  const { value } = await withAcpAgent(
    ['--model', 'scripted', '--script', script],
    async (ctx, recorded) => {
      await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
      const { sessionId } = (await ctx.request('session/new', { cwd, mcpServers: [server] } as never)) as {
        sessionId: string;
      };
      assert.equal(
        (await ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'add and write' }] }))
          .stopReason,
        'end_turn',
      );
      return recorded;
    },
    // The MCP tool asks too (its readOnlyHint is the server's claim): allowed once.
    (request) =>
      request.toolCall.toolCallId === 'w1'
        ? 'allow_always'
        : request.toolCall.toolCallId === 'toolu_add'
          ? 'allow'
          : 'reject',
  );
  const add = value.updates.map((u) => u.update).filter((u) => u.toolCallId === 'toolu_add');
  assert.deepEqual([add[0].kind, add[0].title], ['other', 'calc: add']);
  assert.equal(add.at(-1)!.status, 'completed');
  assert.equal(add.at(-1)!.content[0].content.text, '5');
  assert.deepEqual(
    value.permissions.map((p) => p.toolCall.toolCallId).filter((id) => id !== 'toolu_add'),
    ['w1'],
    'w2 ran without asking again',
  );
});
