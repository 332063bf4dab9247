/**
 * An Edit's own errors ("String to replace not found", "File does not exist", same strings) come before the hooks and
 * the permission checks, as in Claude Code 2.1.332, only where a Read of the same resolved path would run without
 * asking (src/tools/validate-first.ts). Everywhere else the permission check comes first, so an Edit's error cannot
 * tell the model whether a file exists, or a string occurs in it, where it may not read. Each row is an attempt to get
 * the error first where it must not come first.
 */
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { editTool } from '../../src/tools/builtin/edit.ts';
import { parseRules } from '../../src/tools/permission-rules.ts';
import { refusalBeforePermission } from '../../src/tools/validate-first.ts';
import { StreamDriver } from '../helpers/stream-driver.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

const NOT_FOUND = 'String to replace not found in file.\nString: zzz';

/** A working folder `cwd` beside a folder `outside`, with a secret, configuration and links. */
function layout() {
  const root = tempDir();
  const cwd = path.join(root, 'work');
  const outside = path.join(root, 'outside');
  for (const dir of [cwd, outside, path.join(cwd, 'secret'), path.join(cwd, '.git')]) mkdirSync(dir);
  writeFileSync(path.join(cwd, 'a.txt'), 'alpha\n');
  writeFileSync(path.join(cwd, 'secret/s.txt'), 'top secret\n');
  writeFileSync(path.join(cwd, '.git/config'), '[core]\n');
  writeFileSync(path.join(outside, 'o.txt'), 'other\n');
  symlinkSync(path.join(outside, 'o.txt'), path.join(cwd, 'link.txt'));
  symlinkSync(outside, path.join(cwd, 'dirlink'));
  symlinkSync(path.join(cwd, 'secret/s.txt'), path.join(cwd, 'to-secret.txt'));
  return { cwd, outside };
}

test('Edit errors before the permission check only where a Read would run without asking', async () => {
  const { cwd, outside } = layout();
  const deny = parseRules(['Read(./secret/**)']);
  const edit = (file: string, oldString = 'zzz', newString = 'y') => ({
    file_path: file,
    old_string: oldString,
    new_string: newString,
  });
  const rows: Array<
    [string, Record<string, unknown>, { deny?: string[]; directories?: string[] }, string | undefined]
  > = [
    // First: inside the working folders, nothing denies a Read.
    ['string not found', edit('a.txt'), {}, NOT_FOUND],
    ['absolute path inside', edit(path.join(cwd, 'a.txt')), {}, NOT_FOUND],
    ['no such file', edit('nope.txt'), {}, `File does not exist. Note: your current working directory is ${cwd}.`],
    [
      'same strings',
      edit('a.txt', 'alpha', 'alpha'),
      {},
      'No changes to make: old_string and new_string are exactly the same.',
    ],
    ['a good edit: nothing to refuse', edit('a.txt', 'alpha'), {}, undefined],
    [
      '--add-dir makes the other folder a working folder',
      edit(path.join(outside, 'o.txt')),
      { directories: [outside] },
      NOT_FOUND,
    ],
    // The permission check first.
    ['a Read deny rule covers it', edit('secret/s.txt'), { deny: ['Read(./secret/**)'] }, undefined],
    ['a missing file under a Read deny rule', edit('secret/none.txt'), { deny: ['Read(./secret/**)'] }, undefined],
    ['a link to a denied file', edit('to-secret.txt'), { deny: ['Read(./secret/**)'] }, undefined],
    ['`..` into a denied folder', edit('x/../secret/s.txt'), { deny: ['Read(./secret/**)'] }, undefined],
    ['the whole Read tool denied', edit('a.txt'), { deny: ['Read'] }, undefined],
    ['outside the working folders', edit(path.join(outside, 'o.txt')), {}, undefined],
    ['a missing file outside', edit(path.join(outside, 'none.txt')), {}, undefined],
    ['`..` out of the folder', edit('../outside/o.txt'), {}, undefined],
    ['a link inside to a file outside', edit('link.txt'), {}, undefined],
    ['a linked folder leading outside', edit('dirlink/o.txt'), {}, undefined],
    ['a missing file under a linked folder', edit('dirlink/none.txt'), {}, undefined],
    ['home', edit('~/none-such-agentpipe-file.txt'), {}, undefined],
    ['a system file', edit('/etc/hostname'), {}, undefined],
    ['configuration that runs programs', edit('.git/config'), {}, undefined],
    ['a missing protected file', edit('.git/hooks/pre-commit'), {}, undefined],
  ];
  assert.ok(!os.homedir().startsWith(cwd));
  for (const [name, input, scope, expected] of rows) {
    const got = await refusalBeforePermission(editTool, input, {
      cwd,
      deny: scope.deny ? parseRules(scope.deny) : [],
      directories: scope.directories,
    });
    assert.equal(got, expected, name);
  }
  // A tool without a check of its own has nothing to say first.
  assert.equal(
    await refusalBeforePermission({ ...editTool, validate: undefined }, edit('a.txt'), { cwd, deny }),
    undefined,
  );
});

test('through the CLI (default mode, nobody to ask): the error first inside, the refusal first for a Read-denied file', async () => {
  const { cwd } = layout();
  const calls = [
    { id: 'toolu_inside', name: 'Edit', input: { file_path: 'a.txt', old_string: 'zzz', new_string: 'y' } },
    { id: 'toolu_secret', name: 'Edit', input: { file_path: 'secret/s.txt', old_string: 'zzz', new_string: 'y' } },
    { id: 'toolu_gone', name: 'Edit', input: { file_path: 'secret/none.txt', old_string: 'zzz', new_string: 'y' } },
    { id: 'toolu_link', name: 'Edit', input: { file_path: 'link.txt', old_string: 'zzz', new_string: 'y' } },
  ];
  const script = writeScript(cwd, [...calls.map((call) => ({ tool_calls: [call] })), { text: 'done' }]);
  const args = ['--model', 'scripted', '--script', script, '--no-session-persistence'];
  const cli = new StreamDriver([...args, '--disallowedTools', 'Read(./secret/**)'], cwd);
  const result = await cli.prompt('go');
  assert.equal(result.subtype, 'success');
  assert.equal(await cli.end(), 0);
  const results = new Map(
    cli.lines
      .filter((l) => l.type === 'user' && l.message.content[0]?.type === 'tool_result')
      .map((l) => [l.message.content[0].tool_use_id as string, l]),
  );
  const inside = results.get('toolu_inside')!;
  assert.equal(inside.message.content[0].content, `<tool_use_error>${NOT_FOUND}</tool_use_error>`);
  // Checked before the permission check: no permission decision to report, no denial.
  assert.equal(inside.tool_result_meta, undefined);
  for (const id of ['toolu_secret', 'toolu_gone', 'toolu_link']) {
    const line = results.get(id)!;
    assert.doesNotMatch(line.message.content[0].content, /String to replace|does not exist/, id);
    assert.equal(line.tool_result_meta[0].permission_decision.decision, 'reject', id);
  }
  const denied = cli.lines.filter((l) => l.type === 'system' && l.subtype === 'permission_denied');
  assert.deepEqual(
    denied.map((l) => l.tool_use_id),
    ['toolu_secret', 'toolu_gone', 'toolu_link'],
  );
});
