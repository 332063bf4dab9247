/**
 * Malformed control requests and answers from the client: each gets a clear error (an error
 * response, a denied tool, a failed hook) and the session goes on.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StreamDriver } from '../helpers/stream-driver.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

const ARGS = ['--model', 'scripted', '--no-session-persistence'];

test('initialize with a bad hook matcher regex or a bad MCP server config is an error response; the session goes on', async () => {
  const dir = tempDir();
  const cli = new StreamDriver([...ARGS, '--script', writeScript(dir, [{ text: 'still here' }])], dir);
  const badRegex = await cli.control({
    subtype: 'initialize',
    hooks: { PreToolUse: [{ matcher: 'Bash(', hookCallbackIds: ['h1'] }] },
  });
  assert.equal(badRegex.subtype, 'error');
  assert.match(badRegex.error, /PreToolUse hook matcher "Bash\(" is not a valid regular expression/);
  const badServer = await cli.control({ subtype: 'initialize', mcpServers: { web: { type: 'http', url: 'ftp://x' } } });
  assert.equal(badServer.subtype, 'error');
  assert.match(badServer.error, /MCP server "web": "url" must be an http\(s\) URL/);
  const badField = await cli.control({ subtype: 'initialize', systemPrompt: 42 });
  assert.equal(badField.subtype, 'error');
  assert.match(badField.error, /^initialize: .*\(at systemPrompt\)/);
  const badSet = await cli.control({ subtype: 'mcp_set_servers', servers: { s: { command: '' } } });
  assert.equal(badSet.subtype, 'error');
  assert.match(badSet.error, /MCP server "s": "command" must be a non-empty string/);
  assert.equal((await cli.control({ subtype: 'initialize' })).subtype, 'success');
  assert.equal((await cli.prompt('hi')).result, 'still here');
  assert.equal(await cli.end(), 0);
});

test('a malformed can_use_tool answer denies the tool with a clear message; the turn goes on', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [
    { tool_calls: [{ name: 'Bash', input: { command: 'touch made-it' } }] },
    { text: 'done' },
  ]);
  const cli = new StreamDriver([...ARGS, '--script', script, '--permission-prompt-tool', 'stdio'], dir);
  const from = cli.lines.length;
  cli.send({ type: 'user', message: { role: 'user', content: 'go' }, parent_tool_use_id: null, session_id: '' });
  const ask = await cli.waitFor((l) => l.type === 'control_request' && l.request.subtype === 'can_use_tool', from);
  cli.send({
    type: 'control_response',
    response: { subtype: 'success', request_id: ask.request_id, response: { behavior: 'maybe' } },
  });
  const result = await cli.waitFor((l) => l.type === 'result', from);
  assert.equal(result.subtype, 'success');
  const toolResult = cli.lines.find(
    (l) => l.type === 'user' && Array.isArray(l.message.content) && l.message.content[0]?.type === 'tool_result',
  );
  assert.match(
    String(toolResult?.message.content[0].content),
    /Permission check for Bash failed: invalid can_use_tool answer: .*\(at behavior\)/,
  );
  assert.equal(await cli.end(), 0);
});

test('a malformed hook_callback answer makes the hook fail (hook_response outcome error); the tool still runs', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [
    { tool_calls: [{ name: 'Read', input: { file_path: 'a.txt' } }] },
    { text: 'read it' },
  ]);
  const cli = new StreamDriver([...ARGS, '--script', script, '--include-hook-events'], dir);
  assert.equal(
    (
      await cli.control({
        subtype: 'initialize',
        hooks: { PreToolUse: [{ matcher: 'Read', hookCallbackIds: ['h1'] }] },
      })
    ).subtype,
    'success',
  );
  const from = cli.lines.length;
  cli.send({ type: 'user', message: { role: 'user', content: 'go' }, parent_tool_use_id: null, session_id: '' });
  const call = await cli.waitFor((l) => l.type === 'control_request' && l.request.subtype === 'hook_callback', from);
  cli.send({
    type: 'control_response',
    response: { subtype: 'success', request_id: call.request_id, response: { decision: 'perhaps', continue: 'no' } },
  });
  const hook = await cli.waitFor((l) => l.type === 'system' && l.subtype === 'hook_response', from);
  assert.equal(hook.outcome, 'error');
  assert.match(hook.stderr, /invalid hook output: .*\(at decision\)/);
  assert.match(hook.stderr, /invalid hook output: .*\(at continue\)/);
  assert.equal((await cli.waitFor((l) => l.type === 'result', from)).subtype, 'success');
  assert.equal(await cli.end(), 0);
});
