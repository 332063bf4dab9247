/**
 * `agentpipe acp` sessions outlive the process: a second `agentpipe acp` lists a session the
 * first one saved, loads it (its history replayed as session/update notifications through the
 * same projection) and goes on with the whole history in its next model request.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { OPENAI_DONE, openaiChunk, openaiUsage, startFakeServer } from '../model/fake-servers.ts';
import { withAcpAgent } from './client.ts';

const PROMPT = 'What do the notes say?';
const SCRIPT = [
  {
    thinking: 'Let me look at the notes.',
    text: 'Reading the notes.',
    tool_calls: [{ id: 'toolu_read', name: 'Read', input: { file_path: 'notes.txt' } }],
  },
  { text: 'The notes say hello.' },
];
const calls = (updates: Array<Record<string, any>>) =>
  updates.filter((u) => u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update');
const text = (updates: Array<Record<string, any>>, kind: string) =>
  updates
    .filter((u) => u.sessionUpdate === kind)
    .map((u) => u.content.text)
    .join('');

test('acp: a second process lists and loads a saved session, replays it and continues it with the full history', async () => {
  const cwd = tempDir({ 'notes.txt': 'hello from the notes\n' });
  const env = { AGENTPIPE_HOME: tempDir() };
  const first = await withAcpAgent(
    ['--model', 'scripted', '--script', writeScript(cwd, SCRIPT)],
    async (ctx, recorded) => {
      await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
      const { sessionId } = await ctx.request('session/new', { cwd, mcpServers: [] });
      assert.equal(
        (await ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: PROMPT }] })).stopReason,
        'end_turn',
      );
      return { sessionId, live: recorded.updates.map((u) => u.update) };
    },
    undefined,
    env,
  );
  const { sessionId, live } = first.value;

  const server = await startFakeServer({
    kind: 'sse',
    frames: [
      openaiChunk({ role: 'assistant', content: 'You asked about the notes.' }),
      openaiChunk({}, 'stop'),
      openaiUsage(40, 6),
      OPENAI_DONE,
    ],
  });
  try {
    const second = await withAcpAgent(
      ['--base-url', `${server.url}/v1`, '--model', 'local-model'],
      async (ctx, recorded) => {
        const init = await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
        assert.equal(init.agentCapabilities?.loadSession, true);
        const listed = await ctx.request('session/list', { cwd });
        assert.deepEqual(
          listed.sessions.map((s) => [s.sessionId, s.cwd, s.title]),
          [[sessionId, cwd, PROMPT]],
        );
        const everywhere = await ctx.request('session/list', {});
        assert.ok(
          everywhere.sessions.some((s) => s.sessionId === sessionId && s.cwd === cwd),
          'listed without a cwd too',
        );
        await ctx.request('session/load', { sessionId, cwd, mcpServers: [] });
        const replay = recorded.updates.map((u) => u.update);
        assert.ok(recorded.updates.every((u) => u.sessionId === sessionId));
        const answer = await ctx.request('session/prompt', {
          sessionId,
          prompt: [{ type: 'text', text: 'And what did you answer?' }],
        });
        return { replay, answer, after: recorded.updates.slice(replay.length).map((u) => u.update) };
      },
      undefined,
      env,
    );
    const { replay, answer, after } = second.value;

    // The replay: the prompt, then what the agent did, as the live session showed it.
    assert.deepEqual(replay[0], { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: PROMPT } });
    assert.equal(text(replay, 'agent_thought_chunk'), 'Let me look at the notes.');
    assert.equal(text(replay, 'agent_message_chunk'), 'Reading the notes.The notes say hello.');
    assert.equal(text(replay, 'agent_message_chunk'), text(live, 'agent_message_chunk'));
    assert.deepEqual(calls(replay), calls(live));
    assert.deepEqual(
      calls(replay).map((u) => [u.sessionUpdate, u.toolCallId, u.status]),
      [
        ['tool_call', 'toolu_read', 'pending'],
        ['tool_call_update', 'toolu_read', 'completed'],
      ],
    );

    // The next prompt goes on from the whole history.
    assert.equal(answer.stopReason, 'end_turn');
    assert.equal(text(after, 'agent_message_chunk'), 'You asked about the notes.');
    assert.equal(server.requests.length, 1);
    const sent = JSON.stringify(server.requests[0].body.messages);
    for (const piece of [
      PROMPT,
      'Reading the notes.',
      'toolu_read',
      'hello from the notes',
      'The notes say hello.',
      'And what did you answer?',
    ]) {
      assert.ok(sent.includes(piece), `the request carries ${piece}: ${sent}`);
    }
  } finally {
    await server.close();
  }

  // The continuation was saved in the same session: a third process replays both prompts.
  const third = await withAcpAgent(
    ['--model', 'scripted'],
    async (ctx, recorded) => {
      await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
      await ctx.request('session/load', { sessionId, cwd, mcpServers: [] });
      return recorded.updates.map((u) => u.update);
    },
    undefined,
    env,
  );
  assert.deepEqual(
    third.value.filter((u) => u.sessionUpdate === 'user_message_chunk').map((u) => u.content.text),
    [PROMPT, 'And what did you answer?'],
  );
  assert.ok(text(third.value, 'agent_message_chunk').endsWith('You asked about the notes.'));
});

test('acp: loading an unknown session, or one of another folder, is a JSON-RPC error', async () => {
  const cwd = tempDir();
  const other = tempDir();
  const env = { AGENTPIPE_HOME: tempDir() };
  const { value } = await withAcpAgent(
    ['--model', 'scripted', '--script', writeScript(cwd, [{ text: 'saved' }])],
    async (ctx) => {
      await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
      const { sessionId } = await ctx.request('session/new', { cwd, mcpServers: [] });
      await ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'save me' }] });
      return sessionId;
    },
    undefined,
    env,
  );
  const { value: errors } = await withAcpAgent(
    ['--model', 'scripted'],
    async (ctx) => {
      await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
      const failures = [];
      for (const params of [
        { sessionId: randomUUID(), cwd },
        { sessionId: '../../etc/passwd', cwd },
        { sessionId: value, cwd: other },
        { sessionId: value, cwd: 'relative/dir' },
      ]) {
        failures.push(
          await ctx.request('session/load', { ...params, mcpServers: [] }).then(
            () => undefined,
            (error: { code: number; message: string }) => [error.code, error.message],
          ),
        );
      }
      await assert.rejects(ctx.request('session/resume', { sessionId: randomUUID(), cwd }), /not found/i);
      assert.deepEqual((await ctx.request('session/list', { cwd: other })).sessions, []);
      return failures;
    },
    undefined,
    env,
  );
  assert.deepEqual(
    errors.map((e) => e?.[0]),
    [-32002, -32002, -32002, -32602],
  );
  assert.match(String(errors[0]?.[1]), /not found/i);
});

test('acp: session/resume continues a saved session without replaying it', async () => {
  const cwd = tempDir();
  const env = { AGENTPIPE_HOME: tempDir() };
  const script = writeScript(cwd, [{ text: 'one' }, { text: 'two' }]);
  const { value: sessionId } = await withAcpAgent(
    ['--model', 'scripted', '--script', script],
    async (ctx) => {
      await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
      const { sessionId } = await ctx.request('session/new', { cwd, mcpServers: [] });
      await ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'first' }] });
      return sessionId;
    },
    undefined,
    env,
  );
  const { value } = await withAcpAgent(
    ['--model', 'scripted', '--script', writeScript(cwd, [{ text: 'second answer' }], 'second.json')],
    async (ctx, recorded) => {
      const init = await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
      assert.ok(init.agentCapabilities?.sessionCapabilities?.resume);
      await ctx.request('session/resume', { sessionId, cwd });
      const replayed = recorded.updates.length;
      await ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'second' }] });
      await ctx.request('session/close', { sessionId });
      await assert.rejects(
        ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'closed' }] }),
        /not found/i,
      );
      return {
        replayed,
        text: text(
          recorded.updates.map((u) => u.update),
          'agent_message_chunk',
        ),
      };
    },
    undefined,
    env,
  );
  assert.equal(value.replayed, 0);
  assert.equal(value.text, 'second answer');
});
