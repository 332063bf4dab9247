/** Plan mode through the real CLI: reads run, nothing that changes files or runs commands does. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/workspace.ts';
import { runScripted, toolResults } from '../helpers/agent-run.ts';

test('plan mode denies Write, Edit and a mutating Bash with a reason; Read and read-only Bash run', async () => {
  const dir = tempDir({ 'notes.txt': 'keep me\n' });
  const turns = [
    {
      tool_calls: [
        { name: 'Read', id: 'toolu_read', input: { file_path: 'notes.txt' } },
        { name: 'Bash', id: 'toolu_ls', input: { command: 'ls' } },
        { name: 'Write', id: 'toolu_write', input: { file_path: 'new.txt', content: 'x' } },
        { name: 'Edit', id: 'toolu_edit', input: { file_path: 'notes.txt', old_string: 'keep', new_string: 'lose' } },
        { name: 'Bash', id: 'toolu_rm', input: { command: 'rm notes.txt' } },
      ],
    },
    { text: 'here is the plan' },
  ];
  // Even bypass-style allow rules do not open plan mode.
  const run = await runScripted(dir, turns, ['--permission-mode', 'plan', '--allowedTools', 'Bash', 'Write', 'Edit']);
  assert.equal(run.code, 0, run.stderr);
  const results = toolResults(run.lines);
  assert.notEqual(results.get('toolu_read')!.is_error, true);
  assert.notEqual(results.get('toolu_ls')!.is_error, true);
  for (const id of ['toolu_write', 'toolu_edit', 'toolu_rm']) {
    assert.equal(results.get(id)!.is_error, true);
    assert.match(results.get(id)!.content, /plan mode/);
  }
  assert.equal(existsSync(path.join(dir, 'new.txt')), false);
  assert.equal(readFileSync(path.join(dir, 'notes.txt'), 'utf8'), 'keep me\n');
  const final = run.lines.at(-1)!;
  assert.deepEqual(
    final.permission_denials.map((d: any) => d.tool_use_id),
    ['toolu_write', 'toolu_edit', 'toolu_rm'],
  );
});
