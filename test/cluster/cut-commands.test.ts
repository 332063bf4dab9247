/**
 * Prompts that are not a turn of agentpipe's own loop, cut by a lost worker (issue 28, G1: the prompt goes on): a
 * `/compact` command and a `--harness` prompt (claude, gemini, codex exec) whose worker is killed with SIGKILL
 * mid-prompt. The client gets the
 * `system/worker_lost` notice ("The prompt goes on here."), then exactly one result for the cut prompt, the one it
 * would have had: the compaction done again on the new worker; the wrapped CLI resuming its own session and asked to
 * go on. A wrapped CLI that had not reported a session of its own ends the prompt in an error result that says so. The
 * session goes on on the new worker and closes as usual (docs/failure-modes.md).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { anthropicBlock, anthropicStream, startFakeServer, type Reply } from '../model/fake-servers.ts';
import { harnessDirs, testPath } from '../harness/helpers.ts';
import { startFakeGemini, type GeminiRequest } from '../harness/fakes/gemini-api.ts';
import { startResponsesServer, type ResponsesRequest } from '../harness/fakes/responses-api.ts';
import { startRedis } from './redis-server.ts';
import { HARNESS_CONTINUATION_MARK } from '../../src/session/continuation.ts';
import { Client, kill9, prompt, startFrontEnd, startWorker, uuids } from './cluster.ts';

const redis = await startRedis();

/** Checks what a client saw of a cut prompt (the `index`th result): the notice first, then one result, `expected`. */
function assertWentOn(client: Client, index: number, expected: { subtype: string; result: RegExp }): void {
  const cut = client.results()[index]!;
  assert.equal(cut.subtype, expected.subtype, JSON.stringify(cut));
  assert.match(String(cut.result), expected.result);
  const lost = client.messages.find((m) => m.type === 'system' && m.subtype === 'worker_lost');
  assert.ok(lost, 'a system/worker_lost notice');
  assert.match(lost.content, /was lost; worker \S+ took the session over\. The prompt goes on here\./);
  assert.ok(client.messages.indexOf(lost) < client.messages.indexOf(cut), 'the notice before the result');
}

test('a /compact cut by a lost worker goes on: worker_lost, the compaction done on the new worker, its one result', async () => {
  const dir = tempDir();
  // The summary request never answers in time: the worker is killed while it waits.
  const script = writeScript(dir, [{ text: 'first answer' }, { text: 'the summary', delay_ms: 120_000 }]);
  const first = await startWorker(redis.url);
  const front = await startFrontEnd(redis.url, ['--model', 'scripted', '--script', script, '--cwd', dir]);
  const client = new Client(front.url);
  await client.open();
  client.send(prompt('one'));
  await client.until(() => client.results().length === 1, 'the first result');
  client.send(prompt('/compact'));
  await client.until(
    () => client.messages.some((m) => m.type === 'system' && m.subtype === 'status' && m.status === 'compacting'),
    'the compaction under way',
  );
  // The new owner's model reads the script from its start: the summary of the compaction done again, then the answer
  // to the prompt after the cut one.
  writeScript(dir, [{ text: 'the summary' }, { text: 'second answer' }]);
  const second = await startWorker(redis.url);
  await kill9(first);
  await client.until(() => client.results().length === 2, "the cut prompt's result", 30_000);
  assertWentOn(client, 1, { subtype: 'success', result: /^Compacted: \d+ → \d+ tokens$/ });
  const boundaries = client.messages.filter((m) => m.type === 'system' && m.subtype === 'compact_boundary');
  assert.equal(boundaries.length, 1, 'one compaction: the one done on the new worker');

  client.send(prompt('and now?'));
  await client.until(() => client.results().length === 3, 'the next result');
  assert.deepEqual([client.results()[2]!.subtype, client.results()[2]!.result], ['success', 'second answer']);
  client.send('{"type":"end_input"}\n');
  assert.deepEqual(await client.closed, { code: 1000, reason: 'session ended' });
  assert.equal(client.results().length, 3, 'one result per prompt');
  const ids = uuids(client.messages);
  assert.equal(new Set(ids).size, ids.length, 'no message twice');
  await kill9(second);
  await kill9(front);
});

/** Claude Code's answer of one text block. */
const text = (words: string): Reply => ({
  kind: 'sse',
  frames: anthropicStream(
    [anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: words }])],
    'end_turn',
  ),
});

/** A wrapped CLI on a fake API: the worker's environment, the front end's flags, the bodies of its model requests. */
interface WrappedCli {
  name: string;
  env: Record<string, string>;
  flags: string[];
  /** Each model request's conversation, as JSON. */
  bodies(): string[];
  close(): Promise<void>;
}

/**
 * The fake API's script for every wrapped CLI: the first prompt's request held open (the worker is killed while the CLI
 * waits), the resumed session asked to go on answered `went on`, the next prompt `second answer`, anything else `hi`.
 */
function reply(conversation: string): 'hang' | string {
  if (/and now\?/.test(conversation)) return 'second answer';
  if (conversation.includes(HARNESS_CONTINUATION_MARK)) return 'went on';
  return /hold this one/.test(conversation) ? 'hang' : 'hi';
}

/**
 * Cuts the wrapped CLI's first prompt by killing its worker with SIGKILL (a second worker already running), and checks
 * that the prompt went on: the notice, then the result `went on`, from the CLI's own session resumed and asked to go
 * on; the next prompt runs in that same session (its history holds the continuation); one result per prompt.
 */
