/**
 * The create-vs-update race of a wrapped CLI's Write and Edit calls (harness/file-changes.ts), which Qwen Code's and
 * Gemini CLI's translators share: the CLI changed the file before its announcement was read, so the text read
 * "before" is the text after. The events are fed in that racy order to each translator in-process.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileChangeResult } from '../../src/harness/file-changes.ts';
import { GeminiHarness } from '../../src/harness/gemini.ts';
import { GeminiTurn } from '../../src/harness/gemini/turn.ts';
import { FileChanges } from '../../src/harness/qwen.ts';
import type { AgentMessage } from '../../src/messages/types.ts';
import { scratchDir } from '../helpers/temp.ts';
import { turnState } from '../helpers/turn-state.ts';

test('a Write raced by the CLI: its words tell a created file from an overwritten one (old text unknown)', async () => {
  const call = { name: 'Write' as const, file: '/w/a.txt', input: { file_path: '/w/a.txt', content: 'new\n' } };
  const created = await fileChangeResult(call, 'new\n', 'new\n', 'Successfully created and wrote to new file: a.txt');
  assert.deepEqual(created && 'type' in created ? [created.type, created.originalFile, created.structuredPatch] : [], [
    'create',
    null,
    [],
  ]);
  const updated = await fileChangeResult(call, undefined, 'new\n', 'Successfully overwrote file: a.txt');
  assert.deepEqual(updated && 'type' in updated ? [updated.type, updated.originalFile] : [], ['update', null]);
  const plain = await fileChangeResult(call, 'old\n', 'new\n', '');
  assert.deepEqual(plain && 'type' in plain ? [plain.type, plain.originalFile] : [], ['update', 'old\n']);
  assert.equal(await fileChangeResult(call, 'old\n', null, ''), undefined, 'an unreadable file has no result');
});

test('an Edit raced by the CLI is undone from its own strings; its diff is the replacement', async () => {
  const input = { file_path: '/w/b.txt', old_string: 'one', new_string: 'two' };
  const result = await fileChangeResult({ name: 'Edit', file: '/w/b.txt', input }, 'a two b\n', 'a two b\n', '');
  assert.ok(result && 'oldString' in result);
  assert.equal(result.originalFile, 'a one b\n');
  assert.deepEqual(
    result.structuredPatch.flatMap((hunk) => hunk.lines),
    ['-a one b', '+a two b'],
  );
});

const toolUseResults = (stream: AgentMessage[]): unknown[] =>
  stream.flatMap((m) => (m.type === 'user' && m.tool_use_result !== undefined ? [m.tool_use_result] : []));

test('gemini: a file written before its tool_use is read is a created file, not an empty update', async (t) => {
  const cwd = scratchDir('file-changes-');
  const { config, state, stream } = turnState({ name: 'gemini', command: ['gemini'], cwd, env: { HOME: cwd } });
  const harness = new GeminiHarness(config, 'session-1');
  t.after(() => harness.close());
  const gemini = new GeminiTurn(harness, state);
  const file = path.join(cwd, 'new.txt');
  await gemini.event({ type: 'init', model: 'gemini-x' });
  writeFileSync(file, 'hello\n'); // the CLI ran the call before its announcement was read
  await gemini.event({
    type: 'tool_use',
    tool_name: 'write_file',
    tool_id: 'call-1',
    parameters: { file_path: 'new.txt', content: 'hello\n' },
  });
  await gemini.event({
    type: 'tool_result',
    tool_id: 'call-1',
    status: 'success',
    output: `Successfully created and wrote to new file: ${file}.`,
  });
  const [result] = toolUseResults(stream);
  assert.deepEqual(result, {
    type: 'create',
    filePath: file,
    content: 'hello\n',
    structuredPatch: [],
    originalFile: null,
    userModified: false,
  });
  assert.deepEqual(
    stream.map((m) => m.type),
    ['system', 'assistant', 'user'],
  );
});

test('qwen: a file written before the call is watched is a created file, from the CLI’s words', async (t) => {
  const cwd = scratchDir('file-changes-');
  const file = path.join(cwd, 'made.txt');
  writeFileSync(file, 'made\n'); // the CLI ran the call before its announcement was read
  const changes = new FileChanges(cwd);
  changes.watch([
    { type: 'tool_use', id: 'call-2', name: 'Write', input: { file_path: 'made.txt', content: 'made\n' } },
  ]);
  const message: Record<string, unknown> = {
    type: 'user',
    message: {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'call-2', content: `Successfully created and wrote to new file: ${file}` },
      ],
    },
  };
  await changes.complete(message);
  assert.deepEqual(message.tool_use_result, {
    type: 'create',
    filePath: file,
    content: 'made\n',
    structuredPatch: [],
    originalFile: null,
    userModified: false,
  });
});
