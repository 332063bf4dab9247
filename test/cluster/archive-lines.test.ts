/**
 * What an archived cluster transcript keeps is what a single-process transcript keeps (one rule,
 * `keepsInTranscript`): on a private redis-server, a log holding an `auth_status`, a prompt echo,
 * deltas and control lines archives to the prompt, the conversation and the result only, and the
 * file reads back as a transcript.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SessionLog, type LogMessage } from '../../src/cluster/redis.ts';
import { transcriptLine } from '../../src/cluster/log/index.ts';
import { keepsInTranscript } from '../../src/session/transcript.ts';
import { readTranscript } from '../../src/session/transcript-format.ts';
import type { AgentMessage } from '../../src/messages/types.ts';
import { tempDir } from '../helpers/workspace.ts';
import { startRedis } from './redis-server.ts';
import { assistant, delta, init, prompt, result, user } from './messages.ts';

const server = await startRedis();
const log = new SessionLog({ redis: server.url });
after(() => log.close());

test('an archive leaves out auth_status, echoes, deltas and control lines, as a transcript does', async () => {
  const id = randomUUID();
  const owner = randomUUID();
  assert.ok(await log.acquire(id, owner, 60_000));
  const auth = {
    type: 'auth_status',
    isAuthenticating: false,
    output: ['signed in'],
    uuid: randomUUID(),
    session_id: id,
  } as unknown as LogMessage;
  const echo = { ...user(id, 'hello'), isReplay: true } as unknown as LogMessage;
  const control = {
    type: 'control_request',
    request_id: '1@ab',
    request: { subtype: 'can_use_tool', tool_name: 'Bash', input: {} },
  } as unknown as LogMessage;
  const kept = [prompt(id, 'hello'), init(id), assistant(id, 'hi there'), result(id, 'hi there')];
  await log.append(id, owner, [kept[0]!, echo, auth, kept[1]!, delta(id, 'hi'), control, kept[2]!, kept[3]!]);
  assert.equal(transcriptLine(auth), undefined);
  assert.equal(keepsInTranscript(auth as unknown as AgentMessage), false, 'the same rule as Transcript.record');

  const file = path.join(tempDir(), `${id}.jsonl`);
  assert.equal(await log.archive(id, file, owner), kept.length);
  const lines = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, any>);
  assert.deepEqual(
    lines.map((l) => l.uuid),
    kept.map((m) => (m as { uuid: string }).uuid),
  );
  assert.ok(
    lines.every((l) => typeof l.timestamp === 'string'),
    'a timestamp on every line',
  );
  assert.equal((await readTranscript(file, () => undefined)).length, kept.length, 'it reads back');
});
