/**
 * acceptEdits does not run an edit of a file a Read deny rule protects: the edit's answer ("String to replace not
 * found", the file's text in `tool_use_result`) would tell the model or the client what the rule hides. It asks
 * instead (names the rule); other files inside the folder still run, and an explicit allow rule still decides.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { editTool } from '../../src/tools/builtin/edit.ts';
import { notebookEditTool } from '../../src/tools/builtin/notebook-edit.ts';
import { writeTool } from '../../src/tools/builtin/write.ts';
import { parseRules } from '../../src/tools/permission-rules.ts';
import { checkPermission } from '../../src/tools/permissions.ts';

const cwd = path.join(path.sep, 'work', 'project');
const deny = parseRules(['Read(./secret/**)', 'Read(.env)']);

const verdict = (tool: typeof editTool, file: string, allow: string[] = []) =>
  checkPermission({
    tool,
    input: { file_path: file, old_string: 'a', new_string: 'b', content: 'x' },
    mode: 'acceptEdits',
    allow: parseRules(allow),
    deny,
    cwd,
  });

test('acceptEdits asks before an edit of a Read-denied file, in every spelling of its path', async () => {
  for (const file of ['secret/s.txt', './secret/s.txt', path.join(cwd, 'secret/s.txt'), 'x/../secret/s.txt', '.env']) {
    for (const tool of [editTool, writeTool]) {
      const got = await verdict(tool, file);
      assert.equal(got.behavior, 'ask', `${tool.name} ${file}`);
      assert.match(got.behavior === 'ask' ? got.reason : '', /protected from reading by the rule Read\(/);
    }
  }
  assert.equal((await verdict(editTool, 'src/a.ts')).behavior, 'allow', 'another file still runs');
  assert.equal((await verdict(editTool, 'secret/s.txt', ['Edit(./secret/**)'])).behavior, 'allow', 'an allow rule');
});

test('attacker rows: a linked folder, a link to the file, a new file under the rule, NotebookEdit: all ask', async () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'edit-read-denied-'));
  try {
    const work = path.join(root, 'work');
    mkdirSync(path.join(work, 'secret'), { recursive: true });
    writeFileSync(path.join(work, 'secret/s.txt'), 'top secret\n');
    symlinkSync(path.join(work, 'secret'), path.join(work, 'd'));
    symlinkSync(path.join(work, 'secret/s.txt'), path.join(work, 'l.txt'));
    const check = (tool: typeof editTool, file: string) =>
      checkPermission({
        tool,
        input: { file_path: file, notebook_path: file, old_string: 'a', new_string: 'b', content: 'x' },
        mode: 'acceptEdits',
        allow: [],
        deny: parseRules(['Read(./secret/**)']),
        cwd: work,
      });
    for (const file of ['d/s.txt', 'l.txt', 'secret/new.txt', './d/../secret/s.txt'])
      assert.equal((await check(editTool, file)).behavior, 'ask', file);
    assert.equal((await check(notebookEditTool, 'd/n.ipynb')).behavior, 'ask', 'NotebookEdit under a linked folder');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
