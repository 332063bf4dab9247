/**
 * Requests between agentpipe and its client end: a permission request pending when the input
 * ends is refused (one result, a clear line on stderr), an unanswered one times out and is
 * cancelled, and the client's control_cancel_request cancels an inbound request's work.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parseLines, startCli } from '../helpers/cli.ts';
import { StreamDriver } from '../helpers/stream-driver.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { FIXTURE } from '../mcp/helpers.ts';

const STREAM = [
  '--input-format',
  'stream-json',
  '--output-format',
  'stream-json',
  '--verbose',
  '--permission-prompt-tool',
  'stdio',
];
const writeTurn = [
  { tool_calls: [{ name: 'Write', id: 'toolu_w', input: { file_path: 'x.txt', content: 'x' } }] },
  { text: 'done' },
];
const user = (text: string) =>
  JSON.stringify({ type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null, session_id: '' }) +
  '\n';

test('stdin ends while can_use_tool waits: the tool is denied, one result, a line on stderr, exit', async () => {
  const dir = tempDir();
  const script = writeScript(dir, writeTurn);
  const child = startCli([...STREAM, '--model', 'scripted', '--script', script], { cwd: dir });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    // The permission request is out: end the input without answering it.
    if (stdout.includes('"can_use_tool"')) child.stdin!.end();
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin!.write(user('write it'));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const lines = parseLines(stdout);
  const results = lines.filter((l) => l.type === 'result');
  assert.equal(results.length, 1, stdout);
  assert.deepEqual(
    results[0]!.permission_denials.map((d: { tool_use_id: string }) => d.tool_use_id),
    ['toolu_w'],
  );
  assert.match(stderr, /can_use_tool\) was not answered: the input closed/);
  assert.equal(existsSync(path.join(dir, 'x.txt')), false);
  assert.equal(code, 0);
});

test('an unanswered can_use_tool times out (AGENTPIPE_CONTROL_TIMEOUT_MS): cancelled to the client, tool denied, prompt ends', async () => {
  const dir = tempDir();
  const script = writeScript(dir, writeTurn);
  process.env.AGENTPIPE_CONTROL_TIMEOUT_MS = '300';
  const driver = new StreamDriver(
    ['--permission-prompt-tool', 'stdio', '--model', 'scripted', '--script', script],
    dir,
  );
  delete process.env.AGENTPIPE_CONTROL_TIMEOUT_MS;
  const result = await driver.prompt('write it');
  const request = driver.lines.find((l) => l.type === 'control_request' && l.request.subtype === 'can_use_tool');
  assert.ok(request);
  assert.ok(
    driver.lines.some((l) => l.type === 'control_cancel_request' && l.request_id === request.request_id),
    'the request was cancelled',
  );
  assert.deepEqual(
    result.permission_denials.map((d: { tool_use_id: string }) => d.tool_use_id),
    ['toolu_w'],
  );
  assert.equal(await driver.end(), 0);
});

test('control_cancel_request from the client cancels an inbound mcp_call: the MCP server sees the cancellation', async () => {
  const dir = tempDir();
  const marker = path.join(dir, 'marker');
  const mcp = JSON.stringify({
    mcpServers: { t: { command: process.execPath, args: [FIXTURE], env: { MARKER_FILE: marker } } },
  });
  const driver = new StreamDriver(['--model', 'scripted', '--mcp-config', mcp], dir);
  driver.send({
    type: 'control_request',
    request_id: 'call_1',
    request: { subtype: 'mcp_call', tool: 'mcp__t__sleep', arguments: { ms: 30_000 } },
  });
  // Cancel once the MCP server is running the call (it marks 'started').
  while (!(existsSync(marker) && readFileSync(marker, 'utf8').includes('started')))
    await new Promise((r) => setTimeout(r, 20));
  driver.send({ type: 'control_cancel_request', request_id: 'call_1' });
  const response = await driver.waitFor((l) => l.type === 'control_response' && l.response.request_id === 'call_1');
  assert.equal(response.response.subtype, 'error');
  for (let i = 0; i < 250 && !readFileSync(marker, 'utf8').includes('cancelled'); i++)
    await new Promise((r) => setTimeout(r, 20));
  assert.match(readFileSync(marker, 'utf8'), /cancelled/);
  await driver.end();
});
