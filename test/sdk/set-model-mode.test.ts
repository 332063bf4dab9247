import { test } from 'node:test';
import assert from 'node:assert/strict';
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { kinds, promptStream, sdkOptions } from './helpers.ts';

test('setModel and setPermissionMode mid-session show in the next system/init and the next request', async () => {
  const options = sdkOptions([{ text: 'slow first answer', delay_ms: 10, chunk_size: 2 }, { text: 'second answer' }]);
  const prompts = promptStream();
  prompts.push('first');
  const q = query({ prompt: prompts, options });
  const messages: SDKMessage[] = [];
  let answer: unknown;
  for await (const message of q) {
    messages.push(message);
    if (message.type === 'system' && message.subtype === 'init' && messages.length === 1) {
      // While the first turn runs, as the SDK does in the reference trace.
      answer = await q.setPermissionMode('acceptEdits');
      await q.setModel('other-model');
    }
    if (message.type === 'result' && messages.filter((m) => m.type === 'result').length === 1) {
      prompts.push('second');
      prompts.end();
    }
  }

  // As Claude Code 2.1.332: the answer names the mode in effect, and the stream says it changed.
  assert.deepEqual(answer, { mode: 'acceptEdits' });
  const status = messages.findIndex(
    (m) => m.type === 'system' && m.subtype === 'status' && m.permissionMode === 'acceptEdits',
  );
  assert.ok(status > 0 && status < messages.findIndex((m) => m.type === 'result'), kinds(messages).join(' '));
  // As Claude Code runs setModel (its /model command): its output on the stream, the command in the next request.
  const turn = ['system/init', 'assistant', 'result'];
  assert.deepEqual(kinds(messages.filter((m) => !(m.type === 'system' && m.subtype === 'status'))), [
    'system/init',
    'user',
    'assistant',
    'result',
    ...turn,
  ]);
  const said = messages.find((m) => m.type === 'user');
  assert.ok(said?.type === 'user');
  assert.equal(said.message.content, '<local-command-stdout>Set model to `other-model`</local-command-stdout>');
  const inits = messages.filter((m) => m.type === 'system' && m.subtype === 'init');
  assert.deepEqual(
    inits.map((m) => m.type === 'system' && m.subtype === 'init' && [m.model, m.permissionMode]),
    [
      ['scripted', 'default'],
      ['other-model', 'acceptEdits'],
    ],
  );
  const models = messages.filter((m) => m.type === 'assistant').map((m) => m.type === 'assistant' && m.message.model);
  assert.deepEqual(models, ['scripted', 'other-model']);
});

test('setPermissionMode with an unknown mode is refused with an error naming it', async () => {
  const options = sdkOptions([{ text: 'slow', delay_ms: 30, chunk_size: 1 }]);
  const prompts = promptStream();
  prompts.push('first');
  const q = query({ prompt: prompts, options });
  let refusal: Error | undefined;
  for await (const message of q) {
    if (message.type === 'system' && message.subtype === 'init') {
      refusal = await q.setPermissionMode('nonsense' as 'default').then(
        () => undefined,
        (error: Error) => error,
      );
      prompts.end();
    }
  }
  assert.match(refusal?.message ?? '', /unknown permission mode "nonsense"/);
});
