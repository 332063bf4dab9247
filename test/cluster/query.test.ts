/**
 * The library face of the cluster: `query({prompt, options: {cluster: {redis}}})` runs on real
 * `agentpipe worker` processes through a private Redis, like a client of `serve --redis`: the
 * same typed stream as in-process; control requests (set_model, set_permission_mode, interrupt)
 * reach the owning worker and their answers come back; the worker's `can_use_tool` and
 * `hook_callback` requests are answered by this process's callbacks; `resume` goes on with the
 * session's history; Redis unreachable or no worker gives one clean error result, never a hang.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { query, type QueryOptions } from '../../src/index.ts';
import { SessionLog } from '../../src/cluster/redis.ts';
import type { PromptMessage } from '../../src/sdk/types.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { freePort, startRedis } from './redis-server.ts';
import { kill9, startWorker } from './cluster.ts';

const redis = await startRedis();
const worker = await startWorker(redis.url);
after(() => kill9(worker));

type Message = Record<string, any>;

const kinds = (messages: Message[]): string[] =>
  messages.map((m) => (m.type === 'system' ? `system/${m.subtype}` : m.type));

async function collect(prompt: string | AsyncIterable<PromptMessage>, options: QueryOptions): Promise<Message[]> {
  const messages: Message[] = [];
  for await (const message of query({ prompt, options })) messages.push(message as Message);
  return messages;
}

/** A prompt stream the test pushes into; `end()` ends it. */
function prompts(): AsyncIterable<PromptMessage> & { push(text: string): void; end(): void } {
  const items: Array<PromptMessage | null> = [];
  let wake: (() => void) | undefined;
  return {
    push(text) {
      items.push({ type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null });
      wake?.();
    },
    end() {
      items.push(null);
      wake?.();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const item = items.shift();
        if (item === null) return;
        if (item) yield item;
        else await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
}

const textOf = (m: Message | undefined): string => {
  const content = m?.message?.content;
  if (typeof content === 'string') return content;
  return (content ?? [])
    .map((b: any) => (typeof b.text === 'string' ? b.text : typeof b.content === 'string' ? b.content : ''))
    .join('');
};

test('a string prompt on the worker pool: the same typed stream as in-process (deltas and the prompt echo included), one result', async () => {
  const dir = tempDir();
  const turns = [
    { text: 'listing', tool_calls: [{ name: 'Bash', id: 'toolu_ls', input: { command: 'echo listed' } }] },
    { text: 'all listed' },
  ];
  const base: QueryOptions = {
    model: 'scripted',
    cwd: dir,
    permissionMode: 'bypassPermissions',
    includePartialMessages: true,
    replayUserMessages: true,
    persistSession: false,
  };
  const local = await collect('list it', { ...base, script: writeScript(dir, turns, 'local.json') });
  const remote = await collect('list it', {
    ...base,
    script: writeScript(dir, turns, 'remote.json'),
    cluster: { redis: redis.url },
  });

  assert.deepEqual(kinds(remote), kinds(local), 'the same messages in the same order');
  const result = remote.at(-1)!;
  assert.equal(result.type, 'result');
  assert.deepEqual([result.subtype, result.result], ['success', 'all listed']);
  assert.equal(remote.filter((m) => m.type === 'result').length, 1);
  const sessionId = remote[0]!.session_id;
  assert.ok(
    remote.every((m) => m.session_id === sessionId),
    'one session id',
  );
  const ids = remote.flatMap((m) => (m.uuid ? [m.uuid] : []));
  assert.equal(new Set(ids).size, ids.length, 'no message twice');
  const [echo, toolResult] = remote.filter((m) => m.type === 'user');
  assert.deepEqual([echo!.isReplay, echo!.message.content], [true, 'list it'], 'the prompt echo');
  assert.match(textOf(toolResult), /listed/);
  // The deltas join to the final text, as in-process.
  const deltas = remote
    .filter((m) => m.type === 'stream_event' && m.event.delta?.type === 'text_delta')
    .map((m) => m.event.delta.text)
    .join('');
  assert.equal(deltas, 'listingall listed');
});

// The calls write through a redirection: acceptEdits runs a plain `touch` on its own (shell/accept-edits.ts).
test('control requests reach the owning worker (set_model, set_permission_mode, interrupt); canUseTool and a PreToolUse hook answer its requests', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [
    { text: 'first answer' },
    {
      tool_calls: [
        { name: 'Bash', id: 'toolu_denied', input: { command: 'printf x > denied.txt' } },
        { name: 'Bash', id: 'toolu_allowed', input: { command: 'printf x > allowed.txt' } },
      ],
    },
    { text: 'two asked' },
    { text: 'starting', tool_calls: [{ name: 'Bash', id: 'toolu_slow', input: { command: 'sleep 30' } }] },
    { text: 'never reached' },
  ]);
  const asked: string[] = [];
  const hooked: Array<[string, unknown]> = [];
  let slowHooked!: () => void;
  const slowCallHooked = new Promise<void>((resolve) => (slowHooked = resolve));
  const input = prompts();
  const q = query({
    prompt: input,
    options: {
      model: 'scripted',
      script,
      cwd: dir,
      persistSession: false,
      cluster: { redis: redis.url },
      canUseTool: async (tool, toolInput, { toolUseId }) => {
        asked.push(toolUseId);
        if (toolInput.command === 'printf x > denied.txt') return { behavior: 'deny', message: 'not that one' };
        return { behavior: 'allow', updatedInput: toolInput };
      },
      hooks: {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              async (hookInput, toolUseId) => {
                const { command } = hookInput.tool_input as { command: string };
                hooked.push([toolUseId ?? '', command]);
                if (command === 'sleep 30') slowHooked();
                return { continue: true };
              },
            ],
          },
        ],
      },
    },
  });
  input.push('first');
  const messages: Message[] = [];
  let models: string[] = [];
  let results = 0;
  for await (const raw of q) {
    const message = raw as Message;
    messages.push(message);
    if (message.type === 'result') results++;
    if (message.type === 'result' && results === 1) {
      models = (await q.supportedModels()).map((m) => m.value);
      await q.setModel('other-model');
      await q.setPermissionMode('acceptEdits');
      input.push('second');
    } else if (message.type === 'result' && results === 2) {
      await q.setPermissionMode('bypassPermissions');
      input.push('third');
    } else if (message.type === 'assistant' && message.message.content.some((b: any) => b.id === 'toolu_slow')) {
      await slowCallHooked;
      await q.interrupt();
    } else if (message.type === 'result' && results === 3) input.end();
  }

  const inits = messages.filter((m) => m.type === 'system' && m.subtype === 'init');
  assert.deepEqual(
    inits.map((m) => [m.model, m.permissionMode]),
    [
      ['scripted', 'default'],
      ['other-model', 'acceptEdits'],
      ['other-model', 'bypassPermissions'],
    ],
    'set_model and set_permission_mode reached the worker',
  );
  assert.ok(models.includes('scripted'), `supportedModels() answered by the worker: ${models.join(', ')}`);
  assert.deepEqual(asked.sort(), ['toolu_allowed', 'toolu_denied'], 'canUseTool was asked for both calls');
  assert.deepEqual(
    hooked.sort(),
    [
      ['toolu_allowed', 'printf x > allowed.txt'],
      ['toolu_denied', 'printf x > denied.txt'],
      ['toolu_slow', 'sleep 30'],
    ],
    'the hook saw every Bash call',
  );
  assert.equal(existsSync(path.join(dir, 'denied.txt')), false);
  assert.equal(existsSync(path.join(dir, 'allowed.txt')), true);
  const denied = messages.find(
    (m) => m.type === 'user' && m.message.content.some?.((b: any) => b.tool_use_id === 'toolu_denied'),
  );
  assert.match(textOf(denied), /not that one/);
  const all = messages.filter((m) => m.type === 'result');
  assert.deepEqual(
    all.map((r) => r.subtype),
    ['success', 'success', 'error_during_execution'],
    'one result per prompt; the interrupted one ends with its error result',
  );
  assert.equal(all[2]!.terminal_reason, 'aborted_tools');
  assert.equal(all[1]!.permission_denials.length, 1);
  assert.equal(all[1]!.permission_denials[0].tool_use_id, 'toolu_denied');
  assert.ok(messages.at(-1)!.type === 'result', 'the stream ends after the last result');
});

