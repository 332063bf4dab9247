/**
 * The same Codex SDK code against the real `codex exec` (codex-cli 0.169.0 from test/harness/clis, on
 * a local Responses API fake) and against `agentpipe exec` (the scripted model making the same tool
 * calls): the same events, item types, statuses and exit codes, in the same order. Ids, the shell
 * wrapper codex shows around a command and codex's notice about the fake's unknown model are
 * normalized away.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Codex, type ThreadEvent } from '@openai/codex-sdk';
import { cliBin } from '../harness/helpers.ts';
import { startResponsesServer, type ResponsesReply } from '../harness/fakes/responses-api.ts';
import { unwrapShell } from '../../src/harness/codex.ts';
import { codexDirs, collectEvents, scriptedCodex, sdkEnv } from './helpers.ts';

/** What a client of the events compares: kinds, item types, statuses, exit codes, texts. */
function normalized(events: ThreadEvent[]): unknown[] {
  return events
    .filter((e) => !('item' in e && e.item.type === 'error' && e.item.message.includes('Model metadata')))
    .map((e) => {
      if (!('item' in e)) return e.type === 'thread.started' ? 'thread.started' : e.type;
      const item = e.item;
      const base = `${e.type}:${item.type}`;
      if (item.type === 'command_execution')
        return [base, unwrapShell(item.command), item.status, item.exit_code ?? null, item.aggregated_output.trim()];
      if (item.type === 'agent_message' || item.type === 'reasoning') return [base, item.text];
      if (item.type === 'file_change')
        return [base, item.status, item.changes.map((c) => [path.basename(c.path), c.kind])];
      return base;
    });
}

/** The real codex on the Responses fake, driven by the SDK. */
async function realCodex(replies: ResponsesReply[], prompt: string): Promise<ThreadEvent[]> {
  const server = await startResponsesServer(replies);
  try {
    const dir = codexDirs('real');
    const codex = new Codex({
      codexPathOverride: cliBin('codex'),
      env: sdkEnv(dir.home, { CODEX_HOME: dir.home, CODEX_API_KEY: 'sk-fake' }),
      config: {
        model_provider: 'fake',
        model_providers: {
          fake: {
            name: 'fake',
            base_url: server.baseUrl,
            wire_api: 'responses',
            supports_websockets: false,
            env_key: 'CODEX_API_KEY',
            request_max_retries: 0,
            stream_max_retries: 0,
          },
        },
      },
    });
    const thread = codex.startThread({
      workingDirectory: dir.cwd,
      model: 'fake-model',
      sandboxMode: 'danger-full-access',
      skipGitRepoCheck: true,
    });
    return await collectEvents((await thread.runStreamed(prompt)).events);
  } finally {
    await server.close();
  }
}

/** agentpipe with the scripted model, driven by the same SDK calls. */
async function agentpipe(turns: unknown[], prompt: string, before?: (cwd: string) => void): Promise<ThreadEvent[]> {
  const dir = codexDirs('ours');
  before?.(dir.cwd);
  const thread = scriptedCodex(dir, turns).startThread({
    workingDirectory: dir.cwd,
    model: 'scripted',
    sandboxMode: 'danger-full-access',
    skipGitRepoCheck: true,
  });
  return await collectEvents((await thread.runStreamed(prompt)).events);
}

test('differential exec: a command, a reasoning summary and an answer', async () => {
  const real = await realCodex(
    [
      { kind: 'call', name: 'exec_command', arguments: { cmd: 'echo hello; exit 4' } },
      { kind: 'text', text: 'It said hello and failed.', reasoning: 'The command exited with 4.' },
    ],
    'run it',
  );
  const ours = await agentpipe(
    [
      { tool_calls: [{ name: 'Bash', input: { command: 'echo hello; exit 4' } }] },
      { thinking: 'The command exited with 4.', text: 'It said hello and failed.' },
    ],
    'run it',
  );
  assert.deepEqual(normalized(ours), normalized(real));
  assert.deepEqual(normalized(ours), [
    'thread.started',
    'turn.started',
    ['item.started:command_execution', 'echo hello; exit 4', 'in_progress', null, ''],
    ['item.completed:command_execution', 'echo hello; exit 4', 'failed', 4, 'hello'],
    ['item.completed:reasoning', 'The command exited with 4.'],
    ['item.completed:agent_message', 'It said hello and failed.'],
    'turn.completed',
  ]);
});

test('differential exec: a file created and a file updated', async () => {
  const patch = (body: string): ResponsesReply => ({
    kind: 'call',
    name: 'exec_command',
    arguments: { cmd: `apply_patch <<'EOF'\n*** Begin Patch\n${body}*** End Patch\nEOF` },
  });
  const real = await realCodex(
    [
      patch('*** Add File: notes.txt\n+one\n+two\n'),
      patch('*** Update File: notes.txt\n@@\n one\n-two\n+TWO\n'),
      { kind: 'text', text: 'Edited.' },
    ],
    'write notes',
  );
  const ours = await agentpipe(
    [
      { tool_calls: [{ name: 'Write', input: { file_path: 'notes.txt', content: 'one\ntwo\n' } }] },
      { tool_calls: [{ name: 'Edit', input: { file_path: 'notes.txt', old_string: 'two', new_string: 'TWO' } }] },
      { text: 'Edited.' },
    ],
    'write notes',
  );
  assert.deepEqual(normalized(ours), normalized(real));
  assert.deepEqual(normalized(ours), [
    'thread.started',
    'turn.started',
    ['item.started:file_change', 'in_progress', [['notes.txt', 'add']]],
    ['item.completed:file_change', 'completed', [['notes.txt', 'add']]],
    ['item.started:file_change', 'in_progress', [['notes.txt', 'update']]],
    ['item.completed:file_change', 'completed', [['notes.txt', 'update']]],
    ['item.completed:agent_message', 'Edited.'],
    'turn.completed',
  ]);
});

test('differential exec: a provider error ends the turn with error and turn.failed, and the SDK throws', async () => {
  const failing = async (run: () => Promise<ThreadEvent[]>) => {
    try {
      await run();
      return 'no error';
    } catch (error) {
      return (error as Error).message.split(':')[0];
    }
  };
  const real = await failing(() => realCodex([{ kind: 'status', status: 401, message: 'bad key' }], 'hi'));
  const ours = await failing(() =>
    agentpipe([{ error: { status: 401, message: 'bad key' } }], 'hi', (cwd) =>
      writeFileSync(path.join(cwd, '.keep'), ''),
    ),
  );
  assert.equal(ours, real);
  assert.equal(ours, 'Codex Exec exited with code 1');
});
