import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { kinds, promptStream, sdkOptions, textOf } from './helpers.ts';

test('interrupt() while the model streams ends the turn with aborted_streaming; the next prompt runs', async () => {
  const options = sdkOptions(
    [
      { text: 'a very slow answer that will never be finished', delay_ms: 50, chunk_size: 1 },
      { text: 'second answer' },
    ],
    { includePartialMessages: true },
  );
  const prompts = promptStream();
  prompts.push('first');
  const q = query({ prompt: prompts, options });
  const messages: SDKMessage[] = [];
  let interruptReply: unknown = 'not called';
  for await (const message of q) {
    messages.push(message);
    // Interrupt once a few text deltas were streamed.
    if (message.type === 'stream_event' && messages.filter((m) => m.type === 'stream_event').length === 5) {
      const started = Date.now();
      interruptReply = await q.interrupt();
      assert.ok(Date.now() - started < 1000, 'the interrupt is answered at once');
      await sleep(10);
      prompts.push('second');
      prompts.end();
    }
  }

  assert.deepEqual(
    interruptReply,
    { still_queued: [] },
    'like Claude Code (interrupt_receipt_v1): the receipt lists the prompts still queued',
  );
  const conversation = messages.filter((m) => m.type !== 'stream_event');
  // As Claude Code: the text streamed before the interrupt is emitted (stop_reason null), then the notice.
  assert.deepEqual(kinds(conversation), [
    'system/init',
    'system/status',
    'assistant',
    'user',
    'result',
    'system/init',
    'system/status',
    'assistant',
    'result',
  ]);
  const [, , partial, interrupted, aborted, , , answer, done] = conversation;
  const streamed = messages
    .slice(0, messages.indexOf(aborted!))
    .filter((m) => m.type === 'stream_event' && m.event.type === 'content_block_delta')
    .map((m) =>
      m.type === 'stream_event' && m.event.type === 'content_block_delta' && m.event.delta.type === 'text_delta'
        ? m.event.delta.text
        : '',
    )
    .join('');
  assert.ok(partial!.type === 'assistant' && partial.message.stop_reason === null);
  assert.equal(textOf(partial), streamed);
  assert.ok('a very slow answer that will never be finished'.startsWith(streamed) && streamed.length > 0);
  assert.equal(textOf(interrupted), '[Request interrupted by user]');
  assert.ok(aborted!.type === 'result' && aborted.subtype === 'error_during_execution');
  assert.equal(aborted.is_error, true);
  assert.equal(aborted.terminal_reason, 'aborted_streaming');
  assert.equal(textOf(answer), 'second answer');
  assert.ok(done!.type === 'result' && done.subtype === 'success' && done.result === 'second answer');
  // No stream event of the interrupted turn arrives after its result.
  const between = messages.slice(messages.indexOf(aborted), messages.indexOf(conversation[5]!));
  assert.deepEqual(kinds(between), ['result']);
});