test('resume: a second query on the session goes on with its history, on whichever worker takes it', async () => {
  const dir = tempDir();
  const debugFile = path.join(dir, 'debug.log');
  const script = writeScript(dir, [{ text: 'Noted: 42.' }]);
  const options: QueryOptions = {
    model: 'scripted',
    script,
    cwd: dir,
    debug: 'api',
    debugFile,
    cluster: { redis: redis.url },
  };
  const first = await collect('remember 42', options);
  const sessionId = first[0]!.session_id;
  assert.equal(first.at(-1)!.result, 'Noted: 42.');

  writeScript(dir, [{ text: 'It was 42.' }]);
  const second = await collect('what number?', { ...options, resume: sessionId });
  assert.deepEqual(kinds(second), ['system/init', 'assistant', 'result'], 'only the new messages');
  assert.ok(second.every((m) => m.session_id === sessionId));
  assert.equal(second.at(-1)!.result, 'It was 42.');
  const requests = readFileSync(debugFile, 'utf8')
    .split('\n')
    .filter((l) => /request: model/.test(l));
  assert.equal(requests.length, 2, requests.join('\n'));
  assert.match(requests[1]!, /, 3 messages,/, `the resumed request holds the history:\n${requests.join('\n')}`);

  // Resumed again and again at once: each run starts while the last one's job may still be finishing.
  for (let i = 0; i < 5; i++) {
    const again = await collect(`and again ${i}?`, {
      ...options,
      resume: sessionId,
      cluster: { ...options.cluster!, startTimeoutMs: 10_000 },
    });
    assert.deepEqual(
      again.map((m) => [m.type, m.result]),
      [
        ['system', undefined],
        ['assistant', undefined],
        ['result', 'It was 42.'],
      ],
      `resume ${i}`,
    );
  }

  const unknown = await collect('hello', { ...options, resume: '00000000-0000-4000-8000-000000000000' });
  assert.equal(unknown.length, 1);
  assert.equal(unknown[0]!.type, 'result');
  assert.equal(unknown[0]!.is_error, true);
  assert.match(unknown[0]!.errors[0], /no session 00000000-0000-4000-8000-000000000000 in Redis/);
});

