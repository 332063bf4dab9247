/** The built-in tools called directly, as the agent loop calls them. */
import { ToolState } from '../../src/tools/state.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bashTool } from '../../src/tools/builtin/bash.ts';
import { editTool } from '../../src/tools/builtin/edit.ts';
import { readTool } from '../../src/tools/builtin/read.ts';
import { writeTool } from '../../src/tools/builtin/write.ts';
import { globTool } from '../../src/tools/builtin/glob.ts';
import { grepTool } from '../../src/tools/builtin/grep.ts';
import { isReadOnlyShell } from '../../src/tools/shell/facts.ts';
import type { ToolContext } from '../../src/tools/types.ts';
import { tempDir } from '../helpers/workspace.ts';

const dir = tempDir({ 'a.txt': 'one\ntwo\nthree\nfour\n', 'b.ts': 'const x = 1;\nconst y = x;\n' });
const ctx = (signal = new AbortController().signal): ToolContext => ({
  cwd: dir,
  signal,
  sessionId: 's',
  toolUseId: 't',
  state: new ToolState(),
});

test('Read numbers lines and honours offset and limit', async () => {
  const result = await readTool.call({ file_path: 'a.txt', offset: 2, limit: 2 }, ctx());
  // 'one\ntwo\nthree\nfour\n' is five lines as Claude Code counts them (the last one empty).
  assert.equal(result.content, '2\ttwo\n3\tthree');
});

test('Read returns images as image blocks', async () => {
  const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
  writeFileSync(path.join(dir, 'p.png'), png);
  const result = await readTool.call({ file_path: 'p.png' }, ctx());
  assert.deepEqual(result.content, [
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png.toString('base64') } },
  ]);
});

test('Edit fails clearly when the text is missing or not unique, then replaces exactly', async () => {
  writeFileSync(path.join(dir, 'e.txt'), 'x = 1\nx = 1\n');
  const session = ctx();
  await readTool.call({ file_path: 'e.txt' }, session);
  const missing = await editTool.call({ file_path: 'e.txt', old_string: 'y', new_string: 'z' }, session);
  assert.equal(missing.isError, true);
  assert.equal(missing.content, '<tool_use_error>String to replace not found in file.\nString: y</tool_use_error>');
  const twice = await editTool.call({ file_path: 'e.txt', old_string: 'x = 1', new_string: 'x = 2' }, session);
  assert.match(
    String(twice.content),
    /^<tool_use_error>Found 2 matches of the string to replace, but replace_all is false/,
  );
  const all = await editTool.call(
    { file_path: 'e.txt', old_string: 'x = 1', new_string: 'x = $&2', replace_all: true },
    session,
  );
  assert.equal(all.isError, undefined);
  assert.equal(readFileSync(path.join(dir, 'e.txt'), 'utf8'), 'x = $&2\nx = $&2\n');
});

test('an Edit or Write of a never-read file runs, but not once the file changed on disk after the model saw it', async () => {
  const changed =
    '<tool_use_error>File has been modified since read, either by the user or by a linter. Read it again before ' +
    'attempting to write it.</tool_use_error>';
  const later = (file: string) => {
    const when = new Date(Date.now() + 60_000);
    utimesSync(path.join(dir, file), when, when);
  };
  for (const file of ['u1.txt', 'u2.txt']) writeFileSync(path.join(dir, file), 'a\nb\n');
  const session = ctx();
  // Edited unread: the model knows the file is current, not what it holds.
  const unread = await editTool.call({ file_path: 'u1.txt', old_string: 'a', new_string: 'A' }, session);
  assert.equal((unread.data as Record<string, unknown>).contentNotInModelContext, true);
  // Changed by someone else after that edit: the next Edit is refused, and so is a Write over it.
  writeFileSync(path.join(dir, 'u1.txt'), 'A\nb\nc\n');
  later('u1.txt');
  const stale = await editTool.call({ file_path: 'u1.txt', old_string: 'b', new_string: 'B' }, session);
  assert.deepEqual([stale.content, stale.isError], [changed, true]);
  const staleWrite = await writeTool.call({ file_path: 'u1.txt', content: 'gone\n' }, session);
  assert.deepEqual([staleWrite.content, staleWrite.isError], [changed, true]);
  assert.equal(readFileSync(path.join(dir, 'u1.txt'), 'utf8'), 'A\nb\nc\n');
  // Read, then changed on disk: refused too.
  await readTool.call({ file_path: 'u2.txt' }, session);
  writeFileSync(path.join(dir, 'u2.txt'), 'x\n');
  later('u2.txt');
  const afterRead = await editTool.call({ file_path: 'u2.txt', old_string: 'x', new_string: 'y' }, session);
  assert.deepEqual([afterRead.content, afterRead.isError], [changed, true]);
  assert.equal(readFileSync(path.join(dir, 'u2.txt'), 'utf8'), 'x\n');
});

