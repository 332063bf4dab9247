/**
 * `--await-initialize`: user messages wait for the client's initialize; `--allow-dangerously-skip-permissions` is
 * accepted silently.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseLines, runCli, scriptedStreamArgs } from '../helpers/cli.ts';
import { StreamDriver } from '../helpers/stream-driver.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

const USER = { type: 'user', message: { role: 'user', content: 'hi' }, parent_tool_use_id: null, session_id: '' };

test('a user message sent before initialize waits for it, then runs', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'answer' }]);
  const cli = new StreamDriver(
    ['--model', 'scripted', '--script', script, '--await-initialize', '--no-session-persistence'],
    dir,
  );
  cli.send(USER);
  await sleep(400);
  assert.equal(cli.lines.length, 0, 'nothing runs before initialize');
  const response = await cli.control({ subtype: 'initialize', appendSystemPrompt: 'Be brief.' });
  assert.equal(response.subtype, 'success');
  const result = await cli.waitFor((l) => l.type === 'result');
  assert.equal(result.result, 'answer');
  const order = cli.lines.map((l) =>
    l.type === 'control_response' ? 'initialized' : l.subtype === 'init' ? 'init' : l.type,
  );
  assert.ok(order.indexOf('initialized') < order.indexOf('init'), order.join(' '));
  assert.equal(await cli.end(), 0);
});

test('without the flag the message runs at once (the SDK sends initialize and the prompt together)', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'answer' }]);
  const cli = new StreamDriver(['--model', 'scripted', '--script', script, '--no-session-persistence'], dir);
  cli.send(USER);
  const result = await cli.waitFor((l) => l.type === 'result');
  assert.equal(result.result, 'answer');
  assert.equal(await cli.end(), 0);
});

test('input that ends without initialize still runs the held messages, with a warning', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'answer' }]);
  const args = [
    '--input-format',
    'stream-json',
    ...scriptedStreamArgs(script),
    '--await-initialize',
    '--no-session-persistence',
  ];
  const { stdout, stderr, code } = await runCli(args, { cwd: dir, stdin: `${JSON.stringify(USER)}\n` });
  assert.equal(code, 0);
  assert.equal(parseLines(stdout).at(-1)!.result, 'answer');
  assert.match(stderr, /ended without an initialize request/);
});

test('--allow-dangerously-skip-permissions is accepted without a warning', async () => {
  const { stderr, code } = await runCli([
    '-p',
    'hi',
    '--model',
    'scripted',
    '--permission-mode',
    'bypassPermissions',
    '--allow-dangerously-skip-permissions',
    '--no-session-persistence',
  ]);
  assert.equal(code, 0);
  assert.doesNotMatch(stderr, /warning/);
});
