/** The official Claude Agent SDK's query() over `agentpipe serve`, through `spawnClaudeCodeProcess`. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { query, type CanUseTool, type Options, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { place, transcripts } from '../session/helpers.ts';
import { CLI_PATH } from '../helpers/cli.ts';
import { writeScript } from '../helpers/workspace.ts';
import { serveOn } from './serve-client.ts';
import { kinds } from './ws-helpers.ts';
import { WebSocketProcess } from './ws-process.ts';

/** `agentpipe serve` with a scripted model, and SDK options whose "process" is a connection to it. */
async function served(turns: unknown[], args: string[] = [], extra: Options = {}) {
  const p = place();
  const script = writeScript(p.cwd, turns);
  const { cli, url } = await serveOn(['--model', 'scripted', '--script', script, '--cwd', p.cwd, ...args], p.env);
  const spawned: string[][] = [];
  const options: Options = {
    cwd: p.cwd,
    // Never run: the SDK only needs a command to hand to the spawner below.
    pathToClaudeCodeExecutable: CLI_PATH,
    spawnClaudeCodeProcess: ({ args: argv }) => {
      spawned.push(argv);
      return new WebSocketProcess(url);
    },
    ...extra,
  };
  return { p, cli, options, spawned };
}

async function collect(prompt: string, options: Options): Promise<SDKMessage[]> {
  const messages: SDKMessage[] = [];
  for await (const message of query({ prompt, options })) messages.push(message);
  return messages;
}

test('SDK query() over serve: a scripted prompt yields system/init, assistant, result; the session is saved', async () => {
  const { p, cli, options, spawned } = await served([{ text: 'Hello over serve' }]);
  const messages = await collect('say hi', options);
  assert.deepEqual(kinds(messages), ['system/init', 'assistant', 'result']);
  const result = messages.at(-1)!;
  assert.ok(result.type === 'result' && result.subtype === 'success');
  assert.equal(result.result, 'Hello over serve');
  assert.equal(new Set(messages.map((m) => m.session_id)).size, 1);
  assert.equal(spawned.length, 1, 'one "process" (one connection) per query');
  await cli.waitFor(/connection 1 ended/);
  assert.deepEqual(
    transcripts(p.home).map((f) => path.basename(f)),
    [`${result.session_id}.jsonl`],
  );
});

test('SDK query() over serve --permission-prompt-tool stdio: canUseTool decides the tool calls', async () => {
  const asked: string[] = [];
  const canUseTool: CanUseTool = async (tool, input) => {
    asked.push(`${tool}: ${String(input.command)}`);
    return { behavior: 'deny', message: 'not over the network' };
  };
  const { p, options } = await served(
    [
      { tool_calls: [{ name: 'Bash', id: 'toolu_touch', input: { command: 'touch served.txt' } }] },
      { text: 'gave up' },
    ],
    ['--permission-prompt-tool', 'stdio'],
    { canUseTool },
  );
  const messages = await collect('touch a file', options);
  assert.deepEqual(asked, ['Bash: touch served.txt']);
  assert.equal(existsSync(path.join(p.cwd, 'served.txt')), false);
  const result = messages.at(-1)!;
  assert.ok(result.type === 'result' && result.subtype === 'success');
  assert.equal(result.result, 'gave up');
  assert.deepEqual(
    result.permission_denials.map((d) => d.tool_use_id),
    ['toolu_touch'],
  );
});
