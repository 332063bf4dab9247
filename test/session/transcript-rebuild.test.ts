/**
 * An answer given up and asked again (a request retried after part of it was emitted, or an answer
 * cut off by a lost cluster worker and asked again by the worker that took over) is followed in
 * the transcript by the new answer, with no user entry between: the rebuilt history holds the new
 * one only, as the loop's did. Found by the cluster chaos test: two takeovers in one prompt left two
 * abandoned answers in the history, and a model that answers by the history's length answered the
 * next prompt's turn.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rebuild } from '../../src/session/transcript-rebuild.ts';
import { parseTranscriptLine, type TranscriptLine } from '../../src/session/transcript-schema.ts';

const SESSION = '00000000-0000-4000-8000-000000000001';

function line(value: Record<string, unknown>): TranscriptLine {
  const parsed = parseTranscriptLine({ session_id: SESSION, parent_tool_use_id: null, ...value });
  assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
  return parsed.line;
}

const prompt = (uuid: string, text: string) =>
  line({
    type: 'user',
    uuid,
    agentpipe_prompt: true,
    message: { role: 'user', content: text },
  });

const answer = (uuid: string, id: string, text: string) =>
  line({
    type: 'assistant',
    uuid,
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model: 'scripted',
      content: [{ type: 'text', text }],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    },
  });

test('an answer followed by another answer (asked again) is replaced by it; blocks of one answer stay together', () => {
  const lines = [
    prompt('00000000-0000-4000-8000-0000000000a1', 'hi'),
    answer('00000000-0000-4000-8000-0000000000b1', 'msg_1', 'given up'),
    answer('00000000-0000-4000-8000-0000000000b2', 'msg_2', 'asked again: '),
    answer('00000000-0000-4000-8000-0000000000b3', 'msg_2', 'its second block'),
  ];
  const closed = rebuild(lines);
  assert.deepEqual(
    closed.history.filter((m) => m.role === 'assistant'),
    [
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'asked again: ' },
          { type: 'text', text: 'its second block' },
        ],
      },
    ],
  );
  // Left open for a takeover: the last answer (cut while it streamed) is asked again, and nothing of the first stays.
  const open = rebuild(lines, undefined, { keepCutTurn: true });
  assert.deepEqual(
    open.history.filter((m) => m.role === 'assistant'),
    [],
  );
  assert.deepEqual(open.cutTurn, { promptUuid: '00000000-0000-4000-8000-0000000000a1', pendingUses: [] });
});
