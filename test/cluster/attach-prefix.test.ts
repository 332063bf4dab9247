/**
 * `agentpipe attach <prefix>` on a private redis-server: a unique start of a session's id prints that session's log;
 * a start that fits several is one line listing them; one that fits none is the one line it always was.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { SessionLog } from '../../src/cluster/redis.ts';
import { parseLines, runCli } from '../helpers/cli.ts';
import { startRedis } from './redis-server.ts';
import { assistant, init, prompt, result } from './messages.ts';

const server = await startRedis({ persistence: false });
const log = new SessionLog({ redis: server.url });
after(async () => {
  await log.close();
  await server.stop();
});

const IDS = [
  'cafe0001-0000-4000-8000-000000000001',
  'cafe0002-0000-4000-8000-000000000002',
  'd00d0003-0000-4000-8000-000000000003',
];

test('attach takes a unique start of a session id; an ambiguous or unknown one is one line', async () => {
  for (const id of IDS) {
    assert.ok(await log.acquire(id, 'token', 60_000));
    await log.append(id, 'token', [
      init(id),
      prompt(id, `hello ${id}`),
      assistant(id, `answer ${id}`),
      result(id, 'ok'),
    ]);
    await log.release(id, 'token');
  }
  const redis = ['--redis', server.url, '--no-follow'];

  const one = await runCli(['attach', 'D00D', ...redis]);
  assert.equal(one.code, 0, one.stderr);
  const lines = parseLines(one.stdout);
  // As stream-json prints a run (the prompt is not echoed).
  assert.deepEqual(
    lines.map((l) => l.type),
    ['system', 'assistant', 'result'],
  );
  assert.ok(lines.every((l) => l.session_id === IDS[2]));

  const ambiguous = await runCli(['attach', 'cafe', ...redis]);
  assert.equal(ambiguous.code, 1);
  assert.equal(ambiguous.stdout, '');
  assert.equal(
    ambiguous.stderr,
    `agentpipe attach: error: session id prefix cafe is ambiguous: ${IDS[0]}, ${IDS[1]} (give more of the id)\n`,
  );

  const none = await runCli(['attach', 'beef', ...redis]);
  assert.equal(none.code, 1);
  assert.equal(
    none.stderr,
    'agentpipe attach: error: no session beef in Redis (not started yet, archived or deleted)\n',
  );
});
