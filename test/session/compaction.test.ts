import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseLines } from '../helpers/cli.ts';
import { writeScript } from '../helpers/workspace.ts';
import { anthropic, CLAUDE, place, prompts, run, STREAM, STREAM_IN, text, transcripts } from './helpers.ts';

const PREFIX = 'This session is being continued from a previous conversation that was compacted.';

test('auto compaction at a small --max-context-tokens: status, boundary, summary in place of older turns', async () => {
  const p = place();
  const server = await anthropic([
    text('A1', { input_tokens: 950, output_tokens: 10 }),
    text('Summary: the user said one.'),
    text('A2'),
    text('A3'),
  ]);
  const r = await run(p, [...STREAM_IN, ...CLAUDE, '--max-context-tokens', '1000'], {
    stdin: prompts('one', 'two'),
    env: server.env,
  });
  assert.equal(r.code, 0, r.stderr);
  const lines = parseLines(r.stdout);
  const second = lines.slice(lines.findIndex((l) => l.type === 'result') + 1);
  const kinds = second.map((l) =>
    l.type === 'system' ? `system/${l.subtype}${l.subtype === 'status' ? `:${l.status}` : ''}` : l.type,
  );
  assert.deepEqual(kinds, [
    'system/init',
    'system/status:compacting',
    'system/compact_boundary',
    'system/status:null',
    'assistant',
    'result',
  ]);
  const boundary = second[2].compact_metadata;
  assert.equal(boundary.trigger, 'auto');
  assert.ok(boundary.pre_tokens >= 960, `pre_tokens ${boundary.pre_tokens}`);
  assert.ok(boundary.post_tokens < boundary.pre_tokens);
  assert.equal(second.at(-1)!.result, 'A2');

  // The summary request: the older turns plus the instruction.
  const summaryRequest = server.requests[1].body.messages;
  assert.deepEqual(summaryRequest.slice(0, 2), [
    { role: 'user', content: 'one' },
    { role: 'assistant', content: [{ type: 'text', text: 'A1' }] },
  ]);
  assert.match(summaryRequest[2].content[0].text, /create a detailed summary/);
  // The next request: the summary and the kept current prompt.
  const after = server.requests[2].body.messages;
  assert.equal(after.length, 1);
  assert.ok(after[0].content[0].text.startsWith(PREFIX));
  assert.match(after[0].content[0].text, /Summary: the user said one\./);
  assert.deepEqual(after[0].content[1], { type: 'text', text: 'two' });

  // The transcript keeps everything, and a resume starts from the compacted history.
  const [file] = transcripts(p.home);
  assert.match(readFileSync(file, 'utf8'), /"text":"A1"/);
  const resumed = await run(p, [...STREAM, ...CLAUDE, '--continue', 'three'], { env: server.env });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.deepEqual(server.requests[3].body.messages, [
    ...after,
    { role: 'assistant', content: [{ type: 'text', text: 'A2' }] },
    { role: 'user', content: 'three' },
  ]);
});

test('/compact compacts on demand (trigger manual); the scripted model answers the summary request', async () => {
  const p = place();
  const script = writeScript(p.cwd, [{ text: 'hello' }, { text: 'the summary' }, { text: 'after' }]);
  const r = await run(p, [...STREAM_IN, '--script', script], {
    stdin: prompts('hi', '/compact keep it short', 'next'),
  });
  assert.equal(r.code, 0, r.stderr);
  const lines = parseLines(r.stdout);
  const results = lines.filter((l) => l.type === 'result');
  assert.equal(results.length, 3);
  assert.equal(results[1].subtype, 'success');
  assert.match(results[1].result, /^Compacted: \d+ → \d+ tokens$/);
  const boundary = lines.find((l) => l.subtype === 'compact_boundary')!;
  assert.equal(boundary.compact_metadata.trigger, 'manual');
  assert.equal(results[2].result, 'after');

  const nothing = await run(place(), ['--model', 'scripted', '/compact']);
  assert.equal(nothing.code, 1);
  assert.match(nothing.stderr, /Not enough messages to compact/);
});
