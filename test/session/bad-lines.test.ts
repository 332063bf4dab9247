/**
 * A transcript line of the wrong shape (well-formed JSON, a known type, fields that are not what
 * agentpipe writes) is skipped with a warning on --resume, like a torn line; the resume goes on
 * (issue 28, B13: one such line made --resume refuse the whole transcript, with no result). What
 * the skipped lines leave unpaired is paired again: the model gets a history the API accepts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseLines } from '../helpers/cli.ts';
import { pairToolCalls, LOST_RESULT } from '../../src/session/transcript-rebuild.ts';
import type { MessageParam } from '../../src/messages/types.ts';
import { mergeConsecutive } from '../../src/agent/merged-history.ts';
import { anthropic, CLAUDE, place, run, STREAM, text, toolCall, transcripts } from './helpers.ts';

/** Every tool_result answers a tool_use of the message before it, and every tool_use is answered in the next one. */
function assertPaired(messages: Array<{ role: string; content: any }>): void {
  messages.forEach((m, i) => {
    const blocks = (c: any): any[] => (Array.isArray(c) ? c : []);
    const uses = (at: number) => blocks(messages[at]?.content).filter((b) => b.type === 'tool_use');
    const results = (at: number) => blocks(messages[at]?.content).filter((b) => b.type === 'tool_result');
    if (m.role === 'assistant') {
      const answered = new Set(results(i + 1).map((b) => b.tool_use_id));
      for (const use of uses(i)) assert.ok(answered.has(use.id), `tool_use ${use.id} (message ${i}) has no result`);
    } else {
      const asked = new Set(uses(i - 1).map((b) => b.id));
      for (const r of results(i)) assert.ok(asked.has(r.tool_use_id), `tool_result ${r.tool_use_id} has no call`);
    }
  });
}

for (const broken of ['the tool call', 'the tool result'] as const) {
  test(`a wrong-shaped line (${broken}) is skipped with a warning; the resume goes on with tool pairs whole`, async () => {
    const p = place();
    const server = await anthropic([
      toolCall('toolu_1', 'Bash', { command: 'echo hi' }),
      text('First done.'),
      text('Second done.'),
    ]);
    const first = await run(p, [...STREAM, ...CLAUDE, 'first'], { env: server.env });
    assert.equal(first.code, 0, first.stderr);
    const [file] = transcripts(p.home);
    const lines = readFileSync(file!, 'utf8').split('\n');
    const at = lines.findIndex((l) =>
      broken === 'the tool call' ? l.includes('"type":"tool_use"') : l.includes('"type":"tool_result"'),
    );
    assert.ok(at >= 0);
    const line = JSON.parse(lines[at]!);
    // Well-formed JSON of a known type, but the content is a number: not a transcript line agentpipe writes.
    line.message.content = 42;
    lines[at] = JSON.stringify(line);
    writeFileSync(file!, lines.join('\n'));

    const resumed = await run(p, [...STREAM, ...CLAUDE, '--resume', file!, 'second'], { env: server.env });
    assert.equal(resumed.code, 0, resumed.stderr);
    const kind = broken === 'the tool call' ? 'assistant' : 'user';
    assert.match(
      resumed.stderr,
      new RegExp(`line ${at + 1} \\(${kind}\\) is not a valid transcript line: .*; skipped`),
    );
    assert.equal(resumed.stderr.match(/warning/g)?.length, 1, resumed.stderr);
    const out = parseLines(resumed.stdout);
    assert.equal(out.filter((l) => l.type === 'result').length, 1);
    assert.equal(out.at(-1)!.subtype, 'success');
    assert.equal(out.at(-1)!.result, 'Second done.');
    const sent = server.requests.at(-1)!.body.messages as Array<{ role: string; content: any }>;
    assertPaired(sent);
    assert.equal(sent.at(-1)!.content, 'second');
  });
}

test('pairToolCalls: a result without its call is dropped, a call without its result gets one; a whole history is untouched', () => {
  const use = (id: string) => ({ type: 'tool_use' as const, id, name: 'Bash', input: {} });
  const result = (id: string) => ({ type: 'tool_result' as const, tool_use_id: id, content: 'ok' });
  const whole: MessageParam[] = [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: [use('a'), use('b')] },
    { role: 'user', content: [result('a'), result('b')] },
    { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
  ];
  const copy = structuredClone(whole);
  pairToolCalls(copy);
  assert.deepEqual(copy, whole);

  const broken: MessageParam[] = [
    { role: 'user', content: 'go' },
    // The answer with call x was skipped: its result has no call.
    { role: 'user', content: [result('x')] },
    { role: 'assistant', content: [use('a'), use('b')] },
    // b's result was skipped.
    { role: 'user', content: [result('a'), { type: 'text', text: 'note' }] },
    { role: 'assistant', content: [use('c')] },
  ];
  pairToolCalls(broken);
  const lost = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: LOST_RESULT, is_error: true });
  assert.deepEqual(broken, [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: [use('a'), use('b')] },
    { role: 'user', content: [lost('b')] },
    { role: 'user', content: [result('a'), { type: 'text', text: 'note' }] },
    { role: 'assistant', content: [use('c')] },
    { role: 'user', content: [lost('c')] },
  ]);
  assertPaired(mergeConsecutive(broken));
});
