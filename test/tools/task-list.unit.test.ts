/**
 * The session's task list (src/tools/task-list.ts): numbers never given twice, dependencies both ways and removed with
 * a deleted task, metadata merged, and the file a resumed session reads back (a fork's copy).
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { copyTaskList, TaskList, taskListFile } from '../../src/tools/task-list.ts';
import { scratchDir } from '../helpers/temp.ts';

test('numbers go on after a deletion, and a deleted task takes its dependencies with it', async () => {
  const tasks = new TaskList();
  assert.equal(await tasks.create({ subject: 'a', description: 'A' }), '1');
  assert.equal(await tasks.create({ subject: 'b', description: 'B' }), '2');
  await tasks.link('1', '2');
  assert.deepEqual((await tasks.get('1'))?.blocks, ['2']);
  assert.deepEqual((await tasks.get('2'))?.blockedBy, ['1']);
  assert.equal(await tasks.delete('2'), true);
  assert.equal(await tasks.delete('2'), false);
  assert.deepEqual((await tasks.get('1'))?.blocks, []);
  assert.equal(await tasks.create({ subject: 'c', description: 'C' }), '3');
  assert.deepEqual(
    (await tasks.all()).map((t) => t.id),
    ['1', '3'],
  );
});

test('metadata is merged, a key set to null removed', async () => {
  const tasks = new TaskList();
  const id = await tasks.create({ subject: 'a', description: 'A', metadata: { a: 1, b: 2 } });
  await tasks.update(id, { status: 'in_progress' }, { a: null, c: 3 });
  const task = await tasks.get(id);
  assert.deepEqual(task?.metadata, { b: 2, c: 3 });
  assert.equal(task?.status, 'in_progress');
});

test('a list kept in a file is read back (resume), copied for a fork, and a file not written by it is refused', async () => {
  const home = scratchDir('task-list-');
  const file = taskListFile(home, 's1');
  assert.equal(file, path.join(home, 'tasks', 's1.json'));
  const first = new TaskList(file);
  await first.create({ subject: 'a', description: 'A', activeForm: 'Aing' });
  await first.create({ subject: 'b', description: 'B' });
  await first.delete('2');

  const resumed = new TaskList(file);
  assert.deepEqual(await resumed.get('1'), {
    id: '1',
    subject: 'a',
    description: 'A',
    activeForm: 'Aing',
    status: 'pending',
    blocks: [],
    blockedBy: [],
  });
  assert.equal(await resumed.create({ subject: 'c', description: 'C' }), '3', 'the deleted number is not given again');

  const forked = taskListFile(home, 's2');
  await copyTaskList(file, forked);
  assert.deepEqual(
    (await new TaskList(forked).all()).map((t) => t.subject),
    ['a', 'c'],
  );
  await copyTaskList(taskListFile(home, 'none'), taskListFile(home, 's3'));
  assert.deepEqual(await new TaskList(taskListFile(home, 's3')).all(), []);

  writeFileSync(file, '{"version": 2}');
  await assert.rejects(new TaskList(file).all(), /is not one agentpipe wrote/);
  writeFileSync(file, 'not json');
  await assert.rejects(new TaskList(file).all(), /is not one agentpipe wrote/);
  assert.equal(readFileSync(file, 'utf8'), 'not json');
});
