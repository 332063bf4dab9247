/** ACP requests with malformed params are refused with a JSON-RPC error; the agent goes on. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scriptedOptions } from '../sdk/scripted-session.ts';
import { withAcpAgent } from '../acp/client.ts';

test('acp: malformed session/new and session/prompt params are invalid-params errors; the agent stays up', async () => {
  const { cwd } = scriptedOptions();
  const { value } = await withAcpAgent(['--model', 'scripted'], async (ctx) => {
    await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const errors: string[] = [];
    const refused = async (method: string, params: unknown) => {
      try {
        await ctx.request(method as 'session/new', params as never);
        errors.push(`${method}: accepted`);
      } catch (error) {
        errors.push(`${method}: ${(error as { code?: number }).code} ${(error as Error).message}`);
      }
    };
    await refused('session/new', { cwd, mcpServers: 'not a list' });
    await refused('session/new', { cwd, mcpServers: [{ name: 'x' }] });
    await refused('session/new', { cwd, mcpServers: [{ type: 'http', name: 'x', url: 'not a url', headers: [] }] });
    const { sessionId } = await ctx.request('session/new', { cwd, mcpServers: [] });
    await refused('session/prompt', { sessionId, prompt: 'hi' });
    await refused('session/prompt', { sessionId, prompt: [{ type: 'image', data: 'AAAA', mimeType: 'text/html' }] });
    const { stopReason } = await ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    return { errors, stopReason };
  });
  console.log(value.errors);
  assert.equal(value.stopReason, 'end_turn');
});
