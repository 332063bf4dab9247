import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseLines } from '../helpers/cli.ts';
import { anthropicBlock, anthropicStart, type Reply } from '../model/fake-servers.ts';
import { anthropic, CLAUDE, place, run, start, STREAM, text, toolCall, transcripts, type Place } from './helpers.ts';

/** Starts a prompt, waits until the transcript holds `marker`, then kills the process with SIGKILL. */
async function killMidTurn(p: Place, env: Record<string, string>, marker: string): Promise<string> {
  const child = start(p, [...STREAM, ...CLAUDE, 'first'], env);
  child.stdin!.end();
  const deadline = Date.now() + 15_000;
  for (;;) {
    const [file] = transcripts(p.home);
    if (file && readFileSync(file, 'utf8').includes(marker)) {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.on('close', resolve));
      return file;
    }
    assert.ok(Date.now() < deadline, `the transcript never showed ${marker}`);
    await sleep(25);
  }
}

test('kill -9 while a tool runs: the resumed model sees the call closed as interrupted, pairs intact', async () => {
  const p = place();
  const server = await anthropic([toolCall('toolu_sleep', 'Bash', { command: 'sleep 30' }), text('Resumed fine.')]);
  const file = await killMidTurn(p, server.env, 'toolu_sleep');
  // A writer killed mid-line leaves a torn last line.
  appendFileSync(file, '{"type":"user","message":{"role":"user","cont');

  const resumed = await run(p, [...STREAM, ...CLAUDE, '--resume', file, 'go on'], { env: server.env });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stderr, /torn last line .*skipped/);
  assert.equal(parseLines(resumed.stdout).at(-1)!.result, 'Resumed fine.');
  assert.deepEqual(server.requests[1].body.messages, [
    { role: 'user', content: 'first' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Running.' },
        { type: 'tool_use', id: 'toolu_sleep', name: 'Bash', input: { command: 'sleep 30' } },
      ],
    },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_sleep',
          content: '[Request interrupted by user for tool use]',
          is_error: true,
        },
        { type: 'text', text: '[Request interrupted by user for tool use]' },
        { type: 'text', text: 'go on' },
      ],
    },
  ]);
  // The file stays readable: resuming again skips the torn line and sees the whole second turn.
  const again = await run(p, [...STREAM, ...CLAUDE, '--resume', file, 'and again'], { env: server.env });
  assert.equal(again.code, 0, again.stderr);
  const messages = server.requests[2].body.messages;
  assert.deepEqual(messages.slice(0, 3), server.requests[1].body.messages);
  assert.deepEqual(messages.slice(3), [
    { role: 'assistant', content: [{ type: 'text', text: 'Resumed fine.' }] },
    { role: 'user', content: 'and again' },
  ]);
});

test('kill -9 while the model streams: the blocks received so far are kept, then the interruption notice', async () => {
  const p = place();
  const hanging: Reply = {
    kind: 'sse',
    then: 'hang',
    frames: [
      anthropicStart('msg_hang', 10),
      ...anthropicBlock(0, { type: 'text', text: '' }, [
        { type: 'text_delta', text: 'Half an ans' },
        { type: 'text_delta', text: 'wer.' },
      ]),
      anthropicBlock(1, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'never finished' }])[0],
    ],
  };
  const server = await anthropic([hanging, text('Back again.')]);
  await killMidTurn(p, server.env, 'Half an answer.');
  const resumed = await run(p, [...STREAM, ...CLAUDE, '--continue', 'go on'], { env: server.env });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.deepEqual(server.requests[1].body.messages, [
    { role: 'user', content: 'first' },
    { role: 'assistant', content: [{ type: 'text', text: 'Half an answer.' }] },
    {
      role: 'user',
      content: [
        { type: 'text', text: '[Request interrupted by user]' },
        { type: 'text', text: 'go on' },
      ],
    },
  ]);
});