async function cutAndGoOn(cli: WrappedCli): Promise<void> {
  const first = await startWorker(redis.url, cli.env);
  const front = await startFrontEnd(redis.url, cli.flags, cli.env);
  const client = new Client(front.url);
  try {
    await client.open();
    client.send(prompt('hold this one'));
    await client.until(() => cli.bodies().some((b) => /hold this one/.test(b)), `${cli.name} asking the API`, 60_000);
    const second = await startWorker(redis.url, cli.env);
    await kill9(first);
    await client.until(() => client.results().length === 1, "the cut prompt's result", 60_000);
    assertWentOn(client, 0, { subtype: 'success', result: /^went on$/ });
    const wentOn = cli.bodies().filter((b) => b.includes(HARNESS_CONTINUATION_MARK));
    assert.ok(wentOn.length > 0, `${cli.name} was asked to go on`);
    assert.ok(
      wentOn.every((b) => /hold this one/.test(b)),
      'with the cut prompt',
    );

    client.send(prompt('and now?'));
    await client.until(() => client.results().length === 2, 'the next result', 60_000);
    assert.deepEqual([client.results()[1]!.subtype, client.results()[1]!.result], ['success', 'second answer']);
    client.send('{"type":"end_input"}\n');
    assert.deepEqual(await client.closed, { code: 1000, reason: 'session ended' });
    assert.equal(client.results().length, 2, 'one result per prompt');
    // The next prompt goes on in the same session of the wrapped CLI: the cut prompt and its continuation are in it.
    const next = cli.bodies().filter((b) => /and now\?/.test(b));
    assert.ok(next.length > 0 && next.every((b) => /hold this one/.test(b) && b.includes('went on')));
    const ids = uuids(client.messages);
    assert.equal(new Set(ids).size, ids.length, 'no message twice');
    await kill9(second);
  } finally {
    await kill9(front);
    await cli.close();
  }
}

test('a --harness claude prompt cut by a lost worker goes on: Claude Code resumes its own session on the new worker', async () => {
  const api = await startFakeServer((request) => {
    if (request.method !== 'POST' || !request.path.startsWith('/v1/messages') || request.path.includes('count_tokens'))
      return { kind: 'json', status: 200, body: { input_tokens: 1 } };
    const answer = reply(JSON.stringify(request.body?.messages ?? []));
    return answer === 'hang' ? { kind: 'sse', frames: [], flushHeaders: true, then: 'hang' } : text(answer);
  });
  const { home, cwd } = harnessDirs('cluster-cut');
  await cutAndGoOn({
    name: 'Claude Code',
    env: {
      PATH: testPath(),
      HOME: home,
      AGENTPIPE_HOME: path.join(home, '.agentpipe'),
      ANTHROPIC_API_KEY: 'sk-ant-test',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_MAX_RETRIES: '0',
      CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
    },
    flags: ['--harness', 'claude', '--base-url', api.url, '--cwd', cwd, '--sandbox', 'off'],
    bodies: () => api.requests.map((r) => JSON.stringify(r.body?.messages ?? '')),
    close: () => api.close(),
  });
});

test('a --harness gemini prompt cut by a lost worker goes on: the Gemini CLI resumes its own session (--resume) on the new worker', async () => {
  const chat = (request: GeminiRequest) => JSON.stringify(request.body ?? '');
  const fake = await startFakeGemini((request) => {
    const answer = reply(chat(request));
    return answer === 'hang' ? { kind: 'hang', chunks: [] } : { kind: 'text', chunks: [answer] };
  });
  const { home, cwd } = harnessDirs('cluster-cut-gemini');
  mkdirSync(path.join(home, '.gemini'), { recursive: true });
  mkdirSync(path.join(home, 'tmp'), { recursive: true });
  const settings = { security: { auth: { selectedType: 'gemini-api-key' } }, general: { maxAttempts: 1 } };
  writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify(settings));
  await cutAndGoOn({
    name: 'gemini',
    env: {
      PATH: testPath(),
      HOME: home,
      TMPDIR: path.join(home, 'tmp'),
      AGENTPIPE_HOME: path.join(home, '.agentpipe'),
      GEMINI_API_KEY: 'fake-key',
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
    },
    flags: [
      ...['--harness', 'gemini', '--base-url', fake.url],
      ...['--model', 'gemini-2.5-flash', '--cwd', cwd, '--sandbox', 'off'],
    ],
    bodies: () => fake.requests.filter((r) => r.action === 'streamGenerateContent').map(chat),
    close: () => fake.close(),
  });
});

// The killed worker's codex still runs (waiting on the API) and holds the thread as its writer: the new worker stops
// what a dead worker on its machine left running before the turn goes on (without that, codex refused the resume,
// "thread … already has an active writer", in 3 of 4 runs).
test('a --harness codex prompt cut by a lost worker goes on: codex resumes its own thread (exec resume) on the new worker', async () => {
  const body = (request: ResponsesRequest) => JSON.stringify(request.body ?? '');
  const server = await startResponsesServer((_index, request) => {
    const answer = reply(body(request));
    return answer === 'hang' ? { kind: 'hang' } : { kind: 'text', text: answer };
  });
  const { home, cwd } = harnessDirs('cluster-cut-codex');
  await cutAndGoOn({
    name: 'codex',
    env: {
      PATH: testPath(),
      HOME: home,
      CODEX_HOME: home,
      AGENTPIPE_HOME: path.join(home, '.agentpipe'),
      CODEX_API_KEY: 'sk-fake',
      AGENTPIPE_CODEX_PROTOCOL: 'exec',
    },
    flags: [
      ...['--harness', 'codex', '--base-url', server.baseUrl],
      ...['--model', 'fake-model', '--cwd', cwd, '--sandbox', 'off'],
    ],
    bodies: () => server.modelRequests.map(body),
    close: () => server.close(),
  });
});
