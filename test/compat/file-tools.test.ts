/**
 * Edit, Write and Read as Claude Code runs them (issue 14, items 5 and 6), through the real CLI:
 * an Edit or Write of a never-read file runs (2.1.332), one of a file changed on disk since it was read is
 * refused, and `tool_use_result` in the shapes of the SDK's sdk-tools.d.ts (FileEditOutput, FileWriteOutput,
 * FileReadOutput).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { StreamDriver } from '../helpers/stream-driver.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

const ARGS = ['--model', 'scripted', '--no-session-persistence', '--permission-mode', 'acceptEdits'];
const TEN_LINES = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

type Line = Record<string, any>;
/** The tool result user messages of the run, by tool_use_id. */
const resultsOf = (lines: Line[]) =>
  new Map(
    lines
      .filter((l) => l.type === 'user' && l.message.content[0]?.type === 'tool_result')
      .map((l) => [
        l.message.content[0].tool_use_id as string,
        { block: l.message.content[0], data: l.tool_use_result },
      ]),
  );

async function run(
  dir: string,
  calls: Array<{ id: string; name: string; input: Record<string, unknown> }>,
  extraArgs: string[] = [],
) {
  const script = writeScript(dir, [...calls.map((call) => ({ tool_calls: [call] })), { text: 'done' }]);
  const cli = new StreamDriver([...ARGS, '--script', script, ...extraArgs], dir);
  const result = await cli.prompt('go');
  assert.equal(result.subtype, 'success');
  assert.equal(await cli.end(), 0);
  return resultsOf(cli.lines);
}

test('Edit and Write of a never-read file run (Claude Code 2.1.332); the Edit says its content is not in context', async () => {
  const dir = tempDir({ 'a.txt': TEN_LINES, 'b.txt': TEN_LINES });
  const file = path.join(dir, 'a.txt');
  const results = await run(dir, [
    { id: 'toolu_edit', name: 'Edit', input: { file_path: 'a.txt', old_string: 'line 8', new_string: 'LINE EIGHT' } },
    { id: 'toolu_edit2', name: 'Edit', input: { file_path: 'a.txt', old_string: 'line 9', new_string: 'LINE NINE' } },
    { id: 'toolu_read', name: 'Read', input: { file_path: 'a.txt' } },
    { id: 'toolu_edit3', name: 'Edit', input: { file_path: 'a.txt', old_string: 'line 2', new_string: 'LINE TWO' } },
    { id: 'toolu_write', name: 'Write', input: { file_path: 'b.txt', content: 'replaced' } },
    { id: 'toolu_new', name: 'Write', input: { file_path: 'new.txt', content: 'fresh\n' } },
  ]);
  const edit = results.get('toolu_edit')!;
  // No "(file state is current in your context …)": the model has not seen the file.
  assert.deepEqual(
    [edit.block.content, edit.block.is_error],
    [`The file ${file} has been updated successfully.`, undefined],
  );
  assert.equal(edit.data.contentNotInModelContext, true);
  assert.equal(edit.data.originalFile, TEN_LINES);
  // Its own edit did not show it the file: the next Edit is still one of a file not in context.
  assert.equal(results.get('toolu_edit2')!.data.contentNotInModelContext, true);
  // After a Read, it is.
  const edit3 = results.get('toolu_edit3')!;
  assert.equal(edit3.data.contentNotInModelContext, undefined);
  assert.match(edit3.block.content, /file state is current in your context/);
  assert.equal(
    readFileSync(file, 'utf8'),
    TEN_LINES.replace('line 8', 'LINE EIGHT').replace('line 9', 'LINE NINE').replace('line 2', 'LINE TWO'),
  );
  // Write replaces the whole file: the model knows what it holds.
  const write = results.get('toolu_write')!;
  assert.notEqual(write.block.is_error, true, write.block.content);
  assert.equal(write.data.contentNotInModelContext, undefined);
  assert.equal(write.data.type, 'update');
  assert.equal(readFileSync(path.join(dir, 'b.txt'), 'utf8'), 'replaced');
  assert.deepEqual(results.get('toolu_new')!.data, {
    type: 'create',
    filePath: path.join(dir, 'new.txt'),
    content: 'fresh\n',
    structuredPatch: [],
    originalFile: null,
    userModified: false,
  });
});

test('a file changed on disk since it was read must be read again', async () => {
  const dir = tempDir({ 'a.txt': TEN_LINES });
  const file = path.join(dir, 'a.txt');
  // The file changes between the Read and the first Edit, in the CLI itself (a PreToolUse hook that
  // runs once), so the order does not depend on how fast this test reads the stream.
  writeFileSync(
    path.join(dir, 'change-once.cjs'),
    [
      "const fs = require('node:fs');",
      "if (!fs.existsSync('changed')) {",
      "  fs.writeFileSync('changed', '');",
      "  fs.writeFileSync('a.txt', fs.readFileSync('a.txt', 'utf8').replace('line 1\\n', 'line one\\n'));",
      '  const later = new Date(Date.now() + 5000);',
      "  fs.utimesSync('a.txt', later, later);",
      '}',
    ].join('\n'),
  );
  const hook = {
    hooks: { PreToolUse: [{ matcher: 'Edit', hooks: [{ type: 'command', command: 'node change-once.cjs' }] }] },
  };
  const results = await run(
    dir,
    [
      { id: 'toolu_read', name: 'Read', input: { file_path: 'a.txt' } },
      { id: 'toolu_edit', name: 'Edit', input: { file_path: 'a.txt', old_string: 'line 8', new_string: 'LINE EIGHT' } },
      { id: 'toolu_reread', name: 'Read', input: { file_path: 'a.txt' } },
      {
        id: 'toolu_edit2',
        name: 'Edit',
        input: { file_path: 'a.txt', old_string: 'line 8', new_string: 'LINE EIGHT' },
      },
    ],
    ['--settings', JSON.stringify(hook)],
  );
  assert.equal(
    results.get('toolu_edit')!.block.content,
    '<tool_use_error>File has been modified since read, either by the user or by a linter. Read it again ' +
      'before attempting to write it.</tool_use_error>',
  );
  assert.notEqual(results.get('toolu_edit2')!.block.is_error, true);
  assert.equal(readFileSync(file, 'utf8'), TEN_LINES.replace('line 1\n', 'line one\n').replace('line 8', 'LINE EIGHT'));
});

