/**
 * The same client session against the real `codex app-server` (codex-cli 0.169.0 from
 * test/harness/clis, on a local Responses API fake) and against `agentpipe app-server` (the scripted
 * model making the same tool calls): the same normalized sequence of responses, notifications,
 * server requests, item kinds and statuses. Normalized away: ids and times, and what depends on
 * timing or on codex's own services (token usage, status changes, deltas, rate limits, warnings).
 * agentpipe's frames also validate against the schema; codex's frames are the reference.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { cliBin } from '../harness/helpers.ts';
import { startResponsesServer, type ResponsesReply } from '../harness/fakes/responses-api.ts';
import { AppServerClient, type Frame } from './app-server-client.ts';
import { codexDirs, sdkEnv } from './helpers.ts';

const KEPT = new Set([
  'thread/started',
  'turn/started',
  'item/started',
  'item/completed',
  'serverRequest/resolved',
  'turn/completed',
  'error',
]);

/** What a client of either server reads, without ids, times and timing-dependent notices. */
function normalized(client: AppServerClient): string[] {
  return client.frames.flatMap((f: Frame) => {
    if (f.method === undefined) return [`response ${client.methodOf(f.id as number) ?? '?'}${f.error ? ' error' : ''}`];
    if (f.id !== undefined) return [`request ${f.method}`];
    if (!KEPT.has(f.method)) return [];
    if (f.method === 'item/started' || f.method === 'item/completed') {
      const item = f.params.item;
      return [`${f.method} ${item.type}${item.status ? `:${item.status}` : ''}`];
    }
    if (f.method === 'turn/completed') return [`turn/completed ${f.params.turn.status}`];
    return [f.method];
  });
}

/** The session both servers get: a thread asking for approvals, one turn, every request accepted. */
async function session(client: AppServerClient, cwd: string, prompt: string): Promise<void> {
  await client.initialize();
  // No OS sandbox: the real codex's helper binaries cannot be set up under a temporary CODEX_HOME.
  const thread = await client.request('thread/start', {
    cwd,
    approvalPolicy: 'untrusted',
    sandbox: 'danger-full-access',
  });
  const threadId = thread.result.thread.id as string;
  const turn = await client.request('turn/start', {
    threadId,
    input: [{ type: 'text', text: prompt, text_elements: [] }],
  });
  await client.turnCompleted(turn.result.turn.id as string);
}

async function real(replies: ResponsesReply[], prompt: string): Promise<{ client: AppServerClient; cwd: string }> {
  const server = await startResponsesServer(replies);
  const dir = codexDirs('real-app');
  writeFileSync(
    path.join(dir.home, 'config.toml'),
    [
      'model_provider = "fake"',
      'model = "fake-model"',
      '[model_providers.fake]',
      'name = "fake"',
      `base_url = "${server.baseUrl}"`,
      'wire_api = "responses"',
      'supports_websockets = false',
      'env_key = "CODEX_API_KEY"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
    ].join('\n'),
  );
  const client = AppServerClient.stdio({
    command: [cliBin('codex'), 'app-server'],
    cwd: dir.cwd,
    env: sdkEnv(dir.home, { CODEX_HOME: dir.home, CODEX_API_KEY: 'sk-fake' }),
    validate: false,
  });
  try {
    await session(client, dir.cwd, prompt);
  } finally {
    await client.close();
    await server.close();
  }
  return { client, cwd: dir.cwd };
}

async function ours(turns: unknown[], prompt: string): Promise<{ client: AppServerClient; cwd: string }> {
  const dir = codexDirs('our-app');
  const script = path.join(dir.home, 'script.json');
  writeFileSync(script, JSON.stringify({ turns }));
  const client = AppServerClient.stdio({
    args: ['--model', 'scripted', '--script', script],
    cwd: dir.cwd,
    env: sdkEnv(dir.home),
  });
  try {
    await session(client, dir.cwd, prompt);
  } finally {
    await client.close();
  }
  return { client, cwd: dir.cwd };
}

