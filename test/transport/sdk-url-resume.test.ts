/** `--sdk-url` opens its session as stdio does: transcript, `--resume`, and a clean error result for a bad one. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocketServer, type WebSocket } from 'ws';
import { anthropic, CLAUDE, place, text, transcripts, type Place } from '../session/helpers.ts';
import { collectLines, kinds, userLine, watchedCli } from './ws-helpers.ts';

/** A WebSocket server for one `--sdk-url` run: sends `prompt` then end_input, collects every line. */
async function sdkUrlRun(p: Place, args: string[], prompt: string, env: Record<string, string>) {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((resolve) => wss.once('listening', resolve));
  const lines: Array<Record<string, any>> = [];
  wss.on('connection', (ws: WebSocket) => {
    ws.send(userLine(prompt) + '{"type":"end_input"}\n');
    collectLines(ws, lines);
  });
  const port = (wss.address() as { port: number }).port;
  const cli = watchedCli(['--sdk-url', `ws://127.0.0.1:${port}/`, '--cwd', p.cwd, ...args], { ...p.env, ...env });
  const code = await cli.exited;
  await new Promise((resolve) => wss.close(resolve));
  return { lines, code, stderr: cli.stderr() };
}

test('--sdk-url writes the transcript; a resumed --sdk-url run continues the session with its history', async () => {
  const p = place();
  const server = await anthropic([text('Noted: 42.'), text('It was 42.')]);
  const first = await sdkUrlRun(p, CLAUDE, 'remember 42', server.env);
  assert.equal(first.code, 0, first.stderr);
  assert.deepEqual(kinds(first.lines), ['system/init', 'assistant', 'result']);
  const sessionId = first.lines[0]!.session_id;
  assert.equal(transcripts(p.home).length, 1);

  const second = await sdkUrlRun(p, [...CLAUDE, '--resume', sessionId], 'what number?', server.env);
  assert.equal(second.code, 0, second.stderr);
  assert.equal(second.lines[0]!.session_id, sessionId);
  assert.equal(second.lines.at(-1)!.result, 'It was 42.');
  assert.deepEqual(server.requests[1]!.body.messages, [
    { role: 'user', content: 'remember 42' },
    { role: 'assistant', content: [{ type: 'text', text: 'Noted: 42.' }] },
    { role: 'user', content: 'what number?' },
  ]);
  assert.equal(transcripts(p.home).length, 1, 'the resumed run appends to the same transcript');
});

test('--sdk-url --resume of an unknown session: an error result for the client, the reason on stderr, exit 1', async () => {
  const p = place();
  const r = await sdkUrlRun(p, ['--model', 'scripted', '--resume', '00000000-0000-4000-8000-000000000000'], 'hi', {});
  assert.equal(r.code, 1);
  assert.deepEqual(kinds(r.lines), ['result']);
  assert.equal(r.lines[0]!.is_error, true);
  assert.deepEqual(r.lines[0]!.errors, ['No conversation found with session ID: 00000000-0000-4000-8000-000000000000']);
  assert.match(r.stderr, /agentpipe: error: No conversation found with session ID/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
});

test('--sdk-url without an API key: auth_status then a clean error result over the socket', async () => {
  const p = place();
  const r = await sdkUrlRun(p, ['--model', 'claude-sonnet-4-5'], 'hi', { ANTHROPIC_API_KEY: '' });
  assert.equal(r.code, 1);
  assert.deepEqual(kinds(r.lines), ['auth_status', 'system/init', 'assistant', 'result']);
  assert.match(r.lines[0]!.error, /No Anthropic API key/);
  // Ended on the failed request as Claude Code ends one: success, is_error, the error's text.
  assert.deepEqual([r.lines.at(-1)!.subtype, r.lines.at(-1)!.is_error], ['success', true]);
});