test('Redis unreachable, a wrong password, or no worker: one clean error result that says why, within seconds', async () => {
  const port = await freePort();
  const said: string[] = [];
  let started = Date.now();
  const unreachable = await collect('hello', {
    model: 'scripted',
    cluster: { redis: `redis://:secret@127.0.0.1:${port}` },
    stderr: (line) => said.push(line),
  });
  assert.ok(Date.now() - started < 8000, `failed after ${Date.now() - started} ms`);
  assert.deepEqual(
    unreachable.map((m) => [m.type, m.subtype, m.is_error]),
    [['result', 'error_during_execution', true]],
  );
  assert.match(
    unreachable[0]!.errors[0],
    /^cannot connect to Redis at redis:\/\/127\.0\.0\.1:\d+: connection refused: is redis-server running there\?/,
  );
  assert.ok(!JSON.stringify(unreachable).includes('secret'), 'the password is never shown');
  assert.match(said.join('\n'), /agentpipe: error: cannot connect to Redis/);

  const locked = await startRedis({ password: 'right' });
  const wrong = await collect('hello', {
    model: 'scripted',
    cluster: { redis: `redis://:wrong@127.0.0.1:${locked.port}` },
  });
  assert.equal(wrong.length, 1);
  assert.match(wrong[0]!.errors[0], /authentication failed: wrong password/);
  assert.ok(!JSON.stringify(wrong).includes(':wrong@'), 'the password is never shown');

  const lonely = await startRedis();
  started = Date.now();
  const noWorker = await collect('hello', {
    model: 'scripted',
    cluster: { redis: lonely.url, startTimeoutMs: 1000 },
  });
  assert.ok(Date.now() - started < 8000, `failed after ${Date.now() - started} ms`);
  assert.equal(noWorker.length, 1);
  assert.equal(noWorker[0]!.type, 'result');
  assert.match(noWorker[0]!.errors[0], /no agentpipe worker took session \S+ within 1000 ms \(0 workers connected/);

  await assert.rejects(
    collect('hello', { cluster: { redis: redis.url }, script: { turns: [] } as never }),
    /option "script" cannot be used with options.cluster/,
  );
});

test('abortController interrupts the prompt on its worker (one error result, then the stream ends); breaking out of the loop ends the run there', async () => {
  const dir = tempDir();
  const slow = { text: 'starting', tool_calls: [{ name: 'Bash', id: 'toolu_slow', input: { command: 'sleep 30' } }] };
  const options: QueryOptions = {
    model: 'scripted',
    script: writeScript(dir, [slow, { text: 'never reached' }]),
    cwd: dir,
    permissionMode: 'bypassPermissions',
    cluster: { redis: redis.url },
  };
  const abortController = new AbortController();
  const aborted: Message[] = [];
  for await (const message of query({ prompt: 'go slow', options: { ...options, abortController } })) {
    aborted.push(message as Message);
    if (message.type === 'assistant') abortController.abort();
  }
  assert.equal(aborted.filter((m) => m.type === 'result').length, 1);
  assert.deepEqual([aborted.at(-1)!.type, aborted.at(-1)!.subtype], ['result', 'error_during_execution']);

  // Leaving the loop mid-turn: close() interrupts the prompt and ends the session's run on the worker.
  let sessionId = '';
  for await (const message of query({ prompt: 'go slow again', options })) {
    sessionId = message.session_id;
    if (message.type === 'assistant') break;
  }
  const log = new SessionLog({ redis: redis.url });
  const seen: string[] = [];
  // Bounded: a run that never ends fails the assertion below instead of hanging the file.
  for await (const entry of log.tail(sessionId, '0-0', AbortSignal.timeout(15_000))) {
    seen.push(entry.message.type === 'result' ? `result/${(entry.message as Message).subtype}` : entry.message.type);
    if (entry.message.type === 'agentpipe_session_end') break;
  }
  await log.close();
  assert.deepEqual(
    seen.filter((t) => t.startsWith('result') || t === 'agentpipe_session_end'),
    ['result/error_during_execution', 'agentpipe_session_end'],
    'the prompt ended with its result, then the run',
  );
});