test('Bash caps output with a notice and reports exit codes', async () => {
  const big = await bashTool.call({ command: 'head -c 40000 /dev/zero | tr "\\0" a' }, ctx());
  assert.match(String(big.content), /\[output truncated: 10000 more characters not shown\]$/);
  const failed = await bashTool.call({ command: 'echo oops >&2; exit 3' }, ctx());
  assert.equal(failed.isError, true);
  assert.equal(failed.content, 'Exit code 3\noops');
});

test('Bash says noOutputExpected for lines of silent commands only, as Claude Code 2.1.332', async () => {
  const quiet = async (command: string) =>
    ((await bashTool.call({ command }, ctx())).data as { noOutputExpected: boolean }).noOutputExpected;
  assert.equal(await quiet('mkdir -p q && touch q/x && cd q'), true);
  assert.equal(await quiet('touch q/y; echo made'), false);
  assert.equal(await quiet('X=1 touch q/z'), false);
  assert.equal(await quiet('ls q'), false);
});

test('Bash timeout and abort kill the whole process group', async () => {
  const marker = path.join(dir, 'survivor');
  const timed = await bashTool.call({ command: `(sleep 1.5; touch ${marker}) & sleep 30`, timeout: 300 }, ctx());
  assert.equal(timed.isError, true);
  assert.match(String(timed.content), /timed out after 300 ms/);
  const abort = new AbortController();
  setTimeout(() => abort.abort(), 200);
  const started = Date.now();
  const aborted = await bashTool.call({ command: 'sleep 30' }, ctx(abort.signal));
  assert.ok(Date.now() - started < 3000);
  assert.match(String(aborted.content), /interrupted/);
  await new Promise((r) => setTimeout(r, 2000));
  assert.throws(() => readFileSync(marker), 'the background child was killed with its group');
});

test('Glob and Grep find files and lines', async () => {
  // As Claude Code 2.1.332: paths relative to the working folder, its header and footer lines.
  const glob = await globTool.call({ pattern: '*.ts' }, ctx());
  assert.equal(glob.content, 'b.ts');
  assert.deepEqual(glob.data, {
    filenames: ['b.ts'],
    numFiles: 1,
    truncated: false,
    durationMs: (glob.data as { durationMs: number }).durationMs,
    totalMatches: 1,
    countIsComplete: true,
  });
  const grep = await grepTool.call({ pattern: 'const \\w = x', output_mode: 'content' }, ctx());
  assert.equal(grep.content, 'b.ts:2:const y = x;');
  const files = await grepTool.call({ pattern: 'const \\w = x' }, ctx());
  assert.equal(files.content, 'Found 1 file\nb.ts');
  const count = await grepTool.call({ pattern: 'const', output_mode: 'count', glob: '*.ts' }, ctx());
  assert.equal(count.content, 'b.ts:2\n\nFound 2 total occurrences across 1 file.');
  const none = await grepTool.call({ pattern: 'no such text here' }, ctx());
  assert.equal(none.content, 'No files found');
  const bad = await grepTool.call({ pattern: '(unclosed' }, ctx());
  assert.equal(bad.isError, true);
  assert.match(
    String(bad.content),
    /^Search failed — ripgrep rejected the pattern, glob, or file type without searching:\n/,
  );
});

test('Glob lists files oldest first; Grep its files newest first (ties by name), as Claude Code 2.1.332', async () => {
  const { utimesSync, writeFileSync } = await import('node:fs');
  for (const [name, seconds] of [
    ['old.md', 1_000],
    ['new.md', 3_000],
    ['mid.md', 2_000],
  ] as const) {
    writeFileSync(path.join(dir, name), 'needle\n');
    utimesSync(path.join(dir, name), seconds, seconds);
  }
  const glob = await globTool.call({ pattern: '*.md' }, ctx());
  assert.equal(glob.content, 'old.md\nmid.md\nnew.md');
  const grep = await grepTool.call({ pattern: 'needle', glob: '*.md' }, ctx());
  assert.equal(grep.content, 'Found 3 files\nnew.md\nmid.md\nold.md');
});

test('read-only Bash commands are recognised conservatively', async () => {
  for (const ok of ['ls -la', 'git status', 'cat a | wc -l', 'find . -name x'])
    assert.ok(await isReadOnlyShell(ok), ok);
  for (const no of ['rm -rf x', 'ls > f', 'echo $(rm x)', 'find . -delete', 'git push', 'npm test'])
    assert.ok(!(await isReadOnlyShell(no)), no);
});
