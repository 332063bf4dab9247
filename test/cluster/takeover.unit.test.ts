/**
 * What a takeover decides from the log (issue 28, G1: the prompt goes on), without Redis or workers
 * (test/cluster/cut-commands.test.ts runs both cases end to end): a `/compact` cut before or after its compaction
 * was recorded goes on by compacting or by its result; a wrapped CLI's turn goes on when the log holds the wrapped
 * CLI's own session id, its tool calls without a result reported of unknown outcome; without that id, the prompt
 * ends in an error result that says why.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { continuationOf, findCutTurn, takeoverMessages, WORKER_STOPPED } from '../../src/cluster/run/takeover.ts';
import { parseStoredMessage, type LogEntry } from '../../src/cluster/log/entries.ts';
import { rebuild } from '../../src/session/transcript-rebuild.ts';
import { parseTranscriptLine, type TranscriptLine } from '../../src/session/transcript-schema.ts';

const SESSION = '00000000-0000-4000-8000-000000000001';
const PROMPT = '00000000-0000-4000-8000-0000000000a1';

/** Log entries of `messages`, parsed as a worker reads them from Redis. */
const entries = (messages: Array<Record<string, unknown>>): LogEntry[] =>
  messages.map((m, i) => {
    const json = JSON.stringify({ session_id: SESSION, parent_tool_use_id: null, ...m });
    return { id: `${i + 1}-0`, message: parseStoredMessage(json, 'the test'), json };
  });

function lines(messages: Array<Record<string, unknown>>): TranscriptLine[] {
  return messages.map((m) => {
    const parsed = parseTranscriptLine({ session_id: SESSION, parent_tool_use_id: null, ...m });
    assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
    return parsed.line;
  });
}

const prompt = (text: string, command?: 'compact') => ({
  type: 'user',
  uuid: PROMPT,
  agentpipe_prompt: true,
  ...(command ? { agentpipe_command: command } : {}),
  message: { role: 'user', content: text },
});
const boundary = {
  type: 'system',
  subtype: 'compact_boundary',
  uuid: '00000000-0000-4000-8000-0000000000c1',
  compact_metadata: { trigger: 'manual', pre_tokens: 1200, post_tokens: 300, duration_ms: 5 },
};
const init = (harness: string, nativeId?: string) => ({
  type: 'system',
  subtype: 'init',
  uuid: '00000000-0000-4000-8000-0000000000d1',
  harness,
  ...(nativeId ? { harness_session_id: nativeId } : {}),
});
const toolUse = {
  type: 'assistant',
  uuid: '00000000-0000-4000-8000-0000000000b1',
  message: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude',
    content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'echo >> ledger' } }],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  },
};

test('a /compact cut before its compaction was recorded goes on by compacting, with its instructions', () => {
  const rebuilt = rebuild(lines([prompt('/compact keep the names', 'compact')]), undefined, { keepCutTurn: true });
  assert.deepEqual(rebuilt.cutTurn, {
    promptUuid: PROMPT,
    pendingUses: [],
    compact: { instructions: 'keep the names' },
  });
  // A plain resume (not a takeover) leaves no turn open.
  assert.equal(rebuild(lines([prompt('/compact', 'compact')])).cutTurn, undefined);
});

test('a /compact cut after its compaction was recorded goes on by its result; one with its result is not cut', () => {
  const cut = rebuild(lines([prompt('/compact', 'compact'), boundary]), undefined, { keepCutTurn: true });
  assert.deepEqual(cut.cutTurn?.compact, { instructions: '', done: { preTokens: 1200, postTokens: 300 } });
  const ended = rebuild(
    lines([
      prompt('/compact', 'compact'),
      boundary,
      { type: 'result', subtype: 'success', uuid: '00000000-0000-4000-8000-0000000000e1', is_error: false },
    ]),
    undefined,
    { keepCutTurn: true },
  );
  assert.equal(ended.cutTurn, undefined);
});

test('a wrapped CLI that reported its session goes on; its tool call without a result is of unknown outcome', () => {
  const log = entries([init('claude', 'native-1'), prompt('append to the ledger'), toolUse]);
  assert.deepEqual(continuationOf(log, 'claude'), { continues: true });
  const cut = findCutTurn(log, true);
  assert.deepEqual(cut?.unknown, [{ id: 'toolu_1', name: 'Bash' }]);
  const messages = takeoverMessages(SESSION, 'w2', cut!, { continues: true });
  assert.deepEqual(
    messages.map((m) => m.type),
    ['system', 'user'],
    'the notice and the unknown outcome, no result: the prompt goes on',
  );
  // On agentpipe's own loop, a call with no start line never started: it runs when the turn goes on.
  assert.deepEqual(findCutTurn(log)?.unknown, []);
});

test('a wrapped CLI that had not reported a session of its own: the prompt ends in an error result saying why', () => {
  for (const log of [entries([prompt('hi')]), entries([init('claude'), prompt('hi')]), entries([init('codex', 'x')])]) {
    const continuation = continuationOf(log, 'claude');
    assert.deepEqual(continuation, {
      continues: false,
      reason: 'the wrapped CLI (claude) had not reported a session of its own to resume',
    });
  }
  const log = entries([prompt('hi')]);
  const messages = takeoverMessages(SESSION, 'w2', findCutTurn(log, true)!, continuationOf(log, 'claude'));
  const result = messages.at(-1)!;
  assert.equal(result.type, 'result');
  assert.deepEqual(result.type === 'result' && result.subtype !== 'success' && result.errors, [
    `${WORKER_STOPPED}: the wrapped CLI (claude) had not reported a session of its own to resume`,
  ]);
  const notice = messages.find((m) => m.type === 'system');
  assert.match(JSON.stringify(notice), /The prompt that was running ends here\./);
  // agentpipe's own loop always goes on.
  assert.deepEqual(continuationOf(log, undefined), { continues: true });
  assert.deepEqual(continuationOf(log, 'agentpipe'), { continues: true });
});
