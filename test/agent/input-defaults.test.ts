import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { parseLines } from '../helpers/cli.ts';
import { anthropic, CLAUDE, place, run, STREAM, text, toolCall } from '../session/helpers.ts';

test("Edit's call is completed with replace_all: false, as Claude Code completes it, in the stream and the next request", async () => {
  const p = place();
  const input = { file_path: path.join(p.cwd, 'a.txt'), old_string: 'x', new_string: 'y' };
  const server = await anthropic([toolCall('toolu_1', 'Edit', input), text('done')]);
  const r = await run(p, [...STREAM, ...CLAUDE, 'hi'], { env: server.env });
  assert.equal(r.code, 0, r.stderr);
  const call = parseLines(r.stdout)
    .filter((l) => l.type === 'assistant')
    .flatMap((l) => l.message.content)
    .find((b: { type: string }) => b.type === 'tool_use');
  assert.deepEqual(call.input, { ...input, replace_all: false });
  const sent = (
    server.requests[1]!.body as { messages: Array<{ content: Array<{ type: string; input?: unknown }> }> }
  ).messages
    .flatMap((m) => m.content)
    .find((b) => b.type === 'tool_use');
  assert.deepEqual(sent?.input, { ...input, replace_all: false });
});
