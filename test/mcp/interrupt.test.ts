/** An interrupt aborts an MCP call in flight: the server sees notifications/cancelled. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startCli } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { fixtureServer, mcpCliArgs, userLine } from './helpers.ts';

test('interrupting a running MCP call cancels it on the server and ends the prompt', async (t) => {
  const dir = tempDir();
  const marker = path.join(dir, 'marker.txt');
  const script = writeScript(dir, [
    { tool_calls: [{ name: 'mcp__t__sleep', input: { ms: 30_000 } }] },
    { text: 'after' },
  ]);
  // The server writes its marker outside the session's folder: its config opens that folder in its sandbox.
  const server = { ...fixtureServer({ MARKER_FILE: marker }), sandbox: { allowWrite: [dir] } };
  const child = startCli(mcpCliArgs({ t: server }, script));
  const lines: Array<Record<string, any>> = [];
  let buffer = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    buffer += d;
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      lines.push(JSON.parse(buffer.slice(0, i)));
      buffer = buffer.slice(i + 1);
    }
  });
  const closed = new Promise((resolve) => child.on('close', resolve));
  // A failed assertion must not leave the CLI (and its server) holding the test file open.
  t.after(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  child.stdin!.write(`${userLine('go')}\n`);
  // Each wait is for an event (the runner's timeout bounds them): a loaded machine may take long to start a server.
  while (!(existsSync(marker) && readFileSync(marker, 'utf8').includes('started'))) await sleep(50);
  const interruptedAt = Date.now();
  child.stdin!.write(
    `${JSON.stringify({ type: 'control_request', request_id: 'int-1', request: { subtype: 'interrupt' } })}\n`,
  );
  while (!lines.some((m) => m.type === 'result')) await sleep(20);
  const result = lines.find((m) => m.type === 'result')!;
  // The call sleeps 30 s on the server: a result well before that means the interrupt ended it.
  assert.ok(Date.now() - interruptedAt < 25_000, 'the prompt ended before the call would have');
  assert.equal(result.subtype, 'error_during_execution');
  const toolResult = lines.find((m) => m.type === 'user' && m.message.content[0]?.type === 'tool_result')!.message
    .content[0];
  assert.equal(toolResult.is_error, true);
  assert.match(toolResult.content, /mcp__t__sleep was interrupted/);
  while (!readFileSync(marker, 'utf8').includes('cancelled')) await sleep(50);
  assert.match(readFileSync(marker, 'utf8'), /cancelled/, 'the server got notifications/cancelled');
  child.stdin!.end();
  await closed;
});