test('tool_use_result shapes: Read file.content, Edit structuredPatch with real line numbers, Write update patch', async () => {
  const dir = tempDir({ 'a.txt': TEN_LINES });
  const file = path.join(dir, 'a.txt');
  const results = await run(dir, [
    { id: 'toolu_read', name: 'Read', input: { file_path: 'a.txt', offset: 2, limit: 2 } },
    { id: 'toolu_edit', name: 'Edit', input: { file_path: 'a.txt', old_string: 'line 8', new_string: 'LINE EIGHT' } },
    { id: 'toolu_write', name: 'Write', input: { file_path: 'a.txt', content: 'short\n' } },
    { id: 'toolu_nope', name: 'NoSuchTool', input: {} },
  ]);
  assert.deepEqual(results.get('toolu_read')!.data, {
    type: 'text',
    // The path as the model gave it, as Claude Code 2.1.332 gives it.
    file: { filePath: 'a.txt', content: 'line 2\nline 3', numLines: 2, startLine: 2, totalLines: 11 },
  });
  const edit = results.get('toolu_edit')!;
  assert.notEqual(edit.block.is_error, true, edit.block.content);
  assert.deepEqual(edit.data, {
    filePath: file,
    oldString: 'line 8',
    newString: 'LINE EIGHT',
    originalFile: TEN_LINES,
    userModified: false,
    replaceAll: false,
    structuredPatch: [
      {
        oldStart: 5,
        oldLines: 6,
        newStart: 5,
        newLines: 6,
        lines: [' line 5', ' line 6', ' line 7', '-line 8', '+LINE EIGHT', ' line 9', ' line 10'],
      },
    ],
  });
  const edited = TEN_LINES.replace('line 8', 'LINE EIGHT');
  const write = results.get('toolu_write')!;
  assert.equal(write.data.type, 'update');
  assert.equal(write.data.originalFile, edited);
  assert.equal(write.data.structuredPatch[0].oldStart, 1);
  assert.ok(write.data.structuredPatch[0].lines.includes('+short'));
  assert.deepEqual(
    [results.get('toolu_nope')!.block.content, results.get('toolu_nope')!.block.is_error],
    ['<tool_use_error>Error: No such tool available: NoSuchTool</tool_use_error>', true],
  );
  assert.equal(results.get('toolu_nope')!.data, 'Error: No such tool available: NoSuchTool');
});

test("Claude Code 2.1.332's texts: Read of a folder, of an empty file, input that does not fit the schema", async () => {
  const dir = tempDir({ 'empty.txt': '' });
  mkdirSync(path.join(dir, 'd'));
  const results = await run(dir, [
    { id: 'toolu_dir', name: 'Read', input: { file_path: 'd' } },
    { id: 'toolu_empty', name: 'Read', input: { file_path: 'empty.txt' } },
    { id: 'toolu_missing', name: 'Read', input: {} },
    { id: 'toolu_type', name: 'Read', input: { file_path: 7 } },
    { id: 'toolu_two', name: 'Edit', input: { file_path: 'empty.txt', old_string: 1 } },
  ]);
  const eisdir = `EISDIR: illegal operation on a directory, read '${path.join(dir, 'd')}'`;
  assert.deepEqual(
    [results.get('toolu_dir')!.block.content, results.get('toolu_dir')!.data],
    [eisdir, `Error: ${eisdir}`],
  );
  assert.deepEqual(results.get('toolu_empty')!.data.file, {
    filePath: 'empty.txt',
    content: '',
    numLines: 1,
    startLine: 1,
    totalLines: 1,
  });
  const invalid = (id: string) => [results.get(id)!.block.content, results.get(id)!.block.is_error];
  assert.deepEqual(invalid('toolu_missing'), [
    '<tool_use_error>InputValidationError: Read failed due to the following issue:\n' +
      'The required parameter `file_path` is missing</tool_use_error>',
    true,
  ]);
  assert.deepEqual(JSON.parse(results.get('toolu_missing')!.data.replace('InputValidationError: ', '')), [
    {
      expected: 'string',
      code: 'invalid_type',
      path: ['file_path'],
      message: 'Invalid input: expected string, received undefined',
    },
  ]);
  assert.deepEqual(invalid('toolu_type'), [
    '<tool_use_error>InputValidationError: Read failed due to the following issue:\n' +
      'The parameter `file_path` type is expected as `string` but provided as `number`</tool_use_error>',
    true,
  ]);
  assert.deepEqual(invalid('toolu_two'), [
    '<tool_use_error>InputValidationError: Edit failed due to the following issues:\n' +
      'The required parameter `new_string` is missing\n' +
      'The parameter `old_string` type is expected as `string` but provided as `number`</tool_use_error>',
    true,
  ]);
});