test('differential app-server: a command asked for and accepted, a reasoning summary, an answer', async () => {
  const codex = await real(
    [
      { kind: 'call', name: 'exec_command', arguments: { cmd: 'echo hello > out.txt' } },
      { kind: 'text', text: 'Wrote hello.', reasoning: 'The file is written.' },
    ],
    'write hello',
  );
  const agentpipe = await ours(
    [
      { tool_calls: [{ name: 'Bash', input: { command: 'echo hello > out.txt' } }] },
      { thinking: 'The file is written.', text: 'Wrote hello.' },
    ],
    'write hello',
  );
  assert.deepEqual(normalized(agentpipe.client), normalized(codex.client));
  assert.deepEqual(normalized(agentpipe.client), [
    'response initialize',
    'response thread/start',
    'thread/started',
    'response turn/start',
    'turn/started',
    'item/started userMessage',
    'item/completed userMessage',
    'item/started commandExecution:inProgress',
    'request item/commandExecution/requestApproval',
    'serverRequest/resolved',
    'item/completed commandExecution:completed',
    'item/started reasoning',
    'item/completed reasoning',
    'item/started agentMessage',
    'item/completed agentMessage',
    'turn/completed completed',
  ]);
  // The texts the client shows are the same, and the deltas join to them on both sides.
  const texts = (c: AppServerClient) =>
    c.sent('item/completed').flatMap((f) => (f.params.item.type === 'agentMessage' ? [f.params.item.text] : []));
  assert.deepEqual(texts(agentpipe.client), texts(codex.client));
  for (const c of [codex.client, agentpipe.client])
    assert.equal(
      c
        .sent('item/agentMessage/delta')
        .map((d) => d.params.delta)
        .join(''),
      'Wrote hello.',
    );
  // Every field agentpipe writes in an item or an approval request is one codex writes too (no typos, no inventions).
  const keys = (c: AppServerClient, method: string) =>
    new Map(c.sent(method).map((f) => [f.params.item?.type ?? method, Object.keys(f.params.item ?? f.params)]));
  for (const method of ['item/completed', 'item/commandExecution/requestApproval']) {
    const theirs = keys(codex.client, method);
    for (const [type, ourKeys] of keys(agentpipe.client, method))
      assert.deepEqual(
        // `reason` is a schema field codex sends when it has one (network access…); agentpipe always has one.
        ourKeys.filter((k) => !theirs.get(type)?.includes(k) && k !== 'reason'),
        [],
        `${method} ${type}`,
      );
  }
  assert.deepEqual(agentpipe.client.schemaErrors, []);
});

test('differential app-server: a file created and then updated, asked for and accepted', async () => {
  const patch = (body: string): ResponsesReply => ({
    kind: 'call',
    name: 'exec_command',
    arguments: { cmd: `apply_patch <<'EOF'\n*** Begin Patch\n${body}*** End Patch\nEOF` },
  });
  const codex = await real(
    [
      patch('*** Add File: notes.txt\n+one\n+two\n'),
      patch('*** Update File: notes.txt\n@@\n one\n-two\n+TWO\n'),
      { kind: 'text', text: 'Edited.' },
    ],
    'write notes',
  );
  const agentpipe = await ours(
    [
      { tool_calls: [{ name: 'Write', input: { file_path: 'notes.txt', content: 'one\ntwo\n' } }] },
      { tool_calls: [{ name: 'Read', input: { file_path: 'notes.txt' } }] },
      { tool_calls: [{ name: 'Edit', input: { file_path: 'notes.txt', old_string: 'two', new_string: 'TWO' } }] },
      { text: 'Edited.' },
    ],
    'write notes',
  );
  // agentpipe reads a file before it edits it (no blind edits): that read is its own item, left out here.
  const withoutRead = (c: AppServerClient) => normalized(c).filter((line) => !line.includes('mcpToolCall'));
  assert.deepEqual(withoutRead(agentpipe.client), normalized(codex.client));
  const changes = (c: AppServerClient) =>
    c
      .sent('item/completed')
      .flatMap((f) =>
        f.params.item.type === 'fileChange'
          ? f.params.item.changes.map((ch: Frame) => [path.basename(ch.path), ch.kind.type])
          : [],
      );
  assert.deepEqual(changes(agentpipe.client), changes(codex.client));
  assert.deepEqual(agentpipe.client.schemaErrors, []);
});
