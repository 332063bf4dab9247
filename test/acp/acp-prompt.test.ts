/** `agentpipe acp` answering the ACP SDK's own client: a full prompt, its updates, stop reasons and errors. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { toAcpUpdates, query, type AgentMessage } from '../../src/index.ts';
import { SCRIPT, scriptedOptions } from '../sdk/scripted-session.ts';
import { assertGolden, normalize } from '../sdk/collect.ts';
import { withAcpAgent } from './client.ts';

// The scripted session without the subagent turns (the ACP server defines no agents).
const ACP_SCRIPT = { turns: [SCRIPT.turns[0], SCRIPT.turns[1], SCRIPT.turns[5], SCRIPT.turns[6]] };
const ALLOWED = ['Read', 'Glob', 'Edit', 'Bash(echo:*)'];

test('acp: initialize, session/new, session/prompt stream the projection; permission asked; errors end the prompt', async () => {
  const { cwd } = scriptedOptions();
  const script = `${cwd}/script.json`;
  writeFileSync(script, JSON.stringify(ACP_SCRIPT));
  const { value, code } = await withAcpAgent(
    ['--model', 'scripted', '--script', script, '--allowed-tools', ...ALLOWED],
    async (ctx, recorded) => {
      const init = await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
      assert.equal(init.protocolVersion, 1);
      assert.equal(init.agentCapabilities?.loadSession, true);
      await ctx.request('authenticate', { methodId: 'none' });
      const session = await ctx.request('session/new', { cwd, mcpServers: [] });
      assert.equal(session.modes?.currentModeId, 'default');
      const first = await ctx.request('session/prompt', {
        sessionId: session.sessionId,
        prompt: [{ type: 'text', text: 'Tidy up the notes, please.' }],
      });
      assert.equal(first.stopReason, 'end_turn');
      const firstUpdates = recorded.updates.map((u) => u.update);
      await assert.rejects(
        ctx.request('session/prompt', {
          sessionId: session.sessionId,
          prompt: [{ type: 'text', text: 'And once more?' }],
        }),
        /bad request from the scripted model/,
      );
      await assert.rejects(
        ctx.request('session/prompt', { sessionId: 'nope', prompt: [{ type: 'text', text: 'x' }] }),
        /nope|not found/i,
      );
      return { firstUpdates, all: recorded.updates, permissions: recorded.permissions, sessionId: session.sessionId };
    },
    (request) => (request.toolCall.toolCallId === 'toolu_write1' ? 'reject' : 'allow'),
  );
  assert.equal(code, 0, 'the server exits cleanly when the client closes its input');
  assert.ok(value.all.every((u) => u.sessionId === value.sessionId));
  assert.deepEqual(
    value.permissions.map((p) => [
      p.toolCall.toolCallId,
      p.toolCall.kind,
      p.options.map((o: { kind: string }) => o.kind),
    ]),
    [['toolu_write1', 'edit', ['allow_always', 'allow_once', 'reject_once']]],
  );
  assertGolden('acp-server-prompt', normalize(value.firstUpdates, cwd));

  // The server's updates are the ACP projection of the same stream (plus usage_update), run as the ACP face runs it.
  const local: AgentMessage[] = [];
  const options = scriptedOptions({
    outcomePolicy: 'agentpipe',
    script: ACP_SCRIPT,
    allowedTools: ALLOWED,
    includePartialMessages: true,
    canUseTool: async (name) =>
      name === 'Write' ? { behavior: 'deny', message: 'The user rejected Write' } : { behavior: 'allow' },
  });
  for await (const m of query({ prompt: 'Tidy up the notes, please.', options })) local.push(m);
  const projected = normalize(toAcpUpdates(local), options.cwd);
  assert.deepEqual(
    normalize(value.firstUpdates, cwd).filter((u) => u.sessionUpdate !== 'usage_update'),
    projected,
  );
  const usage = value.firstUpdates.at(-1)!;
  assert.equal(usage.sessionUpdate, 'usage_update');
  assert.ok(usage.used > 0 && usage.size > 0 && usage.cost.currency === 'USD');
});
