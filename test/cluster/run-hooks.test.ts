/**
 * A session's later run registers only its own client's hooks, with real `agentpipe worker`
 * processes on a private Redis: a query with a PreToolUse hook runs a Bash call (the hook is
 * asked); after its run ended, a client with no hooks (a ClusterClient pushing a plain prompt)
 * runs the next Bash call with no `hook_callback` request in the log, and its turn is not held by
 * the old hook's timeout.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { query } from '../../src/index.ts';
import { ClusterClient } from '../../src/cluster/session-client.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { startRedis } from './redis-server.ts';
import { kill9, prompt, startWorker } from './cluster.ts';

const redis = await startRedis();
// A hook callback nobody answers would hold the turn for its timeout (60 s by default).
const worker = await startWorker(redis.url);
const client = await ClusterClient.open({ redis: redis.url });
after(async () => {
  await client.close();
  await kill9(worker);
});

type Message = Record<string, any>;

test("a later run does not register an earlier client's hooks", async () => {
  const dir = tempDir();
  const script = writeScript(dir, [
    { text: 'one', tool_calls: [{ name: 'Bash', id: 'toolu_one', input: { command: 'echo one' } }] },
    { text: 'done one' },
  ]);
  // The second run's own script (a scripted model counts its turns per process).
  const script2 = writeScript(
    dir,
    [
      { text: 'two', tool_calls: [{ name: 'Bash', id: 'toolu_two', input: { command: 'echo two' } }] },
      { text: 'done two' },
    ],
    'script2.json',
  );
  const options = {
    model: 'scripted',
    script,
    cwd: dir,
    permissionMode: 'bypassPermissions' as const,
    cluster: { redis: redis.url },
  };
  const hooked: string[] = [];
  let sessionId = '';
  for await (const raw of query({
    prompt: 'first',
    options: {
      ...options,
      hooks: {
        PreToolUse: [{ matcher: 'Bash', hooks: [async (_input, toolUseId) => (hooked.push(toolUseId!), {})] }],
      },
    },
  })) {
    const m = raw as Message;
    sessionId ||= m.session_id;
    if (m.type === 'result') assert.equal(m.subtype, 'success');
  }
  assert.deepEqual(hooked, ['toolu_one'], 'the first client registered its hook, and it was asked');
  const stop = new AbortController();
  const ended = async (): Promise<number> => {
    let ends = 0;
    for (const e of await client.sessions.read(sessionId)) if (e.message.type === 'agentpipe_session_end') ends++;
    return ends;
  };
  // The first run ends (query ended its input); its client's registration goes with it.
  for await (const { entry } of client.sessions.follow(sessionId, '0-0', stop.signal))
    if (entry.message.type === 'agentpipe_session_end') break;
  assert.equal(await ended(), 1);
  // Its job let go (else a run of the first job's options would take the next prompt as input that came as it ended).
  await worker.waitFor(new RegExp(`session ${sessionId}: ended`));

  // A client with no hooks: a plain prompt line into the inbox, the session started again.
  const from = await client.sessions.lastId(sessionId);
  const started = Date.now();
  await client.push(sessionId, [prompt('second').trim()]);
  await client.start({
    sessionId,
    options: { model: 'scripted', script: script2, cwd: dir, permissionMode: 'bypassPermissions' },
    stream: {},
  });
  const second: Message[] = [];
  for await (const { entry } of client.sessions.follow(sessionId, from, stop.signal)) {
    second.push(entry.message as unknown as Message);
    if (entry.message.type === 'result') break;
  }
  stop.abort();
  const tookMs = Date.now() - started;
  const result = second.at(-1)!;
  assert.equal(result.subtype, 'success', JSON.stringify(result));
  assert.equal(result.result, 'done two');
  const requests = second.filter((m) => m.type === 'control_request').map((m) => m.request.subtype);
  assert.deepEqual(requests, [], 'no hook_callback for the earlier client');
  assert.ok(tookMs < 15_000, `the turn was not held by an old hook (${tookMs} ms)`);
  assert.ok(
    second.some((m) => m.type === 'user' && m.message.content.some?.((b: any) => b.tool_use_id === 'toolu_two')),
    'the Bash call ran',
  );
  assert.equal((await client.sessions.stateRequests(sessionId)).has('initialize'), false, 'only the current client');
});
