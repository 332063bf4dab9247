import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLines } from '../helpers/cli.ts';
import { anthropicBlock, anthropicStream, type Reply } from '../model/fake-servers.ts';
import { anthropic, CLAUDE, place, run, STREAM, text } from '../session/helpers.ts';
import { EMPTY_REPLY_NOTE, OUTPUT_LIMIT_NOTE } from '../../src/agent/recovery.ts';

const stopping = (t: string, stopReason: string): Reply => ({
  kind: 'sse',
  frames: anthropicStream(
    [anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: t }])],
    stopReason,
  ),
});
const empty: Reply = { kind: 'sse', frames: anthropicStream([], 'end_turn') };
const lastUserText = (body: unknown) => {
  const messages = (body as { messages: Array<{ role: string; content: Array<{ text?: string }> }> }).messages;
  return messages.at(-1)!.content.at(-1)!.text;
};
/** The stream without init and result, as `kind:text`. */
const shape = (stdout: string) =>
  parseLines(stdout)
    .filter((l) => l.type === 'assistant' || l.type === 'user')
    .map(
      (l) =>
        `${l.type}${l.isSynthetic ? '(synthetic)' : ''}:` +
        l.message.content.map((b: { text?: string }) => b.text).join(''),
    );

test('a reply cut at max_tokens is continued with Claude Code’s note, up to 3 times, then ends', async () => {
  const p = place();
  const server = await anthropic([
    stopping('a', 'max_tokens'),
    stopping('b', 'max_tokens'),
    stopping('c', 'max_tokens'),
    stopping('d', 'max_tokens'),
  ]);
  const r = await run(p, [...STREAM, ...CLAUDE, 'hi'], { env: server.env });
  assert.equal(r.code, 0);
  const note = `user(synthetic):${OUTPUT_LIMIT_NOTE}`;
  assert.deepEqual(shape(r.stdout), ['assistant:a', note, 'assistant:b', note, 'assistant:c', note, 'assistant:d']);
  assert.equal(server.requests.length, 4);
  // The model gets the note as a system reminder after its cut reply.
  assert.equal(lastUserText(server.requests[1]!.body), `<system-reminder>\n${OUTPUT_LIMIT_NOTE}\n</system-reminder>`);
  const result = parseLines(r.stdout).at(-1)!;
  assert.deepEqual([result.subtype, result.result], ['success', 'd']);
});

test('an empty reply is nudged once and left out of the conversation; a second empty reply ends the prompt', async () => {
  const p = place();
  const server = await anthropic([empty, text('now something')]);
  const r = await run(p, [...STREAM, ...CLAUDE, 'hi'], { env: server.env });
  assert.equal(r.code, 0);
  assert.deepEqual(shape(r.stdout), [`user(synthetic):${EMPTY_REPLY_NOTE}`, 'assistant:now something']);
  const second = server.requests[1]!.body as { messages: Array<{ role: string }> };
  assert.deepEqual(
    second.messages.map((m) => m.role),
    ['user'],
    'no empty assistant turn, the note joins the prompt',
  );
  assert.equal(lastUserText(second), `<system-reminder>\n${EMPTY_REPLY_NOTE}\n</system-reminder>`);

  const twice = await anthropic([empty]);
  const r2 = await run(place(), [...STREAM, ...CLAUDE, 'hi'], { env: twice.env });
  assert.equal(r2.code, 0);
  assert.equal(twice.requests.length, 2);
  assert.deepEqual([parseLines(r2.stdout).at(-1)!.subtype, parseLines(r2.stdout).at(-1)!.result], ['success', '']);
});

test('--outcome-policy agentpipe (the Codex and ACP faces): a cut or empty reply ends the prompt, a 401 is not retried', async () => {
  const AGENTPIPE = ['--outcome-policy', 'agentpipe'];
  const cut = await anthropic([stopping('a', 'max_tokens'), text('never asked')]);
  const r1 = await run(place(), [...STREAM, ...CLAUDE, ...AGENTPIPE, 'hi'], { env: cut.env });
  assert.deepEqual(shape(r1.stdout), ['assistant:a']);
  assert.deepEqual([cut.requests.length, parseLines(r1.stdout).at(-1)!.result], [1, 'a']);

  const nothing = await anthropic([empty, text('never asked')]);
  const r2 = await run(place(), [...STREAM, ...CLAUDE, ...AGENTPIPE, 'hi'], { env: nothing.env });
  assert.deepEqual([nothing.requests.length, parseLines(r2.stdout).at(-1)!.subtype], [1, 'success']);

  const rejected = await anthropic([
    { kind: 'json', status: 401, body: { type: 'error', error: { type: 'authentication_error', message: 'no' } } },
    text('never asked'),
  ]);
  const r3 = await run(place(), [...STREAM, ...CLAUDE, ...AGENTPIPE, 'hi'], { env: rejected.env });
  assert.equal(r3.code, 1);
  assert.equal(rejected.requests.length, 1);
  assert.equal(parseLines(r3.stdout).filter((l) => l.subtype === 'api_retry').length, 0);
});
