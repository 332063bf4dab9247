/**
 * A library query whose worker is killed with SIGKILL mid-tool: another worker takes the session
 * over from its log and the query goes on as a `serve --redis` client would: a `system/worker_lost`
 * notice, the cut call's outcome reported unknown, the cut prompt goes on to its one (successful)
 * result, the next prompt is answered with the history, nothing comes twice.
 */
import { test } from 'node:test';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { query } from '../../src/index.ts';
import type { PromptMessage } from '../../src/sdk/types.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { startRedis } from './redis-server.ts';
import { kill9, startWorker, UNTIL_RELEASED } from './cluster.ts';

const redis = await startRedis();

test('the worker of a query killed mid-tool: the query is told, the call is reported unknown, the prompt goes on to its one result on another worker', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [
    { text: 'running it', tool_calls: [{ name: 'Bash', id: 'toolu_slow', input: { command: UNTIL_RELEASED } }] },
    { text: 'never sent' },
  ]);
  const first = await startWorker(redis.url);
  const queue: Array<string | null> = [];
  let wake: (() => void) | undefined;
  const push = (text: string | null): void => {
    queue.push(text);
    wake?.();
  };
  async function* prompts(): AsyncGenerator<PromptMessage> {
    for (;;) {
      const next = queue.shift();
      if (next === null) return;
      if (next !== undefined)
        yield { type: 'user', message: { role: 'user', content: next }, parent_tool_use_id: null };
      else await new Promise<void>((resolve) => (wake = resolve));
    }
  }
  push('run the slow command');
  const messages: Array<Record<string, any>> = [];
  let second: Awaited<ReturnType<typeof startWorker>> | undefined;
  let killedAt = 0;
  for await (const message of query({
    prompt: prompts(),
    options: {
      model: 'scripted',
      script,
      cwd: dir,
      permissionMode: 'bypassPermissions',
      cluster: { redis: redis.url },
    },
  })) {
    const m = message as Record<string, any>;
    messages.push(m);
    if (m.type === 'assistant' && m.message.content.some((b: any) => b.id === 'toolu_slow') && !second) {
      await first.waitFor(/session \S+: started/);
      // The new owner's model goes on with the cut prompt, then answers the next (a fresh process reads the script).
      writeScript(dir, [{ text: 'carried on' }, { text: 'second answer' }]);
      second = await startWorker(redis.url);
      killedAt = Date.now();
      await kill9(first);
    }
    const results = messages.filter((r) => r.type === 'result').length;
    if (m.type === 'result' && results === 1) push('and now?');
    if (m.type === 'result' && results === 2) push(null);
  }
  const results = messages.filter((m) => m.type === 'result');
  assert.deepEqual(
    results.map((r) => [r.subtype, r.result ?? r.errors?.[0]]),
    [
      ['success', 'carried on'],
      ['success', 'second answer'],
    ],
  );
  const lost = messages.find((m) => m.type === 'system' && m.subtype === 'worker_lost');
  assert.deepEqual(lost?.unknown_tool_use_ids, ['toolu_slow']);
  const unknown = messages.find((m) => m.type === 'user' && m.message.content[0]?.tool_use_id === 'toolu_slow');
  assert.match(unknown?.message.content[0].content, /^The outcome of this tool call is unknown/);
  assert.ok(Date.now() - killedAt < 20_000);
  const ids = messages.flatMap((m) => (m.uuid ? [m.uuid] : []));
  assert.equal(new Set(ids).size, ids.length, 'nothing twice');
  assert.ok(messages.every((m) => m.session_id === messages[0]!.session_id));
  await kill9(second!);
  writeFileSync(path.join(dir, 'release'), ''); // the dead worker's orphaned call ends
});
