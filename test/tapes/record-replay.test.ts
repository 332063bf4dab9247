/**
 * Record once, replay forever: a session on the Anthropic provider (the local fake API) with Read, Edit, a Bash that
 * appends, a Task subagent with two model requests and a call to a real stdio MCP server is recorded; the fake API is
 * stopped; `--replay` then gives the same stream (as a client compares it) and the same files, twice in a row, in
 * fresh copies of the starting folder, with no key. A changed prompt or a changed tool result leaves the tape: exit 1
 * and the first difference.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { normalizeStream } from '../../src/session/tape-verify.ts';
import type { AgentMessage } from '../../src/messages/types.ts';
import { PROMPT, read, recordSession, replaySession, SECRET_KEY, startFolder, type Recording } from './scenario.ts';

let recording: Promise<Recording> | undefined;
/** The one recording the tests of this file share. */
const recorded = () => (recording ??= recordSession());

const types = (lines: Array<Record<string, any>>) =>
  lines.map((m) => (m.type === 'system' ? `system/${m.subtype}` : m.type));

test('the recording ran the whole session against the fake API and wrote a private tape without the key', async () => {
  const { run, lines, server, cwd, tape } = await recorded();
  assert.equal(run.code, 0, run.stderr);
  assert.equal(server.requests.length, 8, 'six requests of the main agent, two of the subagent');
  assert.equal(
    server.requests[0]!.headers['x-api-key'] ?? server.requests[0]!.headers.authorization?.slice(7),
    SECRET_KEY,
  );
  assert.equal(read(cwd), 'ALPHA\nbeta\ngamma\n');
  const result = lines.at(-1)!;
  assert.equal(result.type, 'result');
  assert.equal(result.subtype, 'success');
  assert.equal(result.result, 'All done: 3 lines, and 2 + 3 = 5.');
  assert.ok(
    lines.some(
      (m) =>
        m.type === 'user' &&
        m.message.content[0]?.tool_use_id === 'toolu_06mcp' &&
        JSON.stringify(m.message.content[0].content) === JSON.stringify([{ type: 'text', text: '5' }]),
    ),
    'the MCP server answered',
  );
  assert.ok(
    lines.some((m) => m.parent_tool_use_id === 'toolu_04task'),
    'the subagent ran',
  );
  const text = readFileSync(tape, 'utf8');
  assert.ok(!text.includes(SECRET_KEY), 'no API key on the tape');
  assert.doesNotMatch(text, /x-api-key|authorization|bearer/i, 'no auth header on the tape');
  assert.equal(statSync(tape).mode & 0o777, 0o600);
  const kinds = text
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { type: string }).type);
  assert.equal(kinds[0], 'tape');
  for (const kind of ['files', 'prompt', 'model_request', 'model_response', 'tool', 'message'])
    assert.ok(kinds.includes(kind), `the tape has ${kind} lines`);
  assert.equal(kinds.filter((k) => k === 'model_request').length, 8);
  assert.equal(kinds.filter((k) => k === 'tool').length, 6, 'Read, Edit, Bash, Task, the Bash in Task, add');
});

test('replayed twice in a row with the API stopped and no key: the same stream and the same files', async () => {
  const { cwd, tape, lines } = await recorded();
  const expected = normalizeStream(lines as AgentMessage[], cwd);
  for (const round of [1, 2]) {
    const folder = startFolder();
    const replay = await replaySession(tape, folder);
    assert.equal(replay.run.code, 0, `round ${round}: ${replay.run.stderr}`);
    assert.deepEqual(normalizeStream(replay.lines as AgentMessage[], folder), expected, `round ${round}: the stream`);
    assert.equal(read(folder), read(cwd), `round ${round}: the files`);
    assert.deepEqual(types(replay.lines), types(lines));
    // The ids the recording drew, where a client sees them.
    assert.deepEqual(
      replay.lines.map((m) => m.uuid),
      lines.map((m) => m.uuid),
      `round ${round}: the recorded uuids`,
    );
    assert.equal(replay.lines.at(-1)!.duration_ms, lines.at(-1)!.duration_ms, 'the recorded clock values');
  }
});

test('one word of the prompt changed: exit 1, and the result names the first difference', async () => {
  const { tape } = await recorded();
  const replay = await replaySession(tape, startFolder(), ['-p', PROMPT.replace('Tidy', 'Sort')]);
  assert.equal(replay.run.code, 1);
  const result = replay.lines.at(-1)!;
  assert.equal(result.type, 'result');
  assert.equal(result.is_error, true);
  assert.equal(result.subtype, 'error_during_execution');
  const [error] = result.errors as string[];
  assert.match(error!, /not on the tape/);
  assert.match(error!, /first difference at messages\[0\]\.content/);
  assert.match(error!, /tape: +"Tidy notes\.txt"/);
  assert.match(error!, /this run: +"Sort notes\.txt"/);
  assert.match(replay.run.stderr, /first difference at messages\[0\]\.content/);
});

test("one tool's result changed (the file the model reads): exit 1, naming the difference in the tool result", async () => {
  const { tape } = await recorded();
  const folder = startFolder();
  const { writeFileSync } = await import('node:fs');
  writeFileSync(`${folder}/notes.txt`, 'alpha\nBETA\n');
  const replay = await replaySession(tape, folder);
  assert.equal(replay.run.code, 1);
  const [error] = replay.lines.at(-1)!.errors as string[];
  assert.match(error!, /first difference at messages\[2\]\.content\[0\]\.content/);
  assert.match(error!, /beta/);
  assert.match(error!, /BETA/);
  assert.equal(read(folder), 'alpha\nBETA\n', 'the run stopped before the Edit');
});

test('--replay-tools tape: the same stream with nothing run, in an empty folder', async () => {
  const { cwd, tape, lines } = await recorded();
  const folder = startFolder();
  const { rmSync, readdirSync } = await import('node:fs');
  rmSync(`${folder}/notes.txt`);
  const replay = await replaySession(tape, folder, ['--replay-tools', 'tape']);
  assert.equal(replay.run.code, 0, replay.run.stderr);
  assert.deepEqual(
    normalizeStream(replay.lines as AgentMessage[], folder),
    normalizeStream(lines as AgentMessage[], cwd),
  );
  assert.deepEqual(readdirSync(folder), [], 'no tool ran: no file was made or changed');
  // The stream is the recorded one, line for line, but for the folder (and the session id, when it was taken).
  const asText = (lines: Array<Record<string, any>>, dir: string) =>
    lines.map((m) => JSON.stringify({ ...m, session_id: '' }).replaceAll(dir, '<cwd>'));
  assert.deepEqual(asText(replay.lines, folder), asText(lines, cwd));
});
