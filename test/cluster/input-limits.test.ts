/**
 * `serve --redis` under hostile input (issue 27): one 10,000-deep message killed the front end
 * (an uncaught RangeError when it gave a user message its uuid). Now the worker's parser refuses
 * it and the client gets its error result through the log, a frame over the limit closes only its
 * own connection, and the front end serves the next client.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hostileCases, unmetDebts } from '../helpers/hostile-json.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { Client, prompt, startFrontEnd, startWorker } from './cluster.ts';
import { startRedis } from './redis-server.ts';

const redis = await startRedis();
const MAX_LINE = 2_000_000;
const LIMITS = { AGENTPIPE_MAX_INPUT_LINE: String(MAX_LINE) };

test('serve --redis: hostile frames are refused or answered through the log; a frame over the limit closes only its connection', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'wide ok' }, { text: 'fine' }]);
  const flags = ['--model', 'scripted', '--script', script, '--cwd', dir];
  await startWorker(redis.url, LIMITS);
  const front = await startFrontEnd(redis.url, flags, LIMITS);
  const cases = hostileCases(MAX_LINE).filter((c) => c.line.length < MAX_LINE);

  const client = new Client(front.url);
  await client.open();
  for (const c of cases) client.send(`${c.line}\n`);
  client.send(prompt('good'));
  const owed = cases.filter((c) => c.owes.kind === 'result').length + 1;
  await client.until(() => client.results().length === owed, `${owed} results`, 30_000);
  const answered = cases.filter((c) => c.owes.kind === 'control_response').length;
  await client.until(
    () => client.messages.filter((m) => m.type === 'control_response').length === answered,
    `${answered} control responses`,
  );
  assert.deepEqual(unmetDebts(cases, client.messages), []);
  client.ws.close();

  const huge = new Client(front.url);
  await huge.open();
  huge.send(prompt('x'.repeat(MAX_LINE + 1)));
  assert.equal((await huge.closed).code, 1009, 'Message Too Big');

  const next = new Client(front.url);
  await next.open();
  next.send(prompt('still there?'));
  await next.until(() => next.results().length === 1, 'the next client gets its result');
  assert.equal(next.results()[0]!.is_error, false);
  assert.equal(front.child.exitCode, null, 'the front end lives on');
  assert.doesNotMatch(front.stderr(), /RangeError|internal error/);
});
