/**
 * `setModel()` through the official SDK, as Claude Code 2.1.332 runs it (its `/model` local command;
 * src/session/model-command.ts, src/model/claude-models.ts): the alias resolved, the output on the stream, the command
 * in the history the model sees next, `modelUsage` by model; set while a prompt runs, the command waits for it to end.
 * The differential suite compares the same with the real CLI (sdk/set-model).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { query, type Options, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { anthropicBlock, anthropicStream, startFakeServer, type RecordedRequest } from '../model/fake-servers.ts';
import { promptStream, sdkOptions } from './helpers.ts';
import { LOCAL_COMMAND_CAVEAT } from '../../src/session/model-command.ts';

const text = (t: string) => ({
  kind: 'sse' as const,
  frames: anthropicStream(
    [anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: t }])],
    'end_turn',
  ),
});
const bash = {
  kind: 'sse' as const,
  frames: anthropicStream(
    [
      anthropicBlock(0, { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: {} }, [
        { type: 'input_json_delta', partial_json: '{"command":"true"}' },
      ]),
    ],
    'tool_use',
  ),
};

/** The user blocks' texts of a request's last message. */
const lastTexts = (request: RecordedRequest) => {
  const messages = (request.body as { messages: Array<{ content: unknown }> }).messages;
  const content = messages.at(-1)!.content as Array<{ type: string; text?: string }>;
  return content.map((b) => b.text ?? `[${b.type}]`);
};

/** Options of a session on claude-sonnet-4-6 against the fake Messages API at `url`. */
function onFakeApi(url: string, extra: Options = {}): Options {
  const base = sdkOptions([]);
  const env = { ...base.env, ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: url };
  return { ...base, model: 'claude-sonnet-4-6', extraArgs: {}, env, ...extra };
}

test('setModel between prompts: the alias resolves, /model is on the stream and in the next request', async () => {
  const server = await startFakeServer(() => (server.requests.length <= 1 ? text('one') : text('two')));
  try {
    const prompts = promptStream();
    const q = query({ prompt: prompts, options: onFakeApi(server.url) });
    prompts.push('first');
    const seen: SDKMessage[] = [];
    let results = 0;
    for await (const message of q) {
      seen.push(message);
      if (message.type !== 'result') continue;
      if (++results === 1) {
        await q.setModel('opus');
        // The same model again: nothing changes, nothing is said.
        await q.setModel('claude-opus-5-5');
        prompts.push('second');
      } else prompts.end();
    }
    const said = seen.filter((m) => m.type === 'user' && 'isReplay' in m && m.isReplay);
    assert.deepEqual(
      said.map((m) => (m.type === 'user' ? m.message.content : undefined)),
      ['<local-command-stdout>Set model to `opus (claude-opus-5-5)`</local-command-stdout>'],
    );
    assert.deepEqual(
      server.requests.map((r) => (r.body as { model: string }).model),
      ['claude-sonnet-4-6', 'claude-opus-5-5'],
    );
    assert.deepEqual(lastTexts(server.requests[1]!), [
      LOCAL_COMMAND_CAVEAT,
      '<command-name>/model</command-name>\n            <command-message>model</command-message>\n' +
        '            <command-args>opus</command-args>',
      '<local-command-stdout>Set model to `opus (claude-opus-5-5)`</local-command-stdout>',
      'second',
    ]);
    const last = seen.at(-1)!;
    assert.ok(last.type === 'result');
    assert.deepEqual(Object.keys(last.modelUsage).sort(), ['claude-opus-5-5', 'claude-sonnet-4-6']);
  } finally {
    await server.close();
  }
});

test('setModel while a prompt runs: its next request uses the model, the command joins the history after it', async () => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const server = await startFakeServer(() =>
    server.requests.length === 1 ? bash : server.requests.length === 2 ? text('done') : text('later'),
  );
  try {
    const prompts = promptStream();
    const bypass = { permissionMode: 'bypassPermissions' as const, allowDangerouslySkipPermissions: true };
    const q = query({ prompt: prompts, options: onFakeApi(server.url, bypass) });
    prompts.push('run it');
    let results = 0;
    for await (const message of q) {
      // The tool call is there: the prompt is running.
      if (message.type === 'assistant' && results === 0 && message.message.content[0]?.type === 'tool_use') {
        await q.setModel('haiku');
        release();
      }
      if (message.type !== 'result') continue;
      if (++results === 1) prompts.push('next');
      else prompts.end();
    }
    await held;
    const models = server.requests.map((r) => (r.body as { model: string }).model);
    assert.deepEqual(models, ['claude-sonnet-4-6', 'claude-haiku-5-5', 'claude-haiku-5-5']);
    // The running prompt's tool result comes straight after its call; the command waits for the next prompt.
    assert.equal(lastTexts(server.requests[1]!)[0], '[tool_result]');
    assert.deepEqual(lastTexts(server.requests[2]!).slice(1), [
      '<command-name>/model</command-name>\n            <command-message>model</command-message>\n' +
        '            <command-args>haiku</command-args>',
      '<local-command-stdout>Set model to `haiku (claude-haiku-5-5)`</local-command-stdout>',
      'next',
    ]);
  } finally {
    await server.close();
  }
});
