/**
 * acceptEdits does not run an edit of a file a Read deny rule protects: the edit's answer ("String to replace not
 * found", the file's text in `tool_use_result`) would tell the model or the client what the rule hides. It asks
 * instead (names the rule); other files inside the folder still run, and an explicit allow rule still decides.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { editTool } from '../../src/tools/builtin/edit.ts';
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
